#include "sst_parser.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "sstfilter/detail/endian.h"

namespace sstfilter::sst {
namespace {

using detail::LoadLittleEndian;

// Magic numbers at the very end of a table file (RocksDB 7.8,
// block_based_table_builder.cc, plain_table_builder.cc,
// cuckoo_table_builder.cc). The legacy block-based magic marks
// format_version 0, whose footer has no checksum type or version.
constexpr uint64_t kBlockBasedMagic = 0x88e241b785f4cff7ull;
constexpr uint64_t kLegacyBlockBasedMagic = 0xdb4775248b80fb57ull;
constexpr uint64_t kPlainMagic = 0x8242229663bf9564ull;
constexpr uint64_t kLegacyPlainMagic = 0x4f3418eb7a8f13b8ull;
constexpr uint64_t kCuckooMagic = 0x926789d0c5f17873ull;

// Footer sizes (table/format.h): two handles padded to 2 * 20 bytes, then
// the magic; format_version >= 1 adds a leading checksum-type byte and a
// 4-byte version before the magic.
constexpr size_t kHandlesBytes = 40;
constexpr size_t kLegacyFooterBytes = kHandlesBytes + 8;
constexpr size_t kFooterBytes = 1 + kHandlesBytes + 4 + 8;
constexpr uint32_t kLatestFormatVersion = 5;

// Block trailer: 1 byte compression type, 4 bytes checksum.
constexpr size_t kTrailerBytes = 5;

// Expanded keys of one block may not exceed this: prefix compression lets
// a small crafted block expand quadratically. The blocks read here (meta,
// properties, a filter partition index: one key per partition) are far
// smaller.
constexpr size_t kMaxExpandedKeyBytes = size_t{64} << 20;

const std::string kPropertiesBlock = "rocksdb.properties";
const std::string kLegacyPropertiesBlock = "rocksdb.stats";
const std::string kFullFilterPrefix = "fullfilter.";
const std::string kPartitionedFilterPrefix = "partitionedfilter.";
const std::string kBlockBasedFilterPrefix = "filter.";  // before RocksDB 7.0

// CRC-32C (Castagnoli polynomial, reflected 0x82F63B78), byte-wise from a
// table built at compile time.
constexpr std::array<uint32_t, 256> MakeCrc32cTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc >> 1) ^ ((crc & 1) ? 0x82F63B78u : 0);
    }
    table[i] = crc;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kCrc32cTable = MakeCrc32cTable();

uint32_t Crc32c(const char* data, size_t n) {
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    crc =
        kCrc32cTable[(crc ^ static_cast<uint8_t>(data[i])) & 0xFF] ^ (crc >> 8);
  }
  return crc ^ 0xFFFFFFFFu;
}

