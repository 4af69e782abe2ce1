package io.sstfilter.tests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.rocksdb.ColumnFamilyMetaData;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.ConfigOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.LevelMetaData;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;

/**
 * What every Java test does to a DB: write keys enough for several levels,
 * wait for RocksDB's compactions, find every key, look up absent keys, and read
 * the SSTs' filter blocks with sstfilter-inspect. The keys are
 * "key%010d" of even numbers, the absent ones of odd numbers, so that each
 * absent key lies inside the files' key ranges; absent_gets.cc looks up the
 * same ones.
 */
final class Workload {
  /** Keys written: about 8 MB, several levels at the options below. */
  static final int KEYS = 100_000;
  /** Absent keys looked up. */
  static final int ABSENT = 20_000;
  /**
   * The options that spread KEYS over several levels, as an options string:
   * 64 KB write buffers and files, 256 KB for L1 (as the C++ multi-level tests,
   * tests/rocksdb_db_level_aware_test.cc), no compression so that sizes are
   * the keys' and values'.
   */
  static final String MULTI_LEVEL_OPTIONS = "write_buffer_size=65536;target_file_size_base=65536;"
      + "max_bytes_for_level_base=262144;level0_file_num_compaction_trigger=4;"
      + "compression=kNoCompression";

  private Workload() {}

  /** An options string of plain values ("a=1;b=2") as Properties. */
  static Properties properties(final String options) {
    final Properties props = new Properties();
    for (final String option : options.split(";")) {
      final String[] nameValue = option.split("=", 2);
      props.setProperty(nameValue[0], nameValue[1]);
    }
    return props;
  }

  /**
   * ColumnFamilyOptions of MULTI_LEVEL_OPTIONS and the filter policy `id`,
   * from properties parsed as written (ThreeWaysTest.unescaped).
   */
  static ColumnFamilyOptions multiLevelColumnFamilyOptions(final String id) {
    final Properties props = properties(MULTI_LEVEL_OPTIONS);
    props.setProperty("block_based_table_factory", "{filter_policy=" + id + "}");
    try (ConfigOptions config = new ConfigOptions().setInputStringsEscaped(false)) {
      final ColumnFamilyOptions options =
          ColumnFamilyOptions.getColumnFamilyOptionsFromProps(config, props);
      assertNotNull("the options parse", options);
      return options;
    }
  }

  static byte[] key(final long n) {
    return String.format("key%010d", n).getBytes(StandardCharsets.US_ASCII);
  }

  static byte[] value(final long n) {
    // 64 bytes that differ per key.
    final StringBuilder value = new StringBuilder(64);
    long x = n * 0x9E3779B97F4A7C15L + 1;
    while (value.length() < 64) {
      x ^= x >>> 29;
      x *= 0xBF58476D1CE4E5B9L;
      value.append(Long.toHexString(x));
    }
    return value.substring(0, 64).getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * Writes keys [first, first + count) (present key i is key(2 i)) in a
   * shuffled order, so that compactions merge files rather than move them.
   */
  static void write(final RocksDB db, final int first, final int count) throws RocksDBException {
    final int stride = 7919;  // a prime: i * stride mod count visits each i once
    for (int j = 0; j < count; ++j) {
      final long i = first + (long) j * stride % count;
      db.put(key(2 * i), value(i));
    }
  }

  /** Flushes and waits until no flush or compaction is pending or running. */
  static void settle(final RocksDB db) throws RocksDBException, InterruptedException {
    try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
      db.flush(flush);
    }
    for (int i = 0; i < 1200; ++i) {
      if (db.getLongProperty("rocksdb.compaction-pending") == 0
          && db.getLongProperty("rocksdb.num-running-compactions") == 0
          && db.getLongProperty("rocksdb.mem-table-flush-pending") == 0) {
        return;
      }
      Thread.sleep(50);
    }
    fail("compactions did not finish in 60 s");
  }

  /** Levels below L0 that hold files; prints how many each holds. */
  static int populatedLevels(final RocksDB db) {
    final ColumnFamilyMetaData meta = db.getColumnFamilyMetaData();
    final StringBuilder files = new StringBuilder("SST files per level:");
    int levels = 0;
    for (final LevelMetaData level : meta.levels()) {
      if (!level.files().isEmpty()) {
        files.append(" L").append(level.level()).append(' ').append(level.files().size());
        levels += level.level() > 0 ? 1 : 0;
      }
    }
    System.out.println(files);
    return levels;
  }

