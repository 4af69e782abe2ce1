package io.sstfilter;

import org.rocksdb.AbstractTableFilter;
import org.rocksdb.RocksDB;
import org.rocksdb.TableProperties;

/**
 * A table filter for one range scan [lower, upper): given to
 * {@link org.rocksdb.ReadOptions#setTableFilter}, it skips every SST whose range filter
 * (sstfilter.RangeFilter) says the range holds none of its keys. Make it with
 * {@link SstFilter#rangeTableFilter}; set the same bounds on the ReadOptions
 * ({@code setIterateLowerBound}, {@code setIterateUpperBound}): they keep the iterator
 * inside the range the filter answered for.
 *
 * <p>It is answered in C++, not here: RocksJava hands a Java table filter each SST file's
 * properties as Strings made by JNI's NewStringUTF, which ends a binary value at its first
 * zero byte, so the filter's bytes never reach Java whole. sstfilter's library binds
 * ReadOptions.setTableFilter so that, given this object, the ReadOptions gets sstfilter's C++
 * table filter over a copy of the bounds; any other AbstractTableFilter goes to RocksJava as
 * before. The ReadOptions keeps working after this object is closed.
 */
public final class RangeTableFilter extends AbstractTableFilter {
  static {
    RocksDB.loadLibrary();
  }

  RangeTableFilter(final byte[] lower, final byte[] upper) {
    super();
    setBounds(nativeHandle_, lower, upper);
  }

  @Override
  protected long initializeNative(final long... unused) {
    return newHandle();
  }

  /** Never called: RocksDB asks the C++ filter. Says "read the table", the safe answer. */
  @Override
  public boolean filter(final TableProperties tableProperties) {
    return true;
  }

  @Override
  protected void disposeInternal() {
    deleteHandle(nativeHandle_);
  }

  private static native long newHandle();
  private static native void setBounds(long handle, byte[] lower, byte[] upper);
  private static native void deleteHandle(long handle);
}
