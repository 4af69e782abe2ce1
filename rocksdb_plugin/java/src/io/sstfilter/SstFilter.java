package io.sstfilter;

import org.rocksdb.Filter;
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
