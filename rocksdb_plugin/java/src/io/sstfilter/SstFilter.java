package io.sstfilter;

import java.util.ArrayList;
import java.util.List;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.DBOptions;
import org.rocksdb.DBOptionsInterface;
import org.rocksdb.Filter;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * A RocksDB filter policy made from its id, for
 * {@link org.rocksdb.BlockBasedTableConfig#setFilterPolicy}:
 *
 * <pre>{@code
 * tableConfig.setFilterPolicy(new SstFilter("sstfilter.LevelAware:10"));
 * }</pre>
 *
 * <p>The id is any that RocksDB's options strings take for a filter policy:
 * sstfilter's ({@code sstfilter.BlockedBloom:10}, {@code sstfilter.Cuckoo:12},
 * {@code sstfilter.Hybrid:10}, {@code sstfilter.LevelAware:10}, with options as
 * in {@code id=sstfilter.Cuckoo:12;fingerprint_bits=16}) or RocksDB's own
 * ({@code ribbonfilter:10}). The policy is sstfilter's C++ one, compiled into
 * this jar's native library.
 *
 * <p>Like RocksJava's {@code BloomFilter}, an SstFilter may be closed once the
 * table config that uses it has been set on the options: the options keep the
 * policy.
 *
 * <p>{@code OptionsUtil.loadLatestOptions} and {@code loadOptionsFromFile} give
 * a DB's sstfilter policy back as an SstFilter in the loaded
 * {@code BlockBasedTableConfig}, so setting that config again keeps it.
 *
 * <p>{@code sstfilter.LevelAware} needs its listener, which
 * {@link #addLevelAwareListener(Options)} turns on:
 *
 * <pre>{@code
 * SstFilter.addLevelAwareListener(options);
 * }</pre>
 */
public class SstFilter extends Filter {
  static {
    RocksDB.loadLibrary();
  }

  /**
   * Makes the policy {@code id} names.
   *
   * @param id a filter policy id, e.g. {@code "sstfilter.LevelAware:10"}
   * @throws RocksDBException naming the id if it names no policy or is
   *     malformed
   */
  public SstFilter(final String id) throws RocksDBException {
    super(newFilter(checkedId(id)));
  }

  /** Takes over a native handle (a new shared_ptr): for the JNI side. */
  SstFilter(final long nativeHandle) {
    super(nativeHandle);
  }

  /**
   * The policy's canonical id, as RocksDB writes it to the OPTIONS file,
   * e.g. {@code "sstfilter.LevelAware:10:10"} for {@code "sstfilter.LevelAware:10"}.
   *
   * @return the id
   * @throws IllegalStateException if this SstFilter has been closed
   */
  public String id() {
    if (!isOwningHandle()) {
      throw new IllegalStateException("sstfilter: this SstFilter has been closed");
    }
    return getId(getNativeHandle());
  }

  /**
   * Turns on {@code sstfilter.LevelAwareListener}, the listener that shows
   * {@code sstfilter.LevelAware} its DB (the tree it sizes each table's filter
   * for, and the lookups it learns from): adds a {@link LevelAwareListener} to
   * {@code options.listeners()} unless one is there. The DB writes it to its
   * OPTIONS file, so options loaded from that file have it too.
   *
   * <p>Call it after any {@code setListeners}, which replaces the whole list,
   * this listener included; or put a {@code new LevelAwareListener()} in that
   * list. It goes through {@code listeners()} and {@code setListeners}, so
   * it also reaches the DBOptions behind an {@code Options} that hands them
   * on, as the one Kafka Streams gives a {@code RocksDBConfigSetter} does.
   *
   * @param options the options a DB will be opened with
   * @return {@code options}
   */
  public static Options addLevelAwareListener(final Options options) {
    return addListener(options);
  }

  /**
   * {@link #addLevelAwareListener(Options)} for DBOptions.
   *
   * @param options the options a DB will be opened with
   * @return {@code options}
   */
  public static DBOptions addLevelAwareListener(final DBOptions options) {
    return addListener(options);
  }

  private static <T extends DBOptionsInterface<T>> T addListener(final T options) {
    final List<AbstractEventListener> listeners = new ArrayList<>(options.listeners());
    boolean present = false;
    for (final AbstractEventListener listener : listeners) {
      present |= listener instanceof LevelAwareListener;
    }
    if (!present) {
      listeners.add(new LevelAwareListener());
      options.setListeners(listeners);
    }
    // The options hold their own handles: the Java objects that stand for
    // the C++ listener here (from listeners(), or the new one) may go.
    for (final AbstractEventListener listener : listeners) {
      if (listener instanceof LevelAwareListener) {
        listener.close();
      }
    }
    return options;
  }

  /**
   * A table filter for one range scan [lower, upper) in the column family's comparator order
   * (RocksDB's bytewise one or its reverse): {@code readOptions.setTableFilter(
   * SstFilter.rangeTableFilter(lower, upper))}, with the same bounds set as the ReadOptions'
   * iterate bounds. SSTs whose range filter (sstfilter.RangeFilter, turned on with {@code
   * table_properties_collectors={id=sstfilter.RangeFilter}}) says the range holds none of their
   * keys are skipped; the others, and SSTs without one, are read as usual.
   */
  public static RangeTableFilter rangeTableFilter(final byte[] lower, final byte[] upper) {
    if (lower == null || upper == null) {
      throw new IllegalArgumentException("sstfilter: a range needs both bounds");
    }
    return new RangeTableFilter(lower, upper);
  }

  @Override
  public String toString() {
    return "SstFilter(" + id() + ")";
  }

  private static String checkedId(final String id) throws RocksDBException {
    if (id == null) {
      throw new RocksDBException("sstfilter: the filter policy id is null");
    }
    return id;
  }

  private static native long newFilter(final String id) throws RocksDBException;
  private static native String getId(final long handle);
}
