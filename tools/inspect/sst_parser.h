// sst_parser.h: a small, bounds-checked reader of RocksDB's block-based
// table files, just enough to find their filter blocks.
//
// It reads the footer, the metaindex block, the table properties and the
// index of a partitioned filter, and verifies every block's trailer. It
// never reads data or index blocks, and it uses no RocksDB code: RocksDB's
// internal readers depend on NDEBUG-sensitive class layouts. The format is
// described by RocksDB's table/format.{h,cc} (footer, block handle,
// trailer: see sst_footer.h), table/block_based/block_builder.cc
// (restart-array blocks) and table/meta_blocks.cc (properties);
// format_version 0 to 7 are understood. Version 7 changed only how the
// compression_name property is spelled, which is kept here as raw bytes.
//
// Every function returns a Status: malformed bytes give Corruption, valid
// features this reader does not handle give NotSupported. No input makes
// them read out of bounds.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sst_footer.h"
#include "sstfilter/status.h"

namespace sstfilter::sst {

// One entry of a restart-array block, its key expanded.
struct BlockEntry {
  std::string key;
  std::string value;
};

// Parses every entry of a block whose entries carry a value length (meta,
// properties and format_version < 4 index blocks).
Status ParseBlock(std::string_view block, std::vector<BlockEntry>* entries);

// One entry of an index block: a separator key and the handle it names.
struct IndexEntry {
  std::string key;
  BlockHandle handle;
};

// Parses an index block. With `value_delta_encoded` (the table property
// rocksdb.index.value.is.delta.encoded, format_version >= 4) entries have
// no value length, and an entry whose key shares a prefix with the previous
// one stores only its size delta; it follows the previous block.
Status ParseIndexBlock(std::string_view block, bool value_delta_encoded,
                       std::vector<IndexEntry>* entries);

// How an SST holds its filter.
enum class FilterLayout {
  kNone,         // no filter block
  kFull,         // one "fullfilter.<name>" block
  kPartitioned,  // "partitionedfilter.<name>": an index over partitions
};
const char* FilterLayoutName(FilterLayout layout);

// One filter partition: the separator that ends its key range (a user key:
// any sequence-number suffix is removed) and where its bytes lie.
struct FilterPartition {
  std::string last_user_key;
  BlockHandle handle;
};

// What a table says about itself and where its filter is.
struct Table {
  Footer footer;
  std::map<std::string, BlockHandle> meta_blocks;  // the metaindex
  // Raw property values by name ("rocksdb.num.entries", ...); integers are
  // varint64 strings, read them with IntProperty.
  std::map<std::string, std::string> properties;

  FilterLayout filter_layout = FilterLayout::kNone;
  // e.g. "fullfilter.rocksdb.BuiltinBloomFilter", "partitionedfilter.sstfilter"
  std::string filter_meta_name;
  std::string compatibility_name;  // e.g. "rocksdb.BuiltinBloomFilter"
  BlockHandle filter_handle;       // the filter, or the partition index
  std::vector<FilterPartition> partitions;  // kPartitioned only

  // The integer property `name`; false if absent or malformed.
  bool IntProperty(const std::string& name, uint64_t* value) const;
  // The string property `name`, or "" if absent.
  std::string StringProperty(const std::string& name) const;
};

// Reads the footer, metaindex and properties, locates the filter and, for a
// partitioned filter, reads its partition index. From format_version 6 the
// footer's index handle comes from the metaindex. A table without a
// properties block or without a filter is valid (filter_layout kNone).
Status ReadTable(const Source& file, Table* table);

// The partition RocksDB consults for `user_key` under the bytewise
// comparator: the first whose separator is >= the key, else the last one
// (as PartitionedFilterBlockReader::GetFilterPartitionHandle). `partitions`
// must not be empty.
size_t PartitionFor(const std::vector<FilterPartition>& partitions,
                    std::string_view user_key);

}  // namespace sstfilter::sst
