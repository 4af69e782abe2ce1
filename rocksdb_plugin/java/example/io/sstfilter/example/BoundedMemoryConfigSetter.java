package io.sstfilter.example;

import io.sstfilter.SstFilter;
import java.util.Map;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.IndexType;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBufferManager;

/**
 * A Kafka Streams {@code RocksDBConfigSetter} in the bounded-memory style of
 * Kafka Streams' memory management guide: one LRU block cache for every state
 * store of the application, holding their data, index and filter blocks, and
 * one WriteBufferManager that charges their memtables to the same cache. The
 * filter is {@code sstfilter.LevelAware:10:size_for_cache=true}: its
 * filters' average bits/key is chosen for the cache they share with the data
 * and index blocks (from 2 to twice the 10 asked), and the LOG of each store says
 * what it chose and why.
 *
 * <p>Like {@link SstfilterConfigSetter} it has the interface's two methods but
 * does not implement it, so that it compiles without Kafka: in an
 * application, add {@code implements RocksDBConfigSetter} and register it:
 *
 * <pre>{@code
 * props.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, BoundedMemoryConfigSetter.class);
 * }</pre>
 */
public class BoundedMemoryConfigSetter {
  static {
    // For the static cache below: LRUCache, unlike Options and SstFilter,
    // does not load the native library.
    RocksDB.loadLibrary();
  }

  // The sizes, for all the stores of the application together (Kafka
  // Streams makes one setter per store, but the cache and the write buffer
  // manager are static): choose TOTAL_OFF_HEAP_MEMORY for what RocksDB may
  // use. The memtables and the high-priority pool are parts of it.
  /** The block cache: data, index and filter blocks, and the memtables. */
  public static final long TOTAL_OFF_HEAP_MEMORY = 256L << 20;
  /** The part of the cache the memtables are charged to. */
  public static final long TOTAL_MEMTABLE_MEMORY = 64L << 20;
  /** The part of the cache kept for index and filter blocks. */
  public static final double INDEX_FILTER_BLOCK_RATIO = 0.1;
  /** Each store's memtables: N_MEMTABLES of MEMTABLE_SIZE at most. */
  public static final long MEMTABLE_SIZE = 16L << 20;
  public static final int N_MEMTABLES = 3;

  // Shared by every store: never closed by one of them (see close).
  private static final Cache cache =
      new LRUCache(TOTAL_OFF_HEAP_MEMORY, -1, false, INDEX_FILTER_BLOCK_RATIO);
  private static final WriteBufferManager writeBufferManager =
      new WriteBufferManager(TOTAL_MEMTABLE_MEMORY, cache);

  // One policy per store; the options keep it, close closes the Java handle.
  private SstFilter filter;

  public void setConfig(
      final String storeName, final Options options, final Map<String, Object> configs) {
    // Kafka Streams sets a BlockBasedTableConfig (with a Bloom filter and a
    // cache of the store's own) before it calls the setter: change it and
    // set it again.
    final BlockBasedTableConfig tableConfig = (BlockBasedTableConfig) options.tableFormatConfig();
    try {
      filter = new SstFilter("sstfilter.LevelAware:10:size_for_cache=true");
    } catch (final RocksDBException e) {
      throw new IllegalStateException("store " + storeName + ": " + e.getMessage(), e);
    }
    // These three bound RocksDB's memory by TOTAL_OFF_HEAP_MEMORY.
    tableConfig.setBlockCache(cache);
    tableConfig.setCacheIndexAndFilterBlocks(true);
    options.setWriteBufferManager(writeBufferManager);
    // Index and filter blocks in the high-priority pool, the top level of
    // each partitioned index and filter pinned, and the rest of them in
    // partitions that the cache evicts one by one.
    tableConfig.setCacheIndexAndFilterBlocksWithHighPriority(true);
    tableConfig.setPinTopLevelIndexAndFilter(true);
    tableConfig.setIndexType(IndexType.kTwoLevelIndexSearch);
    tableConfig.setPartitionFilters(true);
    tableConfig.setFilterPolicy(filter);
    options.setMaxWriteBufferNumber(N_MEMTABLES);
    options.setWriteBufferSize(MEMTABLE_SIZE);
    options.setTableFormatConfig(tableConfig);
    // The listener LevelAware sizes its filters and learns by; Kafka
    // Streams' options hand it on to the store's DBOptions.
    SstFilter.addLevelAwareListener(options);
  }

  public void close(final String storeName, final Options options) {
    // Not the cache nor the write buffer manager: every store shares them,
    // and the ones still open go on using them.
    if (filter != null) {
      filter.close();
    }
  }
}
