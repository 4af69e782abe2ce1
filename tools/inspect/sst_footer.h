// sst_footer.h: the framing of a RocksDB block-based table file, the part
// of the reader in sst_parser.h (which includes this header) that knows
// where blocks are and whether their bytes are intact: the file's bytes
// (Source), the footer at its end and the checksummed trailer of each block.
//
// Footer layouts, learned from RocksDB 11.8's table/format.cc
// (FooterBuilder::Build, Footer::DecodeFrom); integers little-endian:
//
//   format_version 0, 48 bytes:
//     0   metaindex and index handles (varints), zero-padded to 40 bytes
//     40  legacy magic (8)
//   format_version 1 to 5, 53 bytes:
//     0   checksum type (1)
//     1   metaindex and index handles, zero-padded to 40 bytes
//     41  format_version (4)
//     45  magic (8)
//   format_version 6 and up, 53 bytes; the index handle moves to the
//   metaindex entry "rocksdb.index":
//     0   checksum type (1)
//     1   extended magic 3e 00 7a 00 (4): read as handles, both of size 0
//     5   footer checksum (4): of these 53 bytes with this field zeroed,
//         plus the context modifier of the footer's offset
//     9   base context checksum (4), not 0
//     13  metaindex size (4): the metaindex and its trailer end where the
//         footer begins
//     17  reserved (16), ignored
//     33  reserved (8), 0 unless a future feature is in use
//     41  format_version (4)
//     45  magic (8)
//
// Block trailer (5 bytes after each block): the compression type (1), then
// a checksum (4) of the block and that type byte. From format_version 6 the
// stored value has the context modifier of the block's offset added, so a
// block read at another offset, or from another file, fails its check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sstfilter/format.h"
#include "sstfilter/status.h"

namespace sstfilter::sst {

// A file's bytes, read at any offset.
class Source {
 public:
  virtual ~Source() = default;
  virtual uint64_t size() const = 0;
  // Replaces *out with the `n` bytes at `offset`; Corruption if they are
  // not all inside the file.
  virtual Status Read(uint64_t offset, size_t n, std::string* out) const = 0;
};

// A file held in memory (tests, fuzzing).
class StringSource : public Source {
 public:
  explicit StringSource(std::string_view bytes) : bytes_(bytes) {}
  uint64_t size() const override { return bytes_.size(); }
  Status Read(uint64_t offset, size_t n, std::string* out) const override;

 private:
  std::string_view bytes_;
};

// Opens `path` for reading; NotFound (with the system's reason) on failure.
Status OpenFileSource(const std::string& path, std::unique_ptr<Source>* out);

// Where a block lies: its offset and its size without the trailer.
struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;
};

// The first format_version with context checksums, a checksummed footer
// and the index handle in the metaindex (RocksDB 8.6).
constexpr uint32_t kFirstContextFormatVersion = 6;

// Consume a varint64, or a handle (two varints), from the front of *in;
// false if it is truncated or too long.
bool DecodeVarint64(std::string_view* in, uint64_t* value);
bool DecodeBlockHandle(std::string_view* in, BlockHandle* handle);

// RocksDB's ChecksumType values (include/rocksdb/table.h).
enum class ChecksumType : uint8_t {
  kNone = 0,
  kCrc32c = 1,
  kXxHash = 2,
  kXxHash64 = 3,
  kXxh3 = 4,
};
const char* ChecksumTypeName(ChecksumType type);

struct Footer {
  uint32_t format_version = 0;  // 0: the legacy footer
  ChecksumType checksum_type = ChecksumType::kCrc32c;
  // format_version >= 6: mixed with each block's offset into its checksum
  // (never 0); 0 before.
  uint32_t base_context_checksum = 0;
  BlockHandle metaindex;
  // Before format_version 6 from the footer; from 6 on ReadFooter leaves it
  // empty and ReadTable takes it from the metaindex.
  BlockHandle index;
};

// Reads and, from format_version 6, verifies the footer at the end of the
// file. NotSupported for plain and cuckoo tables and for format_version
// above 7, Corruption if the file does not end in a valid footer.
Status ReadFooter(const Source& file, Footer* footer);

// Reads the block at `handle` into *contents after checking its trailer:
// the checksum of `footer.checksum_type` (with its context from
// format_version 6) and no compression (RocksDB never compresses filter
// and meta blocks).
Status ReadBlock(const Source& file, const Footer& footer,
                 const BlockHandle& handle, std::string* contents);

}  // namespace sstfilter::sst