// RocksDB stores a rotated and offset CRC so that a CRC of data that itself
// holds CRCs stays well distributed (util/crc32c.h, Mask).
uint32_t MaskCrc(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

// The checksum of a block with its compression-type byte (`n` bytes
// including that last byte), as ComputeBuiltinChecksum in table/format.cc.
uint32_t BlockChecksum(ChecksumType type, const char* data, size_t n) {
  switch (type) {
    case ChecksumType::kNone:
      return 0;
    case ChecksumType::kCrc32c:
      return MaskCrc(Crc32c(data, n));
    case ChecksumType::kXxHash:
      return XXH32(data, n, 0);
    case ChecksumType::kXxHash64:
      return static_cast<uint32_t>(XXH64(data, n, 0));
    case ChecksumType::kXxh3: {
      // XXH3 of all but the last byte, which is folded in by a multiply
      // (ModifyChecksumForLastByte) to avoid the streaming API.
      const uint32_t head = static_cast<uint32_t>(XXH3_64bits(data, n - 1));
      return head ^ static_cast<uint8_t>(data[n - 1]) * 0x6b9083d9u;
    }
  }
  return 0;
}

bool GetVarint64(std::string_view* in, uint64_t* value) {
  uint64_t result = 0;
  for (unsigned shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

bool GetVarint32(std::string_view* in, uint32_t* value) {
  uint64_t wide;
  if (!GetVarint64(in, &wide) || wide > UINT32_MAX) return false;
  *value = static_cast<uint32_t>(wide);
  return true;
}

bool GetHandle(std::string_view* in, BlockHandle* handle) {
  return GetVarint64(in, &handle->offset) && GetVarint64(in, &handle->size);
}

std::string HandleText(const BlockHandle& handle) {
  return "(offset " + std::to_string(handle.offset) + ", size " +
         std::to_string(handle.size) + ")";
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

// The file behind OpenFileSource: pread on a descriptor.
class FileSource : public Source {
 public:
  FileSource(int fd, uint64_t size, std::string path)
      : fd_(fd), size_(size), path_(std::move(path)) {}
  ~FileSource() override { ::close(fd_); }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  uint64_t size() const override { return size_; }

  Status Read(uint64_t offset, size_t n, std::string* out) const override {
    if (offset > size_ || n > size_ - offset) {
      return Status::Corruption("read of " + std::to_string(n) +
                                " bytes at offset " + std::to_string(offset) +
                                " is past the end of the " +
                                std::to_string(size_) + "-byte file");
    }
    out->resize(n);
    size_t done = 0;
    while (done < n) {
      const ssize_t got = ::pread(fd_, out->data() + done, n - done,
                                  static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        return Status::Corruption(
            "cannot read " + path_ + ": " +
            (got < 0 ? std::strerror(errno) : "file shrank while reading"));
      }
      done += static_cast<size_t>(got);
    }
    return Status::Ok();
  }

 private:
  int fd_;
  uint64_t size_;
  std::string path_;
};

}  // namespace

Status StringSource::Read(uint64_t offset, size_t n, std::string* out) const {
  if (offset > bytes_.size() || n > bytes_.size() - offset) {
    return Status::Corruption("read of " + std::to_string(n) +
                              " bytes at offset " + std::to_string(offset) +
                              " is past the end of the " +
                              std::to_string(bytes_.size()) + "-byte file");
  }
  out->assign(bytes_.data() + offset, n);
  return Status::Ok();
}

Status OpenFileSource(const std::string& path, std::unique_ptr<Source>* out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return Status::NotFound("cannot open: " +
                            std::string(std::strerror(errno)));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const std::string reason = std::strerror(errno);
    ::close(fd);
    return Status::NotFound("cannot stat: " + reason);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::NotFound(S_ISDIR(st.st_mode) ? "is a directory"
                                                : "not a regular file");
  }
  *out =
      std::make_unique<FileSource>(fd, static_cast<uint64_t>(st.st_size), path);
  return Status::Ok();
}

const char* ChecksumTypeName(ChecksumType type) {
  switch (type) {
    case ChecksumType::kNone:
      return "none";
    case ChecksumType::kCrc32c:
      return "CRC32c";
    case ChecksumType::kXxHash:
      return "xxHash";
    case ChecksumType::kXxHash64:
      return "xxHash64";
    case ChecksumType::kXxh3:
      return "XXH3";
  }
  return "unknown";
}

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

Status ReadFooter(const Source& file, Footer* footer) {
  if (file.size() < kLegacyFooterBytes) {
    return Status::Corruption(std::to_string(file.size()) +
                              " bytes is too short for an SST file");
  }
  const size_t tail_bytes =
      static_cast<size_t>(std::min<uint64_t>(file.size(), kFooterBytes));
  std::string tail;
  Status s = file.Read(file.size() - tail_bytes, tail_bytes, &tail);
  if (!s.ok()) return s;
  const uint64_t magic =
      LoadLittleEndian<uint64_t>(tail.data() + tail.size() - 8);
  std::string_view handles;
  Footer result;
  if (magic == kLegacyBlockBasedMagic) {
    result.format_version = 0;
    result.checksum_type = ChecksumType::kCrc32c;
    handles = std::string_view(tail).substr(tail.size() - kLegacyFooterBytes,
                                            kHandlesBytes);
  } else if (magic == kBlockBasedMagic) {
    if (tail.size() < kFooterBytes) {
      return Status::Corruption(std::to_string(file.size()) +
                                " bytes is too short for an SST file");
    }
    result.format_version = LoadLittleEndian<uint32_t>(tail.data() + 41);
    if (result.format_version == 0) {
      return Status::Corruption("format_version 0 with a newer footer");
    }
    if (result.format_version > kLatestFormatVersion) {
      return Status::NotSupported("format_version " +
                                  std::to_string(result.format_version) +
                                  " is newer than this reader knows (up to " +
                                  std::to_string(kLatestFormatVersion) + ")");
    }
    const uint8_t checksum = static_cast<uint8_t>(tail[0]);
    if (checksum > static_cast<uint8_t>(ChecksumType::kXxh3)) {
      return Status::Corruption("unknown checksum type " +
                                std::to_string(checksum) + " in the footer");
    }
    result.checksum_type = static_cast<ChecksumType>(checksum);
    handles = std::string_view(tail).substr(1, kHandlesBytes);
  } else if (magic == kPlainMagic || magic == kLegacyPlainMagic ||
             magic == kCuckooMagic) {
    return Status::NotSupported(
        "a plain or cuckoo table, not a block-based table: it has no filter "
        "blocks");
  } else {
    return Status::Corruption(
        "not an SST file (no table magic number at its "
        "end)");
  }
  if (!GetHandle(&handles, &result.metaindex) ||
      !GetHandle(&handles, &result.index)) {
    return Status::Corruption("bad block handle in the footer");
  }
  *footer = result;
  return Status::Ok();
}

Status ReadBlock(const Source& file, const Footer& footer,
                 const BlockHandle& handle, std::string* contents) {
  const uint64_t file_size = file.size();
  if (handle.size > file_size || file_size - handle.size < kTrailerBytes ||
      handle.offset > file_size - handle.size - kTrailerBytes) {
    return Status::Corruption("block " + HandleText(handle) +
                              " is outside the " + std::to_string(file_size) +
                              "-byte file");
  }
  const size_t size = static_cast<size_t>(handle.size);
  std::string block;
  Status s = file.Read(handle.offset, size + kTrailerBytes, &block);
  if (!s.ok()) return s;
  const uint32_t stored = LoadLittleEndian<uint32_t>(block.data() + size + 1);
  const uint32_t computed =
      BlockChecksum(footer.checksum_type, block.data(), size + 1);
  if (footer.checksum_type != ChecksumType::kNone && stored != computed) {
    char detail[64];
    std::snprintf(detail, sizeof(detail), " (stored 0x%08x, computed 0x%08x)",
                  stored, computed);
    return Status::Corruption(
        std::string(ChecksumTypeName(footer.checksum_type)) +
        " checksum mismatch in block " + HandleText(handle) + detail);
  }
  const uint8_t compression = static_cast<uint8_t>(block[size]);
  if (compression != 0) {
    return Status::NotSupported("block " + HandleText(handle) +
                                " is compressed (type " +
                                std::to_string(compression) + ")");
  }
  block.resize(size);
  *contents = std::move(block);
  return Status::Ok();
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
      if (result.empty() || !GetVarint64(in, &zigzag)) {
        return Status::Corruption("bad delta-encoded index value");
      }
      const int64_t delta =
          static_cast<int64_t>(zigzag >> 1) ^ -static_cast<int64_t>(zigzag & 1);
      const BlockHandle& previous = result.back().handle;
      uint64_t size = previous.size + static_cast<uint64_t>(delta);
      uint64_t offset;
      if ((delta < 0 ? size > previous.size : size < previous.size) ||
          __builtin_add_overflow(previous.offset, previous.size, &offset) ||
          __builtin_add_overflow(offset, kTrailerBytes, &offset)) {
        return Status::Corruption("delta-encoded index value out of range");
      }
      entry.handle = {offset, size};
    } else if (!GetHandle(in, &entry.handle)) {
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
  return GetVarint64(&in, value) && in.empty();
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
    if (!GetHandle(&value, &handle)) {
      return Status::Corruption("metaindex: bad handle for \"" + entry.key +
                                "\"");
    }
    table->meta_blocks[entry.key] = handle;
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
