package io.sstfilter;

import org.rocksdb.AbstractEventListener;
import org.rocksdb.RocksDB;

/**
 * {@code sstfilter.LevelAwareListener}, the C++ listener that shows
 * {@code sstfilter.LevelAware} its DB, as an element of RocksJava's listener
 * lists. {@link SstFilter#addLevelAwareListener(org.rocksdb.Options)} adds it
 * in one line; to set listeners of your own as well, put it in the list:
 *
 * <pre>{@code
 * options.setListeners(Arrays.asList(myListener, new LevelAwareListener()));
 * }</pre>
 *
 * <p>{@code listeners()} of options that hold the C++ listener, however it got
 * there (this class, {@code listeners={sstfilter.LevelAwareListener}} in
 * properties, an OPTIONS file), gives it back as a new LevelAwareListener
 * each call, which owns a handle of its own: close it when done with the
 * list.
 *
 * <p>The listener works in C++: the {@code on...} callbacks of this class are
 * never called. Like a {@code Filter}, it may be closed once set on the
 * options, which keep the C++ listener.
 */
public final class LevelAwareListener extends AbstractEventListener {
  static {
    RocksDB.loadLibrary();
  }

  /** A new sstfilter.LevelAwareListener. */
  public LevelAwareListener() {}

  /**
   * The handle, of the kind RocksJava's listeners have: a heap-allocated
   * {@code std::shared_ptr<EventListener>}, here on sstfilter's C++ listener.
   * The callbacks packed in the argument are for RocksJava's JNI callback,
   * which this is not.
   */
  @Override
  protected long initializeNative(final long... unusedCallbacks) {
    return newListener();
  }

  /**
   * The handle, for the JNI side (sstfilter_jni.cc), which puts the C++
   * listener of an options' list in it.
   */
  @SuppressWarnings("unused")
  private long handle() {
    return nativeHandle_;
  }

  @Override
  public String toString() {
    return "LevelAwareListener(sstfilter.LevelAwareListener)";
  }

  private static native long newListener();
}
