#include "sst_footer.h"

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

// Footer sizes and offsets: see the layout in sst_footer.h.
constexpr size_t kHandlesBytes = 40;
constexpr size_t kLegacyFooterBytes = kHandlesBytes + 8;
constexpr size_t kFooterBytes = 1 + kHandlesBytes + 4 + 8;
constexpr size_t kFormatVersionAt = 1 + kHandlesBytes;
constexpr uint32_t kLatestFormatVersion = 7;
// format_version >= 6, fields within the footer.
constexpr std::string_view kExtendedMagic("\x3e\x00\x7a\x00", 4);
constexpr size_t kFooterChecksumAt = 5;
constexpr size_t kBaseContextAt = 9;
constexpr size_t kMetaindexSizeAt = 13;
constexpr size_t kCheckedReservedAt = 33;

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

// The checksum of `n` >= 1 bytes, the last one a block's compression type,
// as ComputeBuiltinChecksum in table/format.cc. The footer is checksummed
// the same way, its last byte being part of the magic.
uint32_t Checksum(ChecksumType type, const char* data, size_t n) {
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

// What format_version >= 6 adds to the checksum stored at `offset`, learned
// from ChecksumModifierForContext in RocksDB 11.8's table/format.h: the
// file's random base keeps blocks of other files from matching, and the
// offset (both halves, so 4 GiB apart still differ) those moved within it.
// 0, no context, when the base is 0 (format_version < 6).
uint32_t ContextModifier(uint32_t base_context_checksum, uint64_t offset) {
  if (base_context_checksum == 0) return 0;
  return base_context_checksum ^
         (static_cast<uint32_t>(offset) + static_cast<uint32_t>(offset >> 32));
}

std::string HandleText(const BlockHandle& handle) {
  return "(offset " + std::to_string(handle.offset) + ", size " +
         std::to_string(handle.size) + ")";
}

std::string MismatchText(uint32_t stored, uint32_t computed) {
  char text[48];
  std::snprintf(text, sizeof(text), " (stored 0x%08x, computed 0x%08x)", stored,
                computed);
  return text;
}

Status ParseChecksumType(char byte, ChecksumType* type) {
  const uint8_t value = static_cast<uint8_t>(byte);
  if (value > static_cast<uint8_t>(ChecksumType::kXxh3)) {
    return Status::Corruption("unknown checksum type " + std::to_string(value) +
                              " in the footer");
  }
  *type = static_cast<ChecksumType>(value);
  return Status::Ok();
}

// The two handles of a footer before format_version 6.
Status ParseHandles(std::string_view handles, Footer* footer) {
  if (!DecodeBlockHandle(&handles, &footer->metaindex) ||
      !DecodeBlockHandle(&handles, &footer->index)) {
    return Status::Corruption("bad block handle in the footer");
  }
  return Status::Ok();
}

// The rest of a format_version >= 6 footer, `bytes` (kFooterBytes) at
// `footer_offset`; footer->checksum_type is already set.
Status ParseContextFooter(std::string_view bytes, uint64_t footer_offset,
                          Footer* footer) {
  if (bytes.substr(1, kExtendedMagic.size()) != kExtendedMagic) {
    return Status::Corruption("format_version " +
                              std::to_string(footer->format_version) +
                              " footer lacks its extended magic");
  }
  footer->base_context_checksum =
      LoadLittleEndian<uint32_t>(bytes.data() + kBaseContextAt);
  if (footer->base_context_checksum == 0) {
    return Status::Corruption("footer has a zero base context checksum");
  }
  std::array<char, kFooterBytes> zeroed;
  std::copy(bytes.begin(), bytes.end(), zeroed.begin());
  std::fill_n(zeroed.begin() + kFooterChecksumAt, 4, '\0');
  const uint32_t stored =
      LoadLittleEndian<uint32_t>(bytes.data() + kFooterChecksumAt);
  const uint32_t computed =
      Checksum(footer->checksum_type, zeroed.data(), zeroed.size()) +
      ContextModifier(footer->base_context_checksum, footer_offset);
  if (stored != computed) {
    return Status::Corruption("footer checksum mismatch" +
                              MismatchText(stored, computed));
  }
  // Only now, with the footer known intact, do its fields mean anything.
  if (LoadLittleEndian<uint64_t>(bytes.data() + kCheckedReservedAt) != 0) {
    return Status::NotSupported(
        "the footer's reserved bytes are set: a feature newer than "
        "format_version " +
        std::to_string(footer->format_version));
  }
  const uint32_t metaindex_size =
      LoadLittleEndian<uint32_t>(bytes.data() + kMetaindexSizeAt);
  if (footer_offset < kRocksdbBlockTrailerBytes ||
      metaindex_size > footer_offset - kRocksdbBlockTrailerBytes) {
    return Status::Corruption("a metaindex of " +
                              std::to_string(metaindex_size) +
                              " bytes does not fit before the footer");
  }
  footer->metaindex = {
      footer_offset - kRocksdbBlockTrailerBytes - metaindex_size,
      metaindex_size};
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

bool DecodeVarint64(std::string_view* in, uint64_t* value) {
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

bool DecodeBlockHandle(std::string_view* in, BlockHandle* handle) {
  return DecodeVarint64(in, &handle->offset) &&
         DecodeVarint64(in, &handle->size);
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

Status ReadFooter(const Source& file, Footer* footer) {
  const std::string too_short =
      std::to_string(file.size()) + " bytes is too short for an SST file";
  if (file.size() < kLegacyFooterBytes) return Status::Corruption(too_short);
  const size_t tail_bytes =
      static_cast<size_t>(std::min<uint64_t>(file.size(), kFooterBytes));
  std::string tail;
  Status s = file.Read(file.size() - tail_bytes, tail_bytes, &tail);
  if (!s.ok()) return s;
  const std::string_view bytes = tail;
  const uint64_t magic =
      LoadLittleEndian<uint64_t>(bytes.data() + bytes.size() - 8);
  Footer result;
  if (magic == kLegacyBlockBasedMagic) {
    result.format_version = 0;
    result.checksum_type = ChecksumType::kCrc32c;
    s = ParseHandles(
        bytes.substr(bytes.size() - kLegacyFooterBytes, kHandlesBytes),
        &result);
  } else if (magic == kBlockBasedMagic) {
    if (bytes.size() < kFooterBytes) return Status::Corruption(too_short);
    result.format_version =
        LoadLittleEndian<uint32_t>(bytes.data() + kFormatVersionAt);
    if (result.format_version == 0) {
      return Status::Corruption("format_version 0 with a newer footer");
    }
    if (result.format_version > kLatestFormatVersion) {
      return Status::NotSupported("format_version " +
                                  std::to_string(result.format_version) +
                                  " is newer than this reader knows (up to " +
                                  std::to_string(kLatestFormatVersion) + ")");
    }
    s = ParseChecksumType(bytes[0], &result.checksum_type);
    if (s.ok()) {
      s = result.format_version >= kFirstContextFormatVersion
              ? ParseContextFooter(bytes, file.size() - kFooterBytes, &result)
              : ParseHandles(bytes.substr(1, kHandlesBytes), &result);
    }
  } else if (magic == kPlainMagic || magic == kLegacyPlainMagic ||
             magic == kCuckooMagic) {
    return Status::NotSupported(
        "a plain or cuckoo table, not a block-based table: it has no filter "
        "blocks");
  } else {
    return Status::Corruption(
        "not an SST file (no table magic number at its end)");
  }
  if (!s.ok()) return s;
  *footer = result;
  return Status::Ok();
}

Status ReadBlock(const Source& file, const Footer& footer,
                 const BlockHandle& handle, std::string* contents) {
  const uint64_t file_size = file.size();
  if (handle.size > file_size ||
      file_size - handle.size < kRocksdbBlockTrailerBytes ||
      handle.offset > file_size - handle.size - kRocksdbBlockTrailerBytes) {
    return Status::Corruption("block " + HandleText(handle) +
                              " is outside the " + std::to_string(file_size) +
                              "-byte file");
  }
  const size_t size = static_cast<size_t>(handle.size);
  std::string block;
  Status s = file.Read(handle.offset, size + kRocksdbBlockTrailerBytes, &block);
  if (!s.ok()) return s;
  // With no checksum type, format_version >= 6 still stores the context
  // alone, and RocksDB checks it (reader_common.cc, VerifyBlockChecksum).
  const uint32_t context =
      ContextModifier(footer.base_context_checksum, handle.offset);
  if (footer.checksum_type != ChecksumType::kNone ||
      footer.base_context_checksum != 0) {
    // Compared without the context, as RocksDB reports it.
    const uint32_t stored =
        LoadLittleEndian<uint32_t>(block.data() + size + 1) - context;
    const uint32_t computed =
        Checksum(footer.checksum_type, block.data(), size + 1);
    if (stored != computed) {
      return Status::Corruption(
          std::string(footer.checksum_type == ChecksumType::kNone
                          ? "context"
                          : ChecksumTypeName(footer.checksum_type)) +
          " checksum mismatch in block " + HandleText(handle) +
          MismatchText(stored, computed));
    }
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

}  // namespace sstfilter::sst
