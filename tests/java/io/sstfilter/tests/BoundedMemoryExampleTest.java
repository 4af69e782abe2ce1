package io.sstfilter.tests;

import static io.sstfilter.tests.Workload.KEYS;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.sstfilter.SstFilter;
import io.sstfilter.example.BoundedMemoryConfigSetter;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.BeforeClass;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ConfigOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.IndexType;
import org.rocksdb.Options;
import org.rocksdb.OptionsUtil;
import org.rocksdb.RocksDB;
import org.rocksdb.Statistics;

/**
 * The bounded-memory config setter of rocksdb_plugin/java/example/: two
 * stores, each configured by a setter of its own as Kafka Streams does, share
 * its one block cache; each settles over several levels, finds every key and
 * no absent one, writes sstfilter.LevelAware:10:size_for_cache=true and the
 * listener to its OPTIONS file, and tells its LOG the average chosen for the
 * cache.
 */
public class BoundedMemoryExampleTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @BeforeClass
  public static void loadLibrary() {
    // BloomFilter, unlike SstFilter and Options, does not load it.
    RocksDB.loadLibrary();
  }

  static final String ID = "sstfilter.LevelAware:10:10:size_for_cache=true";

  /**
   * The line LevelAware writes to the LOG when the average it chooses for the
   * cache first differs by 0.25 bits/key from the last it told
   * (level_aware_allocation.cc, CacheAverage), with the column family, the
   * average, the average asked, and the column family's share of the cache.
   */
  private static final Pattern TOLD = Pattern.compile("\\[([^\\]]*)\\] sstfilter\\.LevelAware "
      + "size_for_cache: ([0-9.]+) bits/key \\(asked ([0-9.]+)\\): its share of the block cache "
      + "([0-9]+) bytes \\(capacity ([0-9]+)\\)");

  /**
   * Options of a store as Kafka Streams hands them to the setter (a table
   * config with a Bloom filter), set by `setter`; then write buffers and
   * files of Workload's multi-level sizes instead of the setter's (which are
   * a service's), so that KEYS settle over several levels.
   */
  static Options storeOptions(final String store, final BoundedMemoryConfigSetter setter,
      final Statistics stats, final BloomFilter kafkaDefault) {
    final Options options = ThreeWaysTest.multiLevelOptions(stats);
    options.setTableFormatConfig(new BlockBasedTableConfig().setFilterPolicy(kafkaDefault));
    setter.setConfig(store, options, new HashMap<>());
    return options.setWriteBufferSize(64 << 10);
  }

  /** Fills a store, settles it and checks its tree and reads. */
  static void fillAndCheck(final RocksDB db, final Statistics stats) throws Exception {
    ThreeWaysTest.fillAndCheck(db, stats, 0, KEYS);
    final int files = db.getLiveFilesMetaData().size();
    assertTrue("SST files of the settled tree: " + files, files >= 4);
  }

  @Test
  public void twoStoresShareTheCacheAndLevelAwareSizesTheirFiltersForIt() throws Exception {
    final File dirA = tmp.newFolder("store-a");
    final File dirB = tmp.newFolder("store-b");
    final BoundedMemoryConfigSetter setterA = new BoundedMemoryConfigSetter();
    final BoundedMemoryConfigSetter setterB = new BoundedMemoryConfigSetter();
    try (Statistics statsA = new Statistics();
         Statistics statsB = new Statistics();
         BloomFilter kafkaDefault = new BloomFilter();
         Options optionsA = storeOptions("store-a", setterA, statsA, kafkaDefault);
         Options optionsB = storeOptions("store-b", setterB, statsB, kafkaDefault)) {
      final BlockBasedTableConfig tableConfig =
          (BlockBasedTableConfig) optionsA.tableFormatConfig();
      assertEquals(ID, ((SstFilter) tableConfig.filterPolicy()).id());
      // B is written while A is open, so that they share the cache.
      try (RocksDB dbA = RocksDB.open(optionsA, dirA.getPath())) {
        fillAndCheck(dbA, statsA);
        try (RocksDB dbB = RocksDB.open(optionsB, dirB.getPath())) {
          fillAndCheck(dbB, statsB);
          Workload.assertEveryKeyFound(dbA, KEYS);
          dbB.closeE();
        }
        dbA.closeE();
      }
      setterA.close("store-a", optionsA);
      setterB.close("store-b", optionsB);
    }
    // What the LOGs say (read once the DBs are closed: RocksDB buffers its
    // LOG). A store's share of the cache is its capacity split by the data
    // bytes of the stores on it, and both stores' data, index and filter
    // blocks together (about 20 MB) are far below TOTAL_OFF_HEAP_MEMORY: each
    // share holds all of its store's blocks, so that the model reads nothing
    // from disk at any average, and the choice is the most it may take,
    // twice the 10 asked, told once (the first average chosen is always
    // told, and it never moves).
    final Told toldA = toldOnce(dirA);
    final Told toldB = toldOnce(dirB);
    // A was alone on the cache until its tree was filled; B, beside A's
    // data, gets less.
    assertEquals("store-a's share, alone", toldA.capacity, toldA.share);
    assertTrue("store-b's share " + toldB.share + " < the capacity, A's data beside it",
        toldB.share < toldB.capacity);
    for (final File dir : new File[] {dirA, dirB}) {
      Workload.assertWatched(dir);
      assertOptionsFileRoundTrips(dir);
      // "mixed": a partitioned file of RocksDB's Ribbon whose small
      // partitions fell back to Bloom (Ribbon's own fallback, at the high
      // bits/key this cache lets LevelAware choose).
      Workload.assertSstfilterFilters(dir, "sstfilter.LevelAware",
          "partitionedfilter.rocksdb.BuiltinBloomFilter", "BlockedBloom", "Cuckoo",
          "FastLocalBloom", "Ribbon128", "mixed");
    }
  }

  /** What a LOG line of TOLD says. */
  static final class Told {
    double average;
    double asked;
    long share;
    long capacity;
  }

  /** Asserts that the LOG of dir has one line of TOLD, of 20 for the 10 asked; gives it. */
  static Told toldOnce(final File dir) throws IOException {
    final String log = Workload.read(new File(dir, "LOG"));
    final List<Told> lines = new ArrayList<>();
    final Matcher m = TOLD.matcher(log);
    while (m.find()) {
      System.out.println(dir.getName() + ": " + m.group());
      assertEquals("column family", "default", m.group(1));
      final Told told = new Told();
      told.average = Double.parseDouble(m.group(2));
      told.asked = Double.parseDouble(m.group(3));
      told.share = Long.parseLong(m.group(4));
      told.capacity = Long.parseLong(m.group(5));
      lines.add(told);
    }
    assertEquals("LOG lines of size_for_cache's choice in " + dir.getName(), 1, lines.size());
    final Told told = lines.get(0);
    assertEquals("the average asked", 10.0, told.asked, 0);
    assertEquals("the average chosen: the most, 2 x the average asked", 20.0, told.average, 0);
    assertEquals("the capacity of the cache the filters are in",
        BoundedMemoryConfigSetter.TOTAL_OFF_HEAP_MEMORY, told.capacity);
    return told;
  }

  /**
   * Asserts that the OPTIONS file of dir, loaded, gives the policy back with
   * its option, the listener, and the setter's table config.
   */
  static void assertOptionsFileRoundTrips(final File dir) throws Exception {
    final List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    try (ConfigOptions config = new ConfigOptions(); DBOptions dbOptions = new DBOptions()) {
      OptionsUtil.loadLatestOptions(config, dir.getPath(), dbOptions, descriptors);
      try {
        LevelAwareListenerTest.assertOneLevelAwareListener(dbOptions.listeners());
        final BlockBasedTableConfig tableConfig =
            (BlockBasedTableConfig) descriptors.get(0).getOptions().tableFormatConfig();
        try (SstFilter loaded = (SstFilter) tableConfig.filterPolicy()) {
          assertEquals("filter_policy", ID, loaded.id());
        }
        assertTrue("cache_index_and_filter_blocks", tableConfig.cacheIndexAndFilterBlocks());
        assertTrue("cache_index_and_filter_blocks_with_high_priority",
            tableConfig.cacheIndexAndFilterBlocksWithHighPriority());
        assertTrue("pin_top_level_index_and_filter", tableConfig.pinTopLevelIndexAndFilter());
        assertEquals("index_type", IndexType.kTwoLevelIndexSearch, tableConfig.indexType());
        assertTrue("partition_filters", tableConfig.partitionFilters());
      } finally {
        descriptors.forEach(d -> d.getOptions().close());
      }
    }
  }
}
