#include "filter_block_decoder.h"

#include <algorithm>
#include <cmath>

#include "sstfilter/block_classifier.h"
#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/detail/endian.h"
#include "sstfilter/filter_view.h"
#include "sstfilter/format.h"

namespace sstfilter::sst {
namespace {

// Standard128Ribbon: 128-bit coefficient rows ("blocks" of 128 slots) and
// at most 32 solution columns (filter_policy.cc, Standard128RibbonTypes).
constexpr uint64_t kRibbonSlotsPerBlock = 128;
constexpr uint64_t kRibbonMaxColumns = 32;

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
  info->occupancy = view.FillRatio();
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
      {"num_bucket_arrays", view.num_bucket_arrays()},
  };
  info->keys = view.num_keys();
  info->occupancy_name = "load";
  info->occupancy = view.Load();
  info->fpr = view.EstimatedFpr();
}

void DescribeSstfilter(const FilterView& view, size_t bytes,
                       FilterBlockInfo* info) {
  info->family = "sstfilter";
  info->kind = FilterKindName(view.kind());
  info->version = view.format_version();
  info->bytes = bytes;
  info->keys_known = true;
  view.Visit([info](const auto& kind_view) { DescribeView(kind_view, info); });
}

// The legacy Bloom steps its probes by a rotation of the hash, modulo the
// line's bits, so a step of 0 (1 in 512) probes one bit and short cycles
// probe few: an FPR above the fill's (rocksdb#4120). What that adds, by
// RocksDB's own fit (util/bloom_impl.h, LegacyLocalityBloomImpl::
// EstimatedFpRate), at the bits/key the fill implies: k probes a key fill
// 1 - e^(-k / bits_per_key) of the bits.
double LegacyProbeFlawRate(double fill, uint32_t num_probes) {
  const double bits_per_key =
      fill < 1 ? -static_cast<double>(num_probes) / std::log1p(-fill) : 0;
  return 0.1 / (bits_per_key * 0.75 + 22);
}

// Standard128Ribbon (Dillinger and Walzer, "Ribbon filter: practically
// smaller than Bloom and Xor", 2021): its FPR from how many solution
// columns a query's block has.
void DescribeRibbon(const BuiltinFormat& format, FilterBlockInfo* info) {
  // The solution has num_segments 128-bit columns spread over the blocks:
  // the first `lower_blocks` blocks get one column fewer than the rest
  // (ribbon_impl.h, SerializableInterleavedSolution::InternalConfigure).
  uint64_t columns =
      (format.num_segments + format.num_blocks - 1) / format.num_blocks;
  uint64_t lower_blocks = columns * format.num_blocks - format.num_segments;
  if (columns > kRibbonMaxColumns) {
    columns = kRibbonMaxColumns;
    lower_blocks = 0;
  }
  const double num_starts = static_cast<double>(
      format.num_blocks * kRibbonSlotsPerBlock - kRibbonSlotsPerBlock + 1);
  const double lower_portion =
      std::min(1.0, static_cast<double>(lower_blocks * kRibbonSlotsPerBlock) /
                        num_starts);
  info->params = {
      {"marker", -2},
      {"seed", format.seed},
      {"num_blocks", static_cast<int64_t>(format.num_blocks)},
      {"num_slots",
       static_cast<int64_t>(format.num_blocks * kRibbonSlotsPerBlock)},
      {"upper_columns", static_cast<int64_t>(columns)},
  };
  info->fpr = lower_portion * std::pow(0.5, static_cast<double>(columns) - 1) +
              (1 - lower_portion) * std::pow(0.5, static_cast<double>(columns));
}

// A block of RocksDB's built-in kinds, as its metadata gives them
// (block_classifier.h): false for none of them.
bool DescribeBuiltin(std::string_view bytes, const BuiltinFormat& format,
                     FilterBlockInfo* info) {
  // The Bloom kinds' lines: all but the metadata.
  const std::string_view lines =
      bytes.substr(0, format.num_lines * format.line_bytes);
  info->family = "rocksdb";
  info->bytes = bytes.size();
  info->kind = FilterKindName(format.kind);
  switch (format.kind) {
    case FilterKind::kEmpty:
      // RocksDB reads a block this short as "no keys added".
      info->keys_known = true;
      return true;
    case FilterKind::kAlwaysTrue:
      info->params = {{"num_probes", 0}};
      info->fpr = 1;
      return true;
    case FilterKind::kLegacyBloom:
      // The pre-5.x "full filter" Bloom, one line per key.
      info->params = {
          {"num_probes", format.num_probes},
          {"line_bytes", static_cast<int64_t>(format.line_bytes)},
          {"num_lines", static_cast<int64_t>(format.num_lines)},
      };
      SetOneLineBloomFigures(lines, format.line_bytes, format.num_probes, info);
      info->fpr = std::min(
          1.0,
          info->fpr + LegacyProbeFlawRate(info->occupancy, format.num_probes));
      return true;
    case FilterKind::kFastLocalBloom:
      // Putze, Sanders and Singler's cache-local Bloom filter.
      info->params = {
          {"marker", -1},
          {"num_probes", format.num_probes},
          {"block_bytes", static_cast<int64_t>(format.line_bytes)},
          {"num_blocks", static_cast<int64_t>(format.num_lines)},
      };
      SetOneLineBloomFigures(lines, format.line_bytes, format.num_probes, info);
      return true;
    case FilterKind::kRibbon128:
      DescribeRibbon(format, info);
      return true;
    case FilterKind::kNone:
    case FilterKind::kBlockedBloom:
    case FilterKind::kCuckoo:
    case FilterKind::kUnknown:
      break;
  }
  return false;
}

}  // namespace

// Whose the block is, by the rule the plugin's reader follows
// (ClassifyBlock). A block whose metadata reads as RocksDB's empty or
// zero-probe filter is described as that, though the reader answers "may
// match" there in case it is a damaged block of ours.
Status DescribeFilterBlock(std::string_view compatibility_name,
                           std::string_view bytes, FilterBlockInfo* info) {
  BlockFamily family;
  if (!FamilyNamed(compatibility_name, &family)) {
    return Status::NotSupported("filters of policy family \"" +
                                std::string(compatibility_name) +
                                "\" are unknown to this tool");
  }
  const BlockClass block = ClassifyBlock(bytes, family);
  FilterBlockInfo result;
  switch (block.owner) {
    case BlockOwner::kOurs:
      DescribeSstfilter(block.ours, bytes.size(), &result);
      break;
    case BlockOwner::kRocksdb:
    case BlockOwner::kMayMatch:
      if (!DescribeBuiltin(bytes, block.rocksdb, &result)) return block.why;
      break;
  }
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
