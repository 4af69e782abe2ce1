package io.sstfilter.tests;

import static io.sstfilter.tests.Workload.KEYS;
import static org.junit.Assert.assertEquals;

import io.sstfilter.SstFilter;
import io.sstfilter.example.SstfilterConfigSetter;
import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import org.junit.BeforeClass;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.Statistics;
import org.rocksdb.TableFormatConfig;

/**
 * The Kafka Streams-shaped config setter of rocksdb_plugin/java/example/: it
 * turns on sstfilter.LevelAware:10 and its listener, on plain Options and on
 * options shaped as Kafka Streams hands a setter (HandingOnOptions).
 */
public class KafkaStreamsExampleTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @BeforeClass
  public static void loadLibrary() {
    // BloomFilter, unlike SstFilter and Options, does not load it.
    RocksDB.loadLibrary();
  }

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
    Workload.assertWatched(dir);
  }

  /**
   * Options shaped as those Kafka Streams gives a RocksDBConfigSetter: an
   * Options whose setters and getters hand on to the DBOptions and
   * ColumnFamilyOptions the store is opened with, its own native options
   * unused (the listeners and the table config here; Kafka Streams hands on
   * every option).
   */
  static final class HandingOnOptions extends Options {
    private final DBOptions dbOptions;
    private final ColumnFamilyOptions cfOptions;

    HandingOnOptions(final DBOptions dbOptions, final ColumnFamilyOptions cfOptions) {
      this.dbOptions = dbOptions;
      this.cfOptions = cfOptions;
    }

    @Override
    public Options setListeners(final List<AbstractEventListener> listeners) {
      dbOptions.setListeners(listeners);
      return this;
    }

    @Override
    public List<AbstractEventListener> listeners() {
      return dbOptions.listeners();
    }

    @Override
    public Options setTableFormatConfig(final TableFormatConfig config) {
      cfOptions.setTableFormatConfig(config);
      return this;
    }

    @Override
    public TableFormatConfig tableFormatConfig() {
      return cfOptions.tableFormatConfig();
    }
  }

  @Test
  public void configSetterReachesTheOptionsKafkaStreamsOpensTheStoreWith() throws Exception {
    final File dir = tmp.newFolder("store");
    final SstfilterConfigSetter setter = new SstfilterConfigSetter();
    final List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (BloomFilter kafkaDefault = new BloomFilter();
         DBOptions dbOptions = new DBOptions().setCreateIfMissing(true);
         ColumnFamilyOptions cfOptions = Workload.multiLevelColumnFamilyOptions("bloomfilter:10");
         Options handedToTheSetter = new HandingOnOptions(dbOptions, cfOptions)) {
      handedToTheSetter.setTableFormatConfig(
          new BlockBasedTableConfig().setFilterPolicy(kafkaDefault));
      setter.setConfig("store", handedToTheSetter, new HashMap<>());
      try (RocksDB db = RocksDB.open(dbOptions, dir.getPath(),
               Arrays.asList(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions)),
               handles)) {
        LevelAwareListenerTest.fill(db);
        handles.forEach(ColumnFamilyHandle::close);
        db.closeE();
      }
      setter.close("store", handedToTheSetter);
    }
    Workload.assertSstfilterFilters(dir, "sstfilter.LevelAware", ThreeWaysTest.FAMILY_META_BLOCK,
        "BlockedBloom", "Cuckoo", "FastLocalBloom", "Ribbon128");
    Workload.assertWatched(dir);
  }
}