  /** Gets each of keys [0, count) and checks its value. */
  static void assertEveryKeyFound(final RocksDB db, final int count) throws RocksDBException {
    int found = 0;
    for (long i = 0; i < count; ++i) {
      final byte[] value = db.get(key(2 * i));
      if (value != null && java.util.Arrays.equals(value, value(i))) {
        ++found;
      }
    }
    assertEquals("keys found", count, found);
  }

  /** What the statistics say about ABSENT Gets of absent keys. */
  static final class AbsentGets {
    long useful;  // bloom.filter.useful: a filter said no
    long positive;  // a whole-key filter said maybe
    long truePositive;
    long dataBlocks;  // data block cache hits + misses

    double dataBlocksPerGet() {
      return (double) dataBlocks / ABSENT;
    }

    @Override
    public String toString() {
      return String.format("%d absent Gets: bloom.filter.useful %d, full.positive %d, "
              + "%.5f data blocks read per Get",
          ABSENT, useful, positive, dataBlocksPerGet());
    }
  }

  static AbsentGets absentGets(final RocksDB db, final Statistics stats)
      throws RocksDBException {
    stats.reset();
    for (long i = 0; i < ABSENT; ++i) {
      if (db.get(key(2 * i + 1)) != null) {
        fail("absent key " + (2 * i + 1) + " found");
      }
    }
    final AbsentGets gets = new AbsentGets();
    gets.useful = stats.getTickerCount(TickerType.BLOOM_FILTER_USEFUL);
    gets.positive = stats.getTickerCount(TickerType.BLOOM_FILTER_FULL_POSITIVE);
    gets.truePositive = stats.getTickerCount(TickerType.BLOOM_FILTER_FULL_TRUE_POSITIVE);
    gets.dataBlocks = stats.getTickerCount(TickerType.BLOCK_CACHE_DATA_HIT)
        + stats.getTickerCount(TickerType.BLOCK_CACHE_DATA_MISS);
    return gets;
  }

  /** Asserts that the filters turned most absent Gets away. */
  static void assertFiltered(final AbsentGets gets) {
    System.out.println(gets);
    assertTrue("bloom.filter.useful > 0: " + gets, gets.useful > 0);
    assertEquals("no absent key is a true positive", 0, gets.truePositive);
    // Without a filter each absent Get reads a data block on every level
    // whose key range holds it: at least one.
    assertTrue("filtered: " + gets, gets.dataBlocksPerGet() < 0.5);
  }

  /** One SST as sstfilter-inspect reports it. */
  static final class Sst {
    final String path;
    final String policy;  // the table property rocksdb.filter.policy
    final String metaBlock;  // null: no filter
    final String family;
    final String kind;

    Sst(final String path, final String policy, final String metaBlock, final String family,
        final String kind) {
      this.path = path;
      this.policy = policy;
      this.metaBlock = metaBlock;
      this.family = family;
      this.kind = kind;
    }

    @Override
    public String toString() {
      return path + ": " + policy + " " + metaBlock + " " + family + " " + kind;
    }
  }

  private static final Pattern SST = Pattern.compile("\\{\"path\": \"([^\"]*)\", \"ok\": true"
      + "[^{}]*\"filter_policy\": \"([^\"]*)\", \"filter\": (null|\\{\"layout\": \"[^\"]*\", "
      + "\"meta_block\": \"([^\"]*)\", \"family\": \"([^\"]*)\", \"kind\": \"([^\"]*)\")");

  /**
   * The live SSTs of the DB in dir, read by sstfilter-inspect (its path in the
   * system property sstfilter.inspect); fails unless it read every one.
   */
  static List<Sst> inspect(final File dir) throws IOException, InterruptedException {
    final String inspector = System.getProperty("sstfilter.inspect");
    assertTrue("-Dsstfilter.inspect names sstfilter-inspect", inspector != null);
    final Process process =
        new ProcessBuilder(inspector, "--json", dir.getPath()).redirectErrorStream(true).start();
    final String json = readAll(process.getInputStream());
    assertEquals("sstfilter-inspect's exit status; output:\n" + json, 0, process.waitFor());
    final List<Sst> ssts = new ArrayList<>();
    final Matcher m = SST.matcher(json);
    while (m.find()) {
      ssts.add(new Sst(m.group(1), m.group(2), m.group(4), m.group(5), m.group(6)));
    }
    final int files = json.split("\\{\"path\": ").length - 1;
    assertEquals("every SST read, with its filter; output:\n" + json, files, ssts.size());
    assertTrue("the DB has SSTs", files > 0);
    return ssts;
  }

