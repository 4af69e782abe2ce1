import io.sstfilter.SstFilter;
import java.nio.charset.StandardCharsets;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;

/**
 * A program outside the repository (outside_consumer.sh copies it away and
 * builds it against the jar alone): a DB with sstfilter.LevelAware:10, whose
 * filter turns absent keys away. Exits 1 if it does not.
 */
public class UseSstFilter {
  public static void main(final String[] args) throws Exception {
    try (SstFilter filter = new SstFilter("sstfilter.LevelAware:10");
         Statistics stats = new Statistics();
         Options options = new Options().setCreateIfMissing(true).setStatistics(stats)
             .setTableFormatConfig(new BlockBasedTableConfig().setFilterPolicy(filter));
         RocksDB db = RocksDB.open(options, args[0]);
         FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
      for (int i = 0; i < 10000; i += 2) {
        db.put(key(i), key(i));
      }
      db.flush(flush);
      int wrong = 0;
      for (int i = 0; i < 10000; ++i) {
        final byte[] value = db.get(key(i));
        wrong += (value != null) == (i % 2 == 0) ? 0 : 1;
      }
      final long useful = stats.getTickerCount(TickerType.BLOOM_FILTER_USEFUL);
      System.out.println(filter.id() + ": " + wrong + " wrong answers, bloom.filter.useful "
          + useful + " of 5000 absent keys");
      System.exit(wrong == 0 && useful > 4500 ? 0 : 1);
    }
  }

  static byte[] key(final int i) {
    return String.format("key%06d", i).getBytes(StandardCharsets.US_ASCII);
  }
}
