package io.sstfilter.tests;

import static io.sstfilter.tests.Workload.KEYS;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.sstfilter.SstFilter;
import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.ConfigOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.Statistics;

/**
 * The three ways Java services set a filter policy, each on a DB of several
 * levels: every key found, absent keys turned away by the filters, and every
 * SST's filter block sstfilter's (sstfilter-inspect).
 */
public class ThreeWaysTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  static final String FAMILY_META_BLOCK = "fullfilter.rocksdb.BuiltinBloomFilter";

  /** Options with the multi-level shape of Workload.MULTI_LEVEL_OPTIONS. */
  static Options multiLevelOptions(final Statistics stats) {
    return new Options()
        .setCreateIfMissing(true)
        .setStatistics(stats)
        .setWriteBufferSize(64 << 10)
        .setTargetFileSizeBase(64 << 10)
        .setMaxBytesForLevelBase(256 << 10)
        .setLevel0FileNumCompactionTrigger(4)
        .setCompressionType(CompressionType.NO_COMPRESSION);
  }

  /** Writes keys [first, first + count), settles, checks levels and reads. */
  static void fillAndCheck(final RocksDB db, final Statistics stats, final int first,
      final int count) throws Exception {
    Workload.write(db, first, count);
    Workload.settle(db);
    // The last two levels at least (the dynamic layout fills from the
    // bottom), and L0 and the one above them whenever they hold files at the
    // end, as the C++ multi-level tests (rocksdb_db_level_aware_test.cc).
    final int levels = Workload.populatedLevels(db);
    assertTrue("levels below L0 holding files: " + levels, levels >= 2);
    Workload.assertEveryKeyFound(db, first + count);
    Workload.assertFiltered(Workload.absentGets(db, stats));
  }

  @Test
  public void setFilterPolicyWithSstFilter() throws Exception {
    final File dir = tmp.newFolder("db");
    try (Statistics stats = new Statistics();
         SstFilter filter = new SstFilter("sstfilter.Cuckoo:12");
         Options options = multiLevelOptions(stats).setTableFormatConfig(
             new BlockBasedTableConfig().setFilterPolicy(filter));
         RocksDB db = RocksDB.open(options, dir.getPath())) {
      fillAndCheck(db, stats, 0, KEYS);
      db.closeE();
    }
    Workload.assertSstfilterFilters(dir, "sstfilter.Cuckoo", FAMILY_META_BLOCK, "Cuckoo");
  }

  @Test
  public void optionsStringThroughGetColumnFamilyOptionsFromProps() throws Exception {
    final File dir = tmp.newFolder("db");
    final Properties props = Workload.properties(Workload.MULTI_LEVEL_OPTIONS);
    props.setProperty("block_based_table_factory", "{filter_policy=sstfilter.BlockedBloom:10}");
    final List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (Statistics stats = new Statistics();
         ConfigOptions config = unescaped();
         ColumnFamilyOptions cfOptions =
             ColumnFamilyOptions.getColumnFamilyOptionsFromProps(config, props);
         DBOptions dbOptions = new DBOptions().setCreateIfMissing(true).setStatistics(stats)) {
      assertNotNull("the options string parses", cfOptions);
      try (RocksDB db = RocksDB.open(dbOptions, dir.getPath(),
               Arrays.asList(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions)),
               handles)) {
        fillAndCheck(db, stats, 0, KEYS);
        handles.forEach(ColumnFamilyHandle::close);
        db.closeE();
      }
    }
    Workload.assertSstfilterFilters(
        dir, "sstfilter.BlockedBloom", FAMILY_META_BLOCK, "BlockedBloom");
  }

  /**
   * Options strings parsed as written: with ConfigOptions' default (escaped
   * strings, as in OPTIONS files) RocksDB's table-options parser turns a bad
   * filter_policy into no policy, for its own "bloomfilter:abc" too.
   */
  static ConfigOptions unescaped() {
    return new ConfigOptions().setInputStringsEscaped(false);
  }

  @Test
  public void getColumnFamilyOptionsFromPropsGivesNullForABadId() {
    // RocksJava's way of saying the string is wrong: no exception, no
    // message, null. An unknown sstfilter name or a bad number is an error,
    // never options without the filter.
    for (final String id : new String[] {"sstfilter.Nope:10", "sstfilter.Cuckoo:abc",
             "{id=sstfilter.Cuckoo:12;fingerprint_bits=99}"}) {
      final Properties props = new Properties();
      props.setProperty("block_based_table_factory", "{filter_policy=" + id + "}");
      try (ConfigOptions config = unescaped();
           ColumnFamilyOptions cfOptions =
               ColumnFamilyOptions.getColumnFamilyOptionsFromProps(config, props)) {
        assertNull(id, cfOptions);
      }
    }
  }

  @Test
  public void optionsFileThroughLoadLatestOptionsThenSetTableFormatConfig() throws Exception {
    final File dir = tmp.newFolder("db");
    // A DB that some earlier run made with the policy.
    try (SstFilter filter = new SstFilter("sstfilter.Cuckoo:12")) {
      LoadedOptionsTest.makeDb(dir, filter);
    }
    // The service loads its OPTIONS file and, as Kafka Streams and Flink do
    // with the options they are handed, sets the table config again.
    LoadedOptionsTest.reloadAndFill(
        dir, loaded -> assertEquals("sstfilter.Cuckoo:12", ((SstFilter) loaded).id()));
    // Every file, those written after the reload included.
    Workload.assertSstfilterFilters(dir, "sstfilter.Cuckoo", FAMILY_META_BLOCK, "Cuckoo");
  }
}
