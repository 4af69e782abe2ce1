// libFuzzer target for the inspector's SST reader
// (tools/inspect/sst_parser.h, tools/inspect/filter_block_decoder.h).
// Every input is read four ways, none of which may crash or read out of bounds
// (run under ASan/UBSan):
//   1. as a whole SST file, then its filter blocks;
//   2. as a restart-array block, with and without value lengths;
//   3. as a filter block of each family name: a block is ours under one
//      name if and only if it is ours under the other, and a block read
//      under the old name "sstfilter" (ours, or RocksDB's kinds) is
//      described alike under the name we share with RocksDB;
//   4. as the filter bytes of a well-formed SST this file writes around
//      them (an independent writer): that table must read back, with its
//      filter bytes unchanged.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "filter_block_decoder.h"
#include "sst_parser.h"

namespace {

using namespace sstfilter::sst;

constexpr std::string_view kFamilies[] = {
    sstfilter::kSstfilterCompatibilityName,
    sstfilter::kRocksdbFamilyCompatibilityName};

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

void CheckDescription(std::string_view family, std::string_view bytes) {
  FilterBlockInfo info;
  if (!DescribeFilterBlock(family, bytes, &info).ok()) return;
  Check(info.bytes == bytes.size());
  Check(info.occupancy >= 0 && info.occupancy <= 1);
  Check(info.fpr >= 0 && info.fpr <= 1);
}

void CheckFamiliesAgree(std::string_view bytes) {
  FilterBlockInfo old_name, shared;
  const bool old_ok =
      DescribeFilterBlock(sstfilter::kSstfilterCompatibilityName, bytes,
                          &old_name)
          .ok();
  const bool shared_ok =
      DescribeFilterBlock(sstfilter::kRocksdbFamilyCompatibilityName, bytes,
                          &shared)
          .ok();
  Check((old_ok && old_name.family == "sstfilter") ==
        (shared_ok && shared.family == "sstfilter"));
  if (!old_ok) return;
  Check(shared_ok && shared.family == old_name.family &&
        shared.kind == old_name.kind && shared.version == old_name.version &&
        shared.keys == old_name.keys && shared.fpr == old_name.fpr);
}

void ReadWholeFile(std::string_view bytes) {
  StringSource source(bytes);
  Table table;
  if (!ReadTable(source, &table).ok()) return;
  std::vector<BlockHandle> handles = {table.filter_handle};
  for (const FilterPartition& partition : table.partitions) {
    handles.push_back(partition.handle);
  }
  std::vector<double> sizes;
  for (const BlockHandle& handle : handles) {
    std::string block;
    if (!ReadBlock(source, table.footer, handle, &block).ok()) continue;
    Check(block.size() == handle.size);
    CheckDescription(table.compatibility_name, block);
    sizes.push_back(static_cast<double>(block.size()));
  }
  const Spread spread = SpreadOf(sizes);
  Check(spread.min <= spread.median && spread.median <= spread.max);
  if (!table.partitions.empty()) {
    Check(PartitionFor(table.partitions, bytes.substr(0, 8)) <
          table.partitions.size());
  }
}

// ---- a minimal table writer (format_version 5, no checksums) ----

std::string Varint(uint64_t value) {
  std::string out;
  for (; value >= 0x80; value >>= 7) {
    out.push_back(static_cast<char>(value | 0x80));
  }
  out.push_back(static_cast<char>(value));
  return out;
}

std::string Fixed(uint64_t value, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i)
    out.push_back(static_cast<char>(value >> (8 * i)));
  return out;
}

std::string Handle(const BlockHandle& handle) {
  return Varint(handle.offset) + Varint(handle.size);
}

// Entries with no shared key prefix and one restart point.
std::string Block(
    const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string out;
  for (const auto& [key, value] : entries) {
    out += Varint(0) + Varint(key.size()) + Varint(value.size()) + key + value;
  }
  return out + Fixed(0, 4) + Fixed(1, 4);
}

// Appends `block` with a trailer: no compression, checksum not checked.
BlockHandle Append(const std::string& block, std::string* file) {
  const BlockHandle handle{file->size(), block.size()};
  *file += block + std::string(5, '\0');
  return handle;
}

void WriteAndReadBack(std::string_view bytes) {
  if (bytes.empty()) return;
  const std::string family(kFamilies[bytes[0] & 1]);
  const bool partitioned = bytes[0] & 2;
  const std::string filter(bytes.substr(1));
  std::string file;
  std::vector<std::string> pieces = {filter};
  std::string meta_name = "fullfilter." + family;
  BlockHandle filter_handle;
  if (partitioned) {
    pieces = {filter.substr(0, filter.size() / 2),
              filter.substr(filter.size() / 2)};
    std::vector<std::pair<std::string, std::string>> index;
    for (size_t i = 0; i < pieces.size(); ++i) {
      index.emplace_back(std::string(1, static_cast<char>('a' + i)),
                         Handle(Append(pieces[i], &file)));
    }
    filter_handle = Append(Block(index), &file);
    meta_name = "partitionedfilter." + family;
  } else {
    filter_handle = Append(filter, &file);
  }
  const BlockHandle properties =
      Append(Block({{"rocksdb.index.key.is.user.key", Varint(1)},
                    {"rocksdb.index.value.is.delta.encoded", Varint(0)}}),
             &file);
  const BlockHandle metaindex =
      Append(Block({{meta_name, Handle(filter_handle)},
                    {"rocksdb.properties", Handle(properties)}}),
             &file);
  std::string handles = Handle(metaindex) + Handle({0, 0});
  handles.resize(40, '\0');
  file += std::string(1, '\0') + handles + Fixed(5, 4) +
          Fixed(0x88e241b785f4cff7ull, 8);

  StringSource source(file);
  Table table;
  Check(ReadTable(source, &table).ok());
  Check(table.compatibility_name == family);
  std::vector<BlockHandle> read_handles = {table.filter_handle};
  if (partitioned) {
    Check(table.partitions.size() == 2);
    read_handles = {table.partitions[0].handle, table.partitions[1].handle};
  }
  for (size_t i = 0; i < pieces.size(); ++i) {
    std::string block;
    Check(ReadBlock(source, table.footer, read_handles[i], &block).ok());
    Check(block == pieces[i]);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  ReadWholeFile(bytes);
  std::vector<BlockEntry> entries;
  ParseBlock(bytes, &entries);
  std::vector<IndexEntry> index;
  ParseIndexBlock(bytes, true, &index);
  ParseIndexBlock(bytes, false, &index);
  for (std::string_view family : kFamilies) CheckDescription(family, bytes);
  CheckFamiliesAgree(bytes);
  WriteAndReadBack(bytes);
  return 0;
}