  /**
   * Asserts that every live SST has a filter written by sstfilter's policy
   * `policy` (its table property) under meta block `metaBlock`, and that its
   * kind is one of `kinds`.
   */
  static void assertSstfilterFilters(final File dir, final String policy, final String metaBlock,
      final String... kinds) throws IOException, InterruptedException {
    final List<Sst> ssts = inspect(dir);
    for (final Sst sst : ssts) {
      assertEquals("filter policy of " + sst, policy, sst.policy);
      assertEquals("filter meta block of " + sst, metaBlock, sst.metaBlock);
      boolean known = false;
      for (final String kind : kinds) {
        known |= kind.equals(sst.kind);
      }
      assertTrue("filter kind of " + sst, known);
    }
    System.out.println(ssts.size() + " SSTs, every filter " + policy + "'s");
  }

  /** The listener's name in options strings and OPTIONS files. */
  static final String LISTENER = "sstfilter.LevelAwareListener";

  /**
   * Asserts that sstfilter.LevelAwareListener watched the DB in dir, closed
   * (RocksDB buffers its LOG), of one column family, since it was last
   * opened: its LOG says so once and has no line saying LevelAware has no
   * listener, and its newest OPTIONS file names the listener.
   */
  static void assertWatched(final File dir) throws IOException {
    final String log = read(new File(dir, "LOG"));
    assertEquals("LOG lines saying the listener watches; LOG:\n" + log, 1,
        count(log, "] " + LISTENER + " watches this column family"));
    assertEquals("LOG lines saying LevelAware has no listener", 0, count(log, "no " + LISTENER));
    assertTrue("the newest OPTIONS file names the listener", namesListener(newestOptionsFile(dir)));
  }

  /**
   * Asserts that no sstfilter.LevelAwareListener watched the DB in dir,
   * closed: the LOG says so once, and the newest OPTIONS file names none.
   */
  static void assertNotWatched(final File dir) throws IOException {
    final String log = read(new File(dir, "LOG"));
    assertEquals("LOG lines saying the listener watches", 0,
        count(log, "] " + LISTENER + " watches this column family"));
    assertEquals("LOG lines saying LevelAware has no listener; LOG:\n" + log, 1,
        count(log, "no " + LISTENER + " watches this column family"));
    assertTrue("the newest OPTIONS file names no listener", !namesListener(newestOptionsFile(dir)));
  }

  /**
   * Whether the listeners line of an OPTIONS file names the listener: RocksDB
   * writes "listeners={sstfilter.LevelAwareListener}", with other named
   * listeners after ':' (db_bench's ErrorHandlerListener).
   */
  private static boolean namesListener(final String optionsFile) {
    final Matcher line =
        Pattern.compile("(?m)^\\s*listeners=\\{([^}]*)\\}\\s*$").matcher(optionsFile);
    return line.find() && Arrays.asList(line.group(1).split(":")).contains(LISTENER);
  }

  /** The text of the OPTIONS-<number> file of dir with the highest number. */
  static String newestOptionsFile(final File dir) throws IOException {
    final File[] files = dir.listFiles((d, name) -> name.matches("OPTIONS-[0-9]+"));
    assertTrue("the DB has an OPTIONS file", files != null && files.length > 0);
    Arrays.sort(files, (a, b) -> Long.compare(number(a), number(b)));
    return read(files[files.length - 1]);
  }

  private static long number(final File optionsFile) {
    return Long.parseLong(optionsFile.getName().substring("OPTIONS-".length()));
  }

  private static int count(final String text, final String what) {
    int n = 0;
    for (int at = text.indexOf(what); at >= 0; at = text.indexOf(what, at + 1)) {
      ++n;
    }
    return n;
  }

  static String read(final File file) throws IOException {
    return new String(Files.readAllBytes(file.toPath()), StandardCharsets.UTF_8);
  }

  static String readAll(final InputStream in) throws IOException {
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final byte[] buffer = new byte[8192];
    for (int n; (n = in.read(buffer)) > 0;) {
      out.write(buffer, 0, n);
    }
    return new String(out.toByteArray(), StandardCharsets.UTF_8);
  }
}
