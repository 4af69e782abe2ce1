#include "filter_block_decoder.h"

#include <algorithm>
#include <cmath>

#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/detail/endian.h"
#include "sstfilter/filter_view.h"
#include "sstfilter/format.h"

namespace sstfilter::sst {
namespace {

using detail::LoadLittleEndian;

// RocksDB's built-in filters end in 5 metadata bytes (filter_policy.cc,
// GetBuiltinFilterBitsReader): a signed byte that is the legacy Bloom
// filter's num_probes (> 0) or a marker for newer kinds (< 0), then 4 bytes
// whose meaning depends on it.
constexpr size_t kBuiltinMetadataBytes = 5;
constexpr int8_t kNewBloomMarker = -1;
constexpr int8_t kRibbonMarker = -2;
constexpr size_t kCacheLineBytes = 64;
// Standard128Ribbon: 128-bit coefficient rows ("blocks" of 128 slots) and
// at most 32 solution columns (filter_policy.cc, Standard128RibbonTypes).
constexpr uint64_t kRibbonSlotsPerBlock = 128;
constexpr size_t kRibbonSegmentBytes = 16;
constexpr uint64_t kRibbonMaxColumns = 32;

double FillRatio(std::string_view bits) {
  if (bits.empty()) return 0;
  uint64_t set = 0;
  size_t i = 0;
  for (; i + 8 <= bits.size(); i += 8) {
    set += __builtin_popcountll(LoadLittleEndian<uint64_t>(bits.data() + i));
  }
  for (; i < bits.size(); ++i) {
    set += __builtin_popcount(static_cast<uint8_t>(bits[i]));
  }
  return static_cast<double>(set) / (8.0 * static_cast<double>(bits.size()));
}

// The chance that `probes` random bits of a random line of `lines` are all
// set: the mean over lines of fill^probes. Per line rather than from the
// overall fill, because lines fill unevenly and fuller lines weigh more.
double LineHitChance(std::string_view lines, size_t line_bytes,
                     uint32_t probes) {
  const size_t num_lines = lines.size() / line_bytes;
  if (num_lines == 0) return 0;
  double sum = 0;
  for (size_t i = 0; i < num_lines; ++i) {
    sum +=
        std::pow(FillRatio(lines.substr(i * line_bytes, line_bytes)), probes);
  }
  return sum / static_cast<double>(num_lines);
}

// A Bloom filter whose keys each set `num_probes` bits in one line.
void SetOneLineBloomFigures(std::string_view lines, size_t line_bytes,
                            uint32_t num_probes, FilterBlockInfo* info) {
  info->occupancy_name = "fill";
  info->occupancy = FillRatio(lines);
  info->fpr = LineHitChance(lines, line_bytes, num_probes);
}

void DescribeView(const BlockedBloomView& view, FilterBlockInfo* info) {
  const BlockedBloomParams& params = view.params();
  info->params = {
      {"num_probes", params.num_probes},
      {"lines_per_key", params.lines_per_key},
      {"num_lines", static_cast<int64_t>(params.num_lines)},
  };
  info->keys = view.num_keys();
  info->occupancy_name = "fill";
  info->occupancy = view.fill_ratio();
  // A key's probes go to two independent lines (blocked_bloom.h).
  const std::string_view lines(
      reinterpret_cast<const char*>(view.lines()),
      params.num_lines * BlockedBloomParams::kLineBytes);
  info->fpr = LineHitChance(lines, BlockedBloomParams::kLineBytes,
                            params.ProbesInLine(0)) *
              LineHitChance(lines, BlockedBloomParams::kLineBytes,
                            params.ProbesInLine(1));
}

void DescribeView(const CuckooView& view, FilterBlockInfo* info) {
  info->params = {
      {"fingerprint_bits", view.fingerprint_bits()},
      {"slots_per_bucket", CuckooLimits::kSlotsPerBucket},
      {"num_buckets", static_cast<int64_t>(view.num_buckets())},
      {"num_tables", view.num_tables()},
  };
  info->keys = view.num_keys();
  info->occupancy_name = "load";
  info->occupancy = view.load();
  info->fpr = view.EstimatedFpr();
}

Status DescribeSstfilter(std::string_view bytes, FilterBlockInfo* info) {
  FilterView view;
  Status s = FilterView::Parse(bytes, &view);
  if (!s.ok()) return s;
  info->family = "sstfilter";
  info->kind = FilterKindName(view.kind());
  info->version = view.format_version();
  info->bytes = bytes.size();
  info->keys_known = true;
  view.Visit([info](const auto& kind_view) { DescribeView(kind_view, info); });
  return Status::Ok();
}

// Marker -1: "new Bloom", of which sub-implementation 0 with 64-byte blocks
// is FastLocalBloom (Putze, Sanders, Singler's cache-local Bloom filter).
Status DescribeNewBloom(std::string_view data, std::string_view metadata,
                        FilterBlockInfo* info) {
  const uint8_t sub_impl = static_cast<uint8_t>(metadata[1]);
  const uint8_t block_and_probes = static_cast<uint8_t>(metadata[2]);
  const uint32_t log2_block_bytes = ((block_and_probes >> 5) & 7) + 6;
  const uint32_t num_probes = block_and_probes & 31;
  const uint16_t reserved = LoadLittleEndian<uint16_t>(metadata.data() + 3);
  if (sub_impl != 0 || log2_block_bytes != 6 || num_probes < 1 ||
      num_probes > 30 || reserved != 0) {
    return Status::NotSupported(
        "RocksDB new-Bloom variant (sub-implementation " +
        std::to_string(sub_impl) + ", " +
        std::to_string(1u << log2_block_bytes) + "-byte blocks, " +
        std::to_string(num_probes) + " probes) is unknown to this tool");
  }
  if (data.size() % kCacheLineBytes != 0) {
    return Status::Corruption("FastLocalBloom data of " +
                              std::to_string(data.size()) +
                              " bytes is not whole 64-byte blocks");
  }
  info->kind = "FastLocalBloom";
  info->params = {
      {"marker", kNewBloomMarker},
      {"num_probes", num_probes},
      {"block_bytes", kCacheLineBytes},
      {"num_blocks", static_cast<int64_t>(data.size() / kCacheLineBytes)},
  };
  SetOneLineBloomFigures(data, kCacheLineBytes, num_probes, info);
  return Status::Ok();
}

// Marker -2: Standard128Ribbon (Dillinger and Walzer, "Ribbon filter:
// practically smaller than Bloom and Xor", 2021).
Status DescribeRibbon(std::string_view data, std::string_view metadata,
                      FilterBlockInfo* info) {
  const uint8_t seed = static_cast<uint8_t>(metadata[1]);
  const uint64_t num_blocks = static_cast<uint8_t>(metadata[2]) |
                              static_cast<uint8_t>(metadata[3]) << 8 |
                              static_cast<uint8_t>(metadata[4]) << 16;
  if (num_blocks < 2) {
    return Status::NotSupported("Ribbon filter with " +
                                std::to_string(num_blocks) +
                                " blocks (RocksDB reads it as always-match)");
  }
  if (data.size() % kRibbonSegmentBytes != 0) {
    return Status::Corruption("Ribbon solution of " +
                              std::to_string(data.size()) +
                              " bytes is not whole 16-byte segments");
  }
  // The solution has num_segments 128-bit columns spread over the blocks:
  // the first `lower_blocks` blocks get one column fewer than the rest
  // (ribbon_impl.h, SerializableInterleavedSolution::InternalConfigure).
  const uint64_t num_segments = data.size() / kRibbonSegmentBytes;
  uint64_t columns = (num_segments + num_blocks - 1) / num_blocks;
  uint64_t lower_blocks = columns * num_blocks - num_segments;
  if (columns > kRibbonMaxColumns) {
    columns = kRibbonMaxColumns;
    lower_blocks = 0;
  }
  const double num_starts = static_cast<double>(
      num_blocks * kRibbonSlotsPerBlock - kRibbonSlotsPerBlock + 1);
  const double lower_portion =
      std::min(1.0, static_cast<double>(lower_blocks * kRibbonSlotsPerBlock) /
                        num_starts);
  info->kind = "Ribbon128";
  info->params = {
      {"marker", kRibbonMarker},
      {"seed", seed},
      {"num_blocks", static_cast<int64_t>(num_blocks)},
      {"num_slots", static_cast<int64_t>(num_blocks * kRibbonSlotsPerBlock)},
      {"upper_columns", static_cast<int64_t>(columns)},
  };
  info->fpr = lower_portion * std::pow(0.5, static_cast<double>(columns) - 1) +
              (1 - lower_portion) * std::pow(0.5, static_cast<double>(columns));
  return Status::Ok();
}

// A positive first metadata byte: the legacy (pre-5.x "full filter") Bloom
// filter, num_probes then a 32-bit line count; lines are normally 64 bytes
// but another power of two is read as the writing machine's line size.
Status DescribeLegacyBloom(std::string_view data, std::string_view metadata,
                           FilterBlockInfo* info) {
  const uint32_t num_probes = static_cast<uint8_t>(metadata[0]);
  const uint64_t num_lines = LoadLittleEndian<uint32_t>(metadata.data() + 1);
  uint64_t line_bytes = 1;
  while (num_lines != 0 && num_lines * line_bytes < data.size()) {
    line_bytes <<= 1;
  }
  if (num_lines == 0 || num_lines * line_bytes != data.size()) {
    return Status::Corruption(
        "legacy Bloom filter: " + std::to_string(data.size()) +
        " bytes are not " + std::to_string(num_lines) + " power-of-two lines");
  }
  info->kind = "LegacyBloom";
  info->params = {
      {"num_probes", num_probes},
      {"line_bytes", static_cast<int64_t>(line_bytes)},
      {"num_lines", static_cast<int64_t>(num_lines)},
  };
  SetOneLineBloomFigures(data, line_bytes, num_probes, info);
  return Status::Ok();
}

Status DescribeBuiltin(std::string_view bytes, FilterBlockInfo* info) {
  info->family = "rocksdb";
  info->bytes = bytes.size();
  if (bytes.size() <= kBuiltinMetadataBytes) {
    // RocksDB reads a block this short as "no keys added".
    info->kind = "Empty";
    info->keys_known = true;
    return Status::Ok();
  }
  const std::string_view data =
      bytes.substr(0, bytes.size() - kBuiltinMetadataBytes);
  const std::string_view metadata = bytes.substr(data.size());
  const int8_t marker = static_cast<int8_t>(metadata[0]);
  if (marker == 0) {
    info->kind = "AlwaysTrue";
    info->params = {{"num_probes", 0}};
    info->fpr = 1;
    return Status::Ok();
  }
  if (marker == kNewBloomMarker) return DescribeNewBloom(data, metadata, info);
  if (marker == kRibbonMarker) return DescribeRibbon(data, metadata, info);
  if (marker < 0) {
    return Status::NotSupported("RocksDB filter marker " +
                                std::to_string(marker) +
                                " is unknown to this tool");
  }
  return DescribeLegacyBloom(data, metadata, info);
}

}  // namespace

Status DescribeFilterBlock(std::string_view compatibility_name,
                           std::string_view bytes, FilterBlockInfo* info) {
  FilterBlockInfo result;
  Status s;
  if (compatibility_name == "sstfilter") {
    s = DescribeSstfilter(bytes, &result);
  } else if (compatibility_name == kBuiltinCompatibilityName) {
    s = DescribeBuiltin(bytes, &result);
  } else {
    s = Status::NotSupported("filters of policy family \"" +
                             std::string(compatibility_name) +
                             "\" are unknown to this tool");
  }
  if (!s.ok()) return s;
  *info = std::move(result);
  return Status::Ok();
}

Spread SpreadOf(std::vector<double> values) {
  Spread spread;
  if (values.empty()) return spread;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  spread.min = values.front();
  spread.max = values.back();
  spread.median =
      n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  return spread;
}

}  // namespace sstfilter::sst
