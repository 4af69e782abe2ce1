package io.sstfilter.tests;

import static io.sstfilter.tests.Workload.KEYS;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.sstfilter.SstFilter;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.junit.BeforeClass;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.ConfigOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Filter;
import org.rocksdb.Options;
import org.rocksdb.OptionsUtil;
import org.rocksdb.RocksDB;
import org.rocksdb.Statistics;

/**
 * The hazard of loaded options. RocksJava 11.8's OptionsUtil gives a loaded
 * policy of RocksDB's built-in family (every sstfilter policy) to a
 * BloomFilter whose handle is the raw FilterPolicy*, which
 * setTableFormatConfig reads as a shared_ptr* (a crash); any other policy it
 * drops, so that setting the config again leaves the DB unfiltered. This jar's
 * librocksdbjni re-binds OptionsUtil.readTableFormatConfig
 * (rocksdb_plugin/java/sstfilter_jni.cc): the loaded config holds a Filter
 * that owns a handle on the loaded policy, and setting it again keeps the
 * DB's filters. Each test sets the loaded config again, opens the DB, and
 * shows the policy at work in it.
 */
public class LoadedOptionsTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @BeforeClass
  public static void loadLibrary() {
    // BloomFilter, unlike SstFilter and Options, does not load it.
    RocksDB.loadLibrary();
  }

  /** Makes a DB with `filter` and half the keys. */
  static void makeDb(final File dir, final Filter filter) throws Exception {
    try (Statistics stats = new Statistics();
         Options options = ThreeWaysTest.multiLevelOptions(stats).setTableFormatConfig(
             new BlockBasedTableConfig().setFilterPolicy(filter));
         RocksDB db = RocksDB.open(options, dir.getPath())) {
      Workload.write(db, 0, KEYS / 2);
      db.closeE();
    }
  }

  /**
   * Loads the DB's options, checks the loaded filter with `check`, sets the
   * loaded table config again, writes the other half of the keys and checks
   * the DB.
   */
  static void reloadAndFill(final File dir, final java.util.function.Consumer<Filter> check)
      throws Exception {
    final List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    final List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (Statistics stats = new Statistics();
         ConfigOptions config = new ConfigOptions();
         DBOptions dbOptions = new DBOptions()) {
      OptionsUtil.loadLatestOptions(config, dir.getPath(), dbOptions, descriptors);
      dbOptions.setStatistics(stats);
      final ColumnFamilyOptions cfOptions = descriptors.get(0).getOptions();
      final BlockBasedTableConfig tableConfig = (BlockBasedTableConfig) cfOptions.tableFormatConfig();
      final Filter loaded = tableConfig.filterPolicy();
      // A handle of its own: RocksJava's BloomFilter over the raw pointer
      // does not own it (disOwnNativeHandle).
      assertTrue("the loaded filter owns its handle", loaded.isOwningHandle());
      check.accept(loaded);
      cfOptions.setTableFormatConfig(tableConfig);
      // The loaded Filter may go: the options keep the policy.
      loaded.close();
      try (RocksDB db = RocksDB.open(dbOptions, dir.getPath(), descriptors, handles)) {
        ThreeWaysTest.fillAndCheck(db, stats, KEYS / 2, KEYS / 2);
        handles.forEach(ColumnFamilyHandle::close);
        db.closeE();
      } finally {
        descriptors.forEach(d -> d.getOptions().close());
      }
    }
  }

  @Test
  public void sstfilterPolicyComesBackAsTheSameSstFilter() throws Exception {
    final File dir = tmp.newFolder("db");
    try (SstFilter filter = new SstFilter("sstfilter.LevelAware:10")) {
      makeDb(dir, filter);
    }
    reloadAndFill(dir, loaded -> assertEquals(
        "sstfilter.LevelAware:10:10", ((SstFilter) loaded).id()));
    Workload.assertSstfilterFilters(dir, "sstfilter.LevelAware", ThreeWaysTest.FAMILY_META_BLOCK,
        "BlockedBloom", "Cuckoo", "FastLocalBloom", "Ribbon128");
  }

  @Test
  public void policyUnderCompatibilityNameSstfilterIsKeptNotDropped() throws Exception {
    // Not of RocksDB's family: RocksJava would drop it, and the DB would
    // go on without filters.
    final File dir = tmp.newFolder("db");
    try (SstFilter filter =
             new SstFilter("id=sstfilter.BlockedBloom:10;compatibility_name=sstfilter")) {
      makeDb(dir, filter);
    }
    reloadAndFill(dir, loaded -> assertEquals(
        "sstfilter.BlockedBloom:10", ((SstFilter) loaded).id()));
    Workload.assertSstfilterFilters(
        dir, "sstfilter.BlockedBloom", "fullfilter.sstfilter", "BlockedBloom");
  }

  @Test
  public void rocksdbsOwnBloomFilterComesBackWithoutTheRawPointer() throws Exception {
    final File dir = tmp.newFolder("db");
    try (BloomFilter filter = new BloomFilter(10)) {
      makeDb(dir, filter);
    }
    reloadAndFill(dir, loaded -> assertTrue(loaded.getClass().getName(),
        loaded instanceof BloomFilter));
  }
}
