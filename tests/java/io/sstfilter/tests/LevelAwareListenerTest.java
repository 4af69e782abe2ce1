package io.sstfilter.tests;

import static io.sstfilter.tests.Workload.KEYS;
import static io.sstfilter.tests.Workload.LISTENER;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import io.sstfilter.LevelAwareListener;
import io.sstfilter.SstFilter;
import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.ConfigOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushJobInfo;
import org.rocksdb.Options;
import org.rocksdb.OptionsUtil;
import org.rocksdb.RocksDB;
import org.rocksdb.Statistics;

/**
 * sstfilter.LevelAwareListener from Java, each way in: SstFilter's
 * addLevelAwareListener on Options and on DBOptions, listeners={...} in the
 * properties of DBOptions.getDBOptionsFromProps, and an OPTIONS file loaded
 * by OptionsUtil.loadLatestOptions. Each DB is watched: after its flushes
 * and compactions its LOG says the listener watches the column family and
 * has no line saying LevelAware has none, and its newest OPTIONS file names
 * the listener (Workload.assertWatched). listeners() gives it back as a
 * LevelAwareListener beside Java listeners. (Kafka Streams' options:
 * KafkaStreamsExampleTest.)
 */
public class LevelAwareListenerTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  static final String POLICY = "sstfilter.LevelAware:10";

  /** Options with the policy: Workload's multi-level options. */
  static Options policyOptions(final Statistics stats, final SstFilter filter) {
    return ThreeWaysTest.multiLevelOptions(stats).setTableFormatConfig(
        new BlockBasedTableConfig().setFilterPolicy(filter));
  }

  /** A quarter of the keys: flushes and compactions, every key found. */
  static void fill(final RocksDB db) throws Exception {
    Workload.write(db, 0, KEYS / 4);
    Workload.settle(db);
    Workload.assertEveryKeyFound(db, KEYS / 4);
  }

  /** Opens the DB in dir with the default column family only, fills it, closes it. */
  static void openFillClose(final File dir, final DBOptions dbOptions,
      final List<ColumnFamilyDescriptor> families) throws Exception {
    final List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (RocksDB db = RocksDB.open(dbOptions, dir.getPath(), families, handles)) {
      fill(db);
      handles.forEach(ColumnFamilyHandle::close);
      db.closeE();
    }
  }

  /** Asserts that `listeners` holds one LevelAwareListener; closes it. */
  static void assertOneLevelAwareListener(final List<AbstractEventListener> listeners) {
    int found = 0;
    for (final AbstractEventListener listener : listeners) {
      if (listener instanceof LevelAwareListener) {
        ++found;
        listener.close();
      }
    }
    assertEquals("LevelAwareListeners in " + listeners, 1, found);
  }

  /** Makes a DB in dir with the policy and the listener added to its Options. */
  static void makeWatchedDb(final File dir) throws Exception {
    try (Statistics stats = new Statistics();
         SstFilter filter = new SstFilter(POLICY);
         Options options = policyOptions(stats, filter)) {
      assertSame(options, SstFilter.addLevelAwareListener(options));
      try (RocksDB db = RocksDB.open(options, dir.getPath())) {
        fill(db);
        db.closeE();
      }
    }
  }

  @Test
  public void addLevelAwareListenerToOptionsTurnsItOn() throws Exception {
    final File dir = tmp.newFolder("db");
    makeWatchedDb(dir);
    Workload.assertWatched(dir);
  }

  @Test
  public void addLevelAwareListenerToDBOptionsTurnsItOn() throws Exception {
    final File dir = tmp.newFolder("db");
    try (DBOptions dbOptions = new DBOptions().setCreateIfMissing(true);
         ColumnFamilyOptions cfOptions = Workload.multiLevelColumnFamilyOptions(POLICY)) {
      assertSame(dbOptions, SstFilter.addLevelAwareListener(dbOptions));
      openFillClose(dir, dbOptions,
          Arrays.asList(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions)));
    }
    Workload.assertWatched(dir);
  }

  @Test
  public void listenersInTheDBOptionsPropertiesTurnItOn() throws Exception {
    final File dir = tmp.newFolder("db");
    final Properties props = new Properties();
    props.setProperty("create_if_missing", "true");
    props.setProperty("listeners", "{" + LISTENER + "}");
    try (ConfigOptions config = new ConfigOptions();
         DBOptions dbOptions = DBOptions.getDBOptionsFromProps(config, props);
         ColumnFamilyOptions cfOptions = Workload.multiLevelColumnFamilyOptions(POLICY)) {
      assertNotNull("the properties parse", dbOptions);
      // RocksJava's listeners() would take the C++ listener for a Java one.
      assertOneLevelAwareListener(dbOptions.listeners());
      openFillClose(dir, dbOptions,
          Arrays.asList(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions)));
    }
    Workload.assertWatched(dir);
  }

  @Test
  public void optionsLoadedFromTheOptionsFileKeepIt() throws Exception {
    final File dir = tmp.newFolder("db");
    makeWatchedDb(dir);
    final List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    try (ConfigOptions config = new ConfigOptions(); DBOptions dbOptions = new DBOptions()) {
      OptionsUtil.loadLatestOptions(config, dir.getPath(), dbOptions, descriptors);
      try {
        assertOneLevelAwareListener(dbOptions.listeners());
        openFillClose(dir, dbOptions, descriptors);
      } finally {
        descriptors.forEach(d -> d.getOptions().close());
      }
    }
    // The LOG of this opening: RocksDB renamed the first one's LOG.old.*.
    Workload.assertWatched(dir);
  }

  @Test
  public void addingItTwiceKeepsOne() {
    try (Options options = new Options(); DBOptions dbOptions = new DBOptions()) {
      SstFilter.addLevelAwareListener(SstFilter.addLevelAwareListener(options));
      SstFilter.addLevelAwareListener(SstFilter.addLevelAwareListener(dbOptions));
      assertOneLevelAwareListener(options.listeners());
      assertOneLevelAwareListener(dbOptions.listeners());
    }
  }

  /** A Java listener that counts flushes. */
  static final class FlushCounter extends AbstractEventListener {
    final AtomicInteger flushes = new AtomicInteger();

    FlushCounter() {
      super(EnabledEventCallback.ON_FLUSH_COMPLETED);
    }

    @Override
    public void onFlushCompleted(final RocksDB db, final FlushJobInfo info) {
      flushes.incrementAndGet();
    }
  }

  @Test
  public void itGoesInTheListOfSetListenersBesideJavaListeners() throws Exception {
    final File dir = tmp.newFolder("db");
    try (Statistics stats = new Statistics();
         SstFilter filter = new SstFilter(POLICY);
         FlushCounter counter = new FlushCounter();
         LevelAwareListener listener = new LevelAwareListener();
         Options options = policyOptions(stats, filter)) {
      options.setListeners(Arrays.asList(counter, listener));
      // Already there: nothing added.
      SstFilter.addLevelAwareListener(options);
      final List<AbstractEventListener> listeners = options.listeners();
      assertEquals(listeners.toString(), 2, listeners.size());
      assertSame(counter, listeners.get(0));
      assertOneLevelAwareListener(listeners);
      try (RocksDB db = RocksDB.open(options, dir.getPath())) {
        fill(db);
        db.closeE();
      }
      assertTrue("the Java listener saw flushes", counter.flushes.get() > 0);
    }
    Workload.assertWatched(dir);
  }

  @Test
  public void setListenersAfterwardsDropsItAndTheLogSaysSo() throws Exception {
    final File dir = tmp.newFolder("db");
    try (Statistics stats = new Statistics();
         SstFilter filter = new SstFilter(POLICY);
         FlushCounter counter = new FlushCounter();
         Options options = policyOptions(stats, filter)) {
      SstFilter.addLevelAwareListener(options);
      // RocksJava's setListeners replaces the whole list.
      options.setListeners(Collections.singletonList(counter));
      try (RocksDB db = RocksDB.open(options, dir.getPath())) {
        fill(db);
        db.closeE();
      }
    }
    Workload.assertNotWatched(dir);
  }
}
