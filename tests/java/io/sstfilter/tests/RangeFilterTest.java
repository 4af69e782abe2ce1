package io.sstfilter.tests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import io.sstfilter.RangeTableFilter;
import io.sstfilter.SstFilter;
import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rocksdb.AbstractTableFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.ConfigOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.Statistics;
import org.rocksdb.TableProperties;
import org.rocksdb.TickerType;

/**
 * The range filter from Java: turned on by a column family's properties, used by
 * readOptions.setTableFilter(SstFilter.rangeTableFilter(lower, upper)). Scans find what scans
 * without it find, empty ranges read far fewer data blocks, and a Java table filter still
 * works.
 */
public class RangeFilterTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static final int KEYS = 20000;

  static byte[] key(final long v) {
    return ByteBuffer.allocate(8).putLong(v).array();  // big-endian: bytewise order
  }

  static long dataBlocks(final Statistics stats) {
    return stats.getTickerCount(TickerType.BLOCK_CACHE_DATA_HIT)
        + stats.getTickerCount(TickerType.BLOCK_CACHE_DATA_MISS);
  }

  /** The entries of [lo, hi), through `filter` if not null. */
  static List<String> scan(final RocksDB db, final byte[] lo, final byte[] hi,
      final AbstractTableFilter filter) {
    final List<String> out = new ArrayList<>();
    try (Slice lower = new Slice(lo); Slice upper = new Slice(hi);
         ReadOptions ro = new ReadOptions()) {
      ro.setIterateLowerBound(lower).setIterateUpperBound(upper);
      if (filter != null) {
        ro.setTableFilter(filter);
      }
      try (RocksIterator it = db.newIterator(ro)) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          out.add(Arrays.toString(it.key()) + "=" + new String(it.value(), StandardCharsets.UTF_8));
        }
      }
    }
    return out;
  }

  /** Counts the tables RocksJava's own table-filter path shows Java. */
  static final class CountingTableFilter extends AbstractTableFilter {
    int calls = 0;

    @Override
    public boolean filter(final TableProperties tableProperties) {
      ++calls;
      return true;
    }
  }

  @Test
  public void rangeTableFilterSkipsFilesAndChangesNoScan() throws Exception {
    final File dir = tmp.newFolder("db");
    final Properties props = new Properties();
    props.setProperty("table_properties_collectors", "{id=sstfilter.RangeFilter;bits_per_key=12}");
    props.setProperty("disable_auto_compactions", "true");
    final List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (ConfigOptions config = new ConfigOptions();
         ColumnFamilyOptions cf = ColumnFamilyOptions.getColumnFamilyOptionsFromProps(config, props);
         Statistics stats = new Statistics();
         DBOptions dbOptions = new DBOptions().setCreateIfMissing(true).setStatistics(stats);
         FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
      assertNotNull("the properties parse", cf);
      try (RocksDB db = RocksDB.open(dbOptions, dir.getPath(),
               Arrays.asList(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cf)),
               handles)) {
        // Ten L0 files, each over the whole key range: every scan meets all ten.
        for (int file = 0; file < 10; ++file) {
          for (long i = file; i < KEYS; i += 10) {
            db.put(key(i * 1000), ("v" + i).getBytes(StandardCharsets.UTF_8));
          }
          db.flush(flush);
        }
        // What Java sees of the property: its bytes up to the first zero byte (the header's
        // "SFRF", version 1, prefix_bytes 0). So the filter is read in C++.
        final Map<String, TableProperties> tables = db.getPropertiesOfAllTables();
        assertEquals(10, tables.size());
        for (final TableProperties table : tables.values()) {
          assertEquals("SFRF\u0001", table.getUserCollectedProperties().get("sstfilter.range"));
        }

        final Random rng = new Random(1);
        long filteredEmpty = 0;
        long plainEmpty = 0;
        for (int round = 0; round < 400; ++round) {
          final long start = rng.nextInt(KEYS) * 1000L + (round % 2 == 0 ? 0 : 100);
          final byte[] lo = key(start);
          final byte[] hi = key(start + 16);
          final long before = dataBlocks(stats);
          final List<String> filtered;
          // Closed at once: the ReadOptions keeps a copy of the bounds.
          try (RangeTableFilter filter = SstFilter.rangeTableFilter(lo, hi)) {
            filtered = scan(db, lo, hi, filter);
          }
          final long middle = dataBlocks(stats);
          final List<String> plain = scan(db, lo, hi, null);
          assertEquals("range at " + start, plain, filtered);
          assertEquals(round % 2 == 0 ? 1 : 0, plain.size());
          if (round % 2 == 1) {
            filteredEmpty += middle - before;
            plainEmpty += dataBlocks(stats) - middle;
          }
        }
        assertTrue("data blocks of empty ranges: " + filteredEmpty + " with, " + plainEmpty
                + " without", filteredEmpty * 5 < plainEmpty);

        // A Java table filter is RocksJava's, as before.
        try (CountingTableFilter counting = new CountingTableFilter()) {
          assertEquals(1, scan(db, key(5000), key(5001), counting).size());
          assertTrue("tables shown to Java: " + counting.calls, counting.calls > 0);
        }
      } finally {
        handles.forEach(ColumnFamilyHandle::close);
      }
    }
  }
}
