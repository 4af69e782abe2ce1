package io.sstfilter.tests;

import static io.sstfilter.tests.Workload.KEYS;
import static org.junit.Assert.assertEquals;

import io.sstfilter.SstFilter;
import io.sstfilter.example.SstfilterConfigSetter;
import java.io.File;
import java.util.HashMap;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.Statistics;

/** The Kafka Streams-shaped config setter of rocksdb_plugin/java/example/. */
public class KafkaStreamsExampleTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void configSetterTurnsOnLevelAwareForTheStore() throws Exception {
    final File dir = tmp.newFolder("store");
    final SstfilterConfigSetter setter = new SstfilterConfigSetter();
    try (Statistics stats = new Statistics();
         BloomFilter kafkaDefault = new BloomFilter();
         Options options = ThreeWaysTest.multiLevelOptions(stats)) {
      // What Kafka Streams sets before it calls the setter.
      options.setTableFormatConfig(new BlockBasedTableConfig().setFilterPolicy(kafkaDefault));
      setter.setConfig("store", options, new HashMap<>());
      final BlockBasedTableConfig tableConfig = (BlockBasedTableConfig) options.tableFormatConfig();
      assertEquals("sstfilter.LevelAware:10:10", ((SstFilter) tableConfig.filterPolicy()).id());
      try (RocksDB db = RocksDB.open(options, dir.getPath())) {
        ThreeWaysTest.fillAndCheck(db, stats, 0, KEYS);
        db.closeE();
      }
      setter.close("store", options);
    }
    Workload.assertSstfilterFilters(dir, "sstfilter.LevelAware", ThreeWaysTest.FAMILY_META_BLOCK,
        "BlockedBloom", "Cuckoo", "FastLocalBloom", "Ribbon128");
  }
}
