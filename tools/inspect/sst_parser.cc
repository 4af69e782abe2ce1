#include "sst_parser.h"

#include <algorithm>

#include "sstfilter/detail/endian.h"

namespace sstfilter::sst {
namespace {

using detail::LoadLittleEndian;

// Expanded keys of one block may not exceed this: prefix compression lets
// a small crafted block expand quadratically. The blocks read here (meta,
// properties, a filter partition index: one key per partition) are far
// smaller.
constexpr size_t kMaxExpandedKeyBytes = size_t{64} << 20;

const std::string kPropertiesBlock = "rocksdb.properties";
const std::string kLegacyPropertiesBlock = "rocksdb.stats";
// The index handle, format_version >= 6 (table/meta_blocks.cc).
const std::string kIndexBlock = "rocksdb.index";
const std::string kFullFilterPrefix = "fullfilter.";
const std::string kPartitionedFilterPrefix = "partitionedfilter.";
const std::string kBlockBasedFilterPrefix = "filter.";  // before RocksDB 7.0

bool GetVarint32(std::string_view* in, uint32_t* value) {
  uint64_t wide;
  if (!DecodeVarint64(in, &wide) || wide > UINT32_MAX) return false;
  *value = static_cast<uint32_t>(wide);
  return true;
}

// The entries of a restart-array block: everything before the array of
// restart offsets and its 4-byte count.
Status EntryRegion(std::string_view block, std::string_view* region) {
  if (block.size() < 4) {
    return Status::Corruption("block of " + std::to_string(block.size()) +
                              " bytes has no restart count");
  }
  const uint32_t packed =
      LoadLittleEndian<uint32_t>(block.data() + block.size() - 4);
  if (packed & 0x80000000u) {  // data_block_footer.cc: hash index flag
    return Status::NotSupported("block with a data-block hash index");
  }
  const uint64_t restart_bytes = 4 * (static_cast<uint64_t>(packed) + 1);
  if (restart_bytes > block.size()) {
    return Status::Corruption(std::to_string(packed) +
                              " restart points do not fit a block of " +
                              std::to_string(block.size()) + " bytes");
  }
  *region = block.substr(0, block.size() - restart_bytes);
  return Status::Ok();
}

// Decodes the next entry's key (prefix-compressed against *key) and leaves
// *region at its value. With `has_value_length`, also cuts the value.
Status NextEntry(std::string_view* region, bool has_value_length,
                 std::string* key, std::string_view* value, bool* shared_key,
                 size_t* expanded_bytes) {
  uint32_t shared = 0, non_shared = 0, value_length = 0;
  if (!GetVarint32(region, &shared) || !GetVarint32(region, &non_shared) ||
      (has_value_length && !GetVarint32(region, &value_length))) {
    return Status::Corruption("truncated block entry header");
  }
  if (shared > key->size()) {
    return Status::Corruption("block entry shares " + std::to_string(shared) +
                              " bytes of a " + std::to_string(key->size()) +
                              "-byte previous key");
  }
  if (non_shared > region->size() ||
      value_length > region->size() - non_shared) {
    return Status::Corruption("block entry runs past the end of its block");
  }
  *expanded_bytes += shared + non_shared;
  if (*expanded_bytes > kMaxExpandedKeyBytes) {
    return Status::Corruption("block keys expand past 64 MiB");
  }
  key->resize(shared);
  key->append(region->data(), non_shared);
  region->remove_prefix(non_shared);
  *value = region->substr(0, value_length);
  if (has_value_length) region->remove_prefix(value_length);
  *shared_key = shared != 0;
  return Status::Ok();
}

}  // namespace

const char* FilterLayoutName(FilterLayout layout) {
  switch (layout) {
    case FilterLayout::kNone:
      return "none";
    case FilterLayout::kFull:
      return "full";
    case FilterLayout::kPartitioned:
      return "partitioned";
  }
  return "unknown";
}

Status ParseBlock(std::string_view block, std::vector<BlockEntry>* entries) {
  std::string_view region;
  Status s = EntryRegion(block, &region);
  if (!s.ok()) return s;
  std::vector<BlockEntry> result;
  std::string key;
  size_t expanded = 0;
  while (!region.empty()) {
    std::string_view value;
    bool shared;
    s = NextEntry(&region, /*has_value_length=*/true, &key, &value, &shared,
                  &expanded);
    if (!s.ok()) return s;
    result.push_back({key, std::string(value)});
  }
  *entries = std::move(result);
  return Status::Ok();
}

Status ParseIndexBlock(std::string_view block, bool value_delta_encoded,
                       std::vector<IndexEntry>* entries) {
  std::string_view region;
  Status s = EntryRegion(block, &region);
  if (!s.ok()) return s;
  std::vector<IndexEntry> result;
  std::string key;
  size_t expanded = 0;
  while (!region.empty()) {
    std::string_view value;
    bool shared;
    s = NextEntry(&region, !value_delta_encoded, &key, &value, &shared,
                  &expanded);
    if (!s.ok()) return s;
    // Without a value length the value is read straight from the region.
    std::string_view* in = value_delta_encoded ? &region : &value;
    IndexEntry entry{key, {}};
    if (value_delta_encoded && shared) {
      // block.cc, IndexBlockIter::DecodeCurrentValue: a zigzag varint size
      // delta; the block follows the previous one and its trailer.
      uint64_t zigzag;
      if (result.empty() || !DecodeVarint64(in, &zigzag)) {
        return Status::Corruption("bad delta-encoded index value");
      }
      const int64_t delta =
          static_cast<int64_t>(zigzag >> 1) ^ -static_cast<int64_t>(zigzag & 1);
      const BlockHandle& previous = result.back().handle;
      uint64_t size = previous.size + static_cast<uint64_t>(delta);
      uint64_t offset;
      if ((delta < 0 ? size > previous.size : size < previous.size) ||
          __builtin_add_overflow(previous.offset, previous.size, &offset) ||
          __builtin_add_overflow(offset, kRocksdbBlockTrailerBytes, &offset)) {
        return Status::Corruption("delta-encoded index value out of range");
      }
      entry.handle = {offset, size};
    } else if (!DecodeBlockHandle(in, &entry.handle)) {
      return Status::Corruption("bad block handle in an index block");
    }
    result.push_back(std::move(entry));
  }
  *entries = std::move(result);
  return Status::Ok();
}

bool Table::IntProperty(const std::string& name, uint64_t* value) const {
  auto it = properties.find(name);
  if (it == properties.end()) return false;
  std::string_view in = it->second;
  return DecodeVarint64(&in, value) && in.empty();
}

std::string Table::StringProperty(const std::string& name) const {
  auto it = properties.find(name);
  return it == properties.end() ? std::string() : it->second;
}

namespace {

Status ReadMetaBlocks(const Source& file, Table* table) {
  std::string block;
  Status s = ReadBlock(file, table->footer, table->footer.metaindex, &block);
  std::vector<BlockEntry> entries;
  if (s.ok()) s = ParseBlock(block, &entries);
  if (!s.ok()) return Status::Corruption("metaindex: " + s.message());
  for (const BlockEntry& entry : entries) {
    std::string_view value = entry.value;
    BlockHandle handle;
    if (!DecodeBlockHandle(&value, &handle)) {
      return Status::Corruption("metaindex: bad handle for \"" + entry.key +
                                "\"");
    }
    table->meta_blocks[entry.key] = handle;
  }
  if (table->footer.format_version >= kFirstContextFormatVersion) {
    auto it = table->meta_blocks.find(kIndexBlock);
    if (it == table->meta_blocks.end()) {
      return Status::Corruption("metaindex: no \"" + kIndexBlock + "\" entry");
    }
    table->footer.index = it->second;
  }
  return Status::Ok();
}

Status ReadProperties(const Source& file, Table* table) {
  auto it = table->meta_blocks.find(kPropertiesBlock);
  if (it == table->meta_blocks.end()) {
    it = table->meta_blocks.find(kLegacyPropertiesBlock);
  }
  if (it == table->meta_blocks.end()) return Status::Ok();
  std::string block;
  Status s = ReadBlock(file, table->footer, it->second, &block);
  std::vector<BlockEntry> entries;
  if (s.ok()) s = ParseBlock(block, &entries);
  if (!s.ok()) return Status::Corruption("properties: " + s.message());
  for (BlockEntry& entry : entries) {
    table->properties[entry.key] = std::move(entry.value);
  }
  return Status::Ok();
}

Status LocateFilter(Table* table) {
  for (const auto& [name, handle] : table->meta_blocks) {
    const std::string_view key = name;
    FilterLayout layout = FilterLayout::kNone;
    size_t prefix = 0;
    if (key.substr(0, kFullFilterPrefix.size()) == kFullFilterPrefix) {
      layout = FilterLayout::kFull;
      prefix = kFullFilterPrefix.size();
    } else if (key.substr(0, kPartitionedFilterPrefix.size()) ==
               kPartitionedFilterPrefix) {
      layout = FilterLayout::kPartitioned;
      prefix = kPartitionedFilterPrefix.size();
    } else if (key.substr(0, kBlockBasedFilterPrefix.size()) ==
               kBlockBasedFilterPrefix) {
      return Status::NotSupported("a block-based filter (\"" + name +
                                  "\", the format before RocksDB 7.0)");
    } else {
      continue;
    }
    table->filter_layout = layout;
    table->filter_meta_name = name;
    table->compatibility_name = name.substr(prefix);
    table->filter_handle = handle;
    return Status::Ok();
  }
  return Status::Ok();
}

Status ReadPartitions(const Source& file, Table* table) {
  std::string block;
  Status s = ReadBlock(file, table->footer, table->filter_handle, &block);
  uint64_t flag = 0;
  const bool delta_encoded =
      table->IntProperty("rocksdb.index.value.is.delta.encoded", &flag) &&
      flag != 0;
  // Without the property, keys carry the 8-byte sequence/type suffix
  // (block_based_table_reader.cc: index_key_includes_seq).
  const bool user_keys =
      table->IntProperty("rocksdb.index.key.is.user.key", &flag) && flag != 0;
  std::vector<IndexEntry> entries;
  if (s.ok()) s = ParseIndexBlock(block, delta_encoded, &entries);
  if (!s.ok())
    return Status::Corruption("filter partition index: " + s.message());
  if (entries.empty()) {
    return Status::Corruption("filter partition index is empty");
  }
  for (IndexEntry& entry : entries) {
    if (!user_keys) {
      if (entry.key.size() < 8) {
        return Status::Corruption(
            "filter partition index key shorter than its 8-byte suffix");
      }
      entry.key.resize(entry.key.size() - 8);
    }
    table->partitions.push_back({std::move(entry.key), entry.handle});
  }
  return Status::Ok();
}

}  // namespace

Status ReadTable(const Source& file, Table* table) {
  Table result;
  Status s = ReadFooter(file, &result.footer);
  if (s.ok()) s = ReadMetaBlocks(file, &result);
  if (s.ok()) s = ReadProperties(file, &result);
  if (s.ok()) s = LocateFilter(&result);
  if (s.ok() && result.filter_layout == FilterLayout::kPartitioned) {
    s = ReadPartitions(file, &result);
  }
  if (!s.ok()) return s;
  *table = std::move(result);
  return Status::Ok();
}

size_t PartitionFor(const std::vector<FilterPartition>& partitions,
                    std::string_view user_key) {
  auto it = std::lower_bound(
      partitions.begin(), partitions.end(), user_key,
      [](const FilterPartition& partition, std::string_view key) {
        return std::string_view(partition.last_user_key) < key;
      });
  if (it == partitions.end()) return partitions.size() - 1;
  return static_cast<size_t>(it - partitions.begin());
}

}  // namespace sstfilter::sst
