package io.sstfilter.example;

import io.sstfilter.SstFilter;
import java.util.Map;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;
import org.rocksdb.RocksDBException;

/**
 * A Kafka Streams {@code RocksDBConfigSetter} that turns on
 * {@code sstfilter.LevelAware:10} and its listener for every state store. It
 * has the interface's two methods but does not implement it, so that it
 * compiles without Kafka: in an application, add
 * {@code implements RocksDBConfigSetter} and register it:
 *
 * <pre>{@code
 * props.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, SstfilterConfigSetter.class);
 * }</pre>
 */
public class SstfilterConfigSetter {
  // One policy per store; the options keep it, this closes the Java handle.
  private SstFilter filter;

  public void setConfig(
      final String storeName, final Options options, final Map<String, Object> configs) {
    // Kafka Streams sets a BlockBasedTableConfig (with a Bloom filter) before
    // it calls the setter: change it and set it again.
    final BlockBasedTableConfig tableConfig = (BlockBasedTableConfig) options.tableFormatConfig();
    try {
      filter = new SstFilter("sstfilter.LevelAware:10");
    } catch (final RocksDBException e) {
      throw new IllegalStateException("store " + storeName + ": " + e.getMessage(), e);
    }
    tableConfig.setFilterPolicy(filter);
    options.setTableFormatConfig(tableConfig);
    // The listener LevelAware sizes its filters and learns by; Kafka Streams'
    // options hand it on to the store's DBOptions.
    SstFilter.addLevelAwareListener(options);
  }

  public void close(final String storeName, final Options options) {
    if (filter != null) {
      filter.close();
    }
  }
}
