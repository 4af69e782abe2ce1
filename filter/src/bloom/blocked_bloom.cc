#include "sstfilter/blocked_bloom.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "bloom/blocked_bloom_avx2.h"
#include "sstfilter/detail/blocked_bloom_probe.h"
#include "sstfilter/detail/endian.h"
#include "sstfilter/format.h"

namespace sstfilter {
namespace {

constexpr size_t kV1HeaderBytes = 24;
constexpr double kLineBits = BlockedBloomParams::kLineBytes * 8;

// Layout per whole bits/key: {lines_per_key, num_probes}, measured by
// `sstfilter-filter-bench layout-table` (1M keys; absent queries giving about
// 2e4 false positives, at least 2e6). The pick is the cheapest layout (fewest
// lines, then probes) within one standard error of the lowest FPR, since
// the curve is flat near its optimum. FPR in percent:
//   bits/key  one line: k  FPR     two lines: k  FPR     chosen
//      1            1  63.26              2  74.81       1 line, 1
//      2            1  39.35              2  39.88       1 line, 1
//      3            2  23.71              2  23.74       1 line, 2
//      4            3  14.8               3  14.71       2 lines, 3
//      6            4  5.778              4  5.646       2 lines, 4
//      8            5  2.326              6  2.208       2 lines, 6
//     10            6  0.9658             7  0.8533      2 lines, 7
//     12            7  0.4127             8  0.3369      2 lines, 8
//     14            9  0.1823             9  0.1338      2 lines, 9
//     16            9  0.0841            10  0.05471     2 lines, 10
//     20           11  0.01962           12  0.009376    2 lines, 12
//     24           12  0.005316          13  0.001812    2 lines, 13
// (every whole bits/key from 1 to 24 was measured; rows elided here).
struct Layout {
  uint8_t lines_per_key;
  uint8_t num_probes;
};
constexpr Layout kLayoutByBitsPerKey[] = {
    {1, 1},  // 0: unused, below 1 bit/key counts as 1
    {1, 1},  {1, 1},  {1, 2},  {2, 3},  {2, 3},  {2, 4},  {2, 5},  {2, 6},
    {2, 6},  {2, 7},  {2, 7},  {2, 8},  {2, 9},  {2, 9},  {2, 10}, {2, 10},
    {2, 11}, {2, 11}, {2, 12}, {2, 12}, {2, 13}, {2, 14}, {2, 13}, {2, 13},
};
// The same measurement restricted to one line per key.
constexpr uint8_t kOneLineProbes[] = {1,  1,  1,  2,  3,  3,  4, 5, 5,
                                      6,  6,  7,  7,  8,  9,  9, 9, 10,
                                      10, 10, 11, 11, 11, 12, 12};
constexpr int kMaxTableBitsPerKey =
    static_cast<int>(sizeof(kLayoutByBitsPerKey) / sizeof(Layout)) - 1;
static_assert(sizeof(kOneLineProbes) == sizeof(kLayoutByBitsPerKey) / 2);

int TableIndex(double bits_per_key) {
  if (!(bits_per_key >= 1.0)) return 1;  // also catches NaN
  const double rounded = std::floor(bits_per_key + 0.5);
  return rounded > kMaxTableBitsPerKey ? kMaxTableBitsPerKey
                                       : static_cast<int>(rounded);
}

uint64_t LinesFor(uint64_t num_keys, double bits_per_key) {
  if (num_keys == 0) return 0;
  if (!(bits_per_key > 0)) bits_per_key = 1;
  const double lines =
      std::ceil(static_cast<double>(num_keys) * bits_per_key / kLineBits);
  // Compared as doubles, before a conversion that would overflow.
  if (!(lines < static_cast<double>(BlockedBloomParams::kMaxLines))) {
    return BlockedBloomParams::kMaxLines;
  }
  return std::max<uint64_t>(1, static_cast<uint64_t>(lines));
}

// E[s^probes] for one line, where s is the fraction of the line's bits
// that are set and the line receives Binomial(num_keys, q) keys putting
// `probes_first` bits each plus (for two lines per key) as many putting
// `probes_second` bits each. With r = 1 - 1/512, a line with t probes
// set into it has s = 1 - r^t, and expanding (1 - r^t)^probes binomially
// leaves only E[x^X] = (1 - q + q x)^n, the binomial generating function.
// (The two kinds of load are treated as independent; they are in the limit.)
double ExpectedLinePass(uint32_t probes, uint64_t num_keys, double q,
                        uint32_t probes_first, uint32_t probes_second) {
  const double log_r = std::log1p(-1.0 / kLineBits);
  const double n = static_cast<double>(num_keys);
  auto generating = [&](double x) {
    return std::exp(n * std::log1p(q * (x - 1.0)));
  };
  double sum = 0.0;
  double binom = 1.0;  // C(probes, i)
  for (uint32_t i = 0; i <= probes; ++i) {
    const double term =
        generating(std::exp(log_r * i * probes_first)) *
        (probes_second == 0 ? 1.0
                            : generating(std::exp(log_r * i * probes_second)));
    sum += (i % 2 == 0 ? binom : -binom) * term;
    binom = binom * (probes - i) / (i + 1);
  }
  return std::max(0.0, sum);
}

}  // namespace

BlockedBloomParams BlockedBloomParams::ForBitsPerKey(uint64_t num_keys,
                                                     double bits_per_key,
                                                     uint32_t lines_per_key) {
  BlockedBloomParams p;
  p.num_lines = LinesFor(num_keys, bits_per_key);
  const int index = TableIndex(bits_per_key);
  if (lines_per_key == 1) {
    p.lines_per_key = 1;
    p.num_probes = kOneLineProbes[index];
  } else {
    p.lines_per_key = kLayoutByBitsPerKey[index].lines_per_key;
    p.num_probes = kLayoutByBitsPerKey[index].num_probes;
  }
  return p;
}

BlockedBloomParams BlockedBloomParams::ForBitsPerKeyWithin(
    size_t max_bytes, uint64_t num_keys, double bits_per_key,
    uint32_t lines_per_key) {
  const uint64_t max_lines = std::max<uint64_t>(1, LinesIn(max_bytes));
  BlockedBloomParams p = ForBitsPerKey(num_keys, bits_per_key, lines_per_key);
  if (p.num_lines <= max_lines) return p;
  // The layout for the bits/key the capped filter has; its line count set
  // exactly, whatever the rounding of that bits/key.
  p = ForBitsPerKey(num_keys,
                    static_cast<double>(max_lines) * kLineBits /
                        static_cast<double>(num_keys),
                    lines_per_key);
  p.num_lines = max_lines;
  return p;
}

BlockedBloomParams BlockedBloomParams::ForTargetFpr(uint64_t num_keys,
                                                    double fpr,
                                                    uint32_t lines_per_key) {
  if (!(fpr > 0.0)) fpr = 1e-9;
  if (fpr >= 1.0) fpr = 0.999;
  const double ln2 = std::log(2.0);
  double bits_per_key = -std::log(fpr) / (ln2 * ln2);
  BlockedBloomParams p = ForBitsPerKey(num_keys, bits_per_key, lines_per_key);
  if (num_keys == 0) return p;
  // Blocking costs a little FPR; grow about 0.5% per step until the model
  // meets the target. Each step also tries the probe counts around the
  // current one, since the best count shifts with the size.
  for (int step = 0; step < 2000; ++step) {
    BlockedBloomParams best = p;
    double best_fpr = p.EstimatedFpr(num_keys);
    for (uint32_t k = p.lines_per_key; k <= kMaxProbes; ++k) {
      BlockedBloomParams q = p;
      q.num_probes = k;
      const double f = q.EstimatedFpr(num_keys);
      if (f < best_fpr) {
        best = q;
        best_fpr = f;
      }
    }
    p = best;
    if (best_fpr <= fpr || p.num_lines == kMaxLines) break;
    p.num_lines = std::min(
        kMaxLines,
        std::max<uint64_t>(p.num_lines + 1, p.num_lines + p.num_lines / 200));
  }
  return p;
}

uint64_t BlockedBloomParams::LinesIn(size_t bytes) {
  return bytes < kMetadataBytes ? 0 : (bytes - kMetadataBytes) / kLineBytes;
}

uint64_t BlockedBloomParams::Capacity(size_t bytes, double bits_per_key,
                                      uint32_t lines_per_key) {
  // SerializedSize grows with the key count: binary search, from the bound
  // that at least 1 bit per key gives.
  uint64_t fits = 0;
  uint64_t too_many = std::min<uint64_t>(bytes, SIZE_MAX / 8 - 1) * 8 + 1;
  while (too_many - fits > 1) {
    const uint64_t mid = fits + (too_many - fits) / 2;
    if (ForBitsPerKey(mid, bits_per_key, lines_per_key).SerializedSize() <=
        bytes) {
      fits = mid;
    } else {
      too_many = mid;
    }
  }
  return fits;
}

double BlockedBloomParams::EstimatedFprIn(size_t bytes,
                                          uint64_t num_keys) const {
  BlockedBloomParams sized = *this;
  sized.num_lines = LinesIn(bytes);
  if (sized.num_lines == 0) return num_keys == 0 ? 0.0 : 1.0;
  return sized.EstimatedFpr(num_keys);
}

Status BlockedBloomParams::Validate() const {
  if (lines_per_key != 1 && lines_per_key != 2) {
    return Status::InvalidArgument("lines_per_key must be 1 or 2, not " +
                                   std::to_string(lines_per_key));
  }
  if (num_probes < lines_per_key || num_probes > kMaxProbes) {
    return Status::InvalidArgument("num_probes must be in " +
                                   std::to_string(lines_per_key) +
                                   "..16, not " + std::to_string(num_probes));
  }
  // Keeps SerializedSize() from overflowing, and the filter allocatable.
  if (num_lines > kMaxLines) {
    return Status::CapacityExceeded(
        "num_lines " + std::to_string(num_lines) + " exceeds the " +
        std::to_string(kMaxLines) + " whose bytes fit in memory");
  }
  return Status::Ok();
}

double BlockedBloomParams::EstimatedFpr(uint64_t num_keys) const {
  if (num_lines == 0 || num_keys == 0) return 0.0;
  // A key picks each of its lines uniformly; with one line the formula is
  // exact, with num_lines == 1 it degenerates correctly to s^num_probes.
  const double q = 1.0 / static_cast<double>(num_lines);
  const uint32_t first = ProbesInLine(0);
  const uint32_t second = ProbesInLine(1);
  double fpr = ExpectedLinePass(first, num_keys, q, first, second);
  if (second > 0) fpr *= ExpectedLinePass(second, num_keys, q, first, second);
  return fpr;
}

namespace {

// The fields both versions store, read from `fields` (v1: byte 4 of the
// block; v2: byte 4 of the metadata): num_probes, lines_per_key, two
// reserved bytes, num_lines, num_keys.
Status ParseFields(const uint8_t* fields, BlockedBloomParams* p,
                   uint64_t* num_keys) {
  p->num_probes = fields[0];
  p->lines_per_key = fields[1];
  p->num_lines = detail::LoadLittleEndian<uint64_t>(fields + 4);
  *num_keys = detail::LoadLittleEndian<uint64_t>(fields + 12);
  if (fields[2] != 0 || fields[3] != 0) {
    return Status::Corruption("BlockedBloom reserved bytes are not zero");
  }
  Status s = p->Validate();
  if (!s.ok()) return Status::Corruption("BlockedBloom header: " + s.message());
  return Status::Ok();
}

Status SizeMismatch(const BlockedBloomParams& p, uint64_t payload) {
  return Status::Corruption("BlockedBloom size mismatch: header says " +
                            std::to_string(p.num_lines) + " lines but " +
                            std::to_string(payload) + " bytes of lines");
}

}  // namespace

namespace {

// Version 2: the lines, then the metadata.
Status ParseV2(std::string_view bytes, BlockedBloomParams* p,
               uint64_t* num_keys, const uint8_t** lines) {
  constexpr size_t kMeta = BlockedBloomParams::kMetadataBytes;
  if (bytes.size() < kMeta) {
    return Status::Corruption("BlockedBloom metadata truncated: " +
                              std::to_string(bytes.size()) + " of 28 bytes");
  }
  const size_t at = bytes.size() - kMeta;
  Status s = VerifyMetadataChecksum(bytes.substr(at), "BlockedBloom");
  if (!s.ok()) return s;
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  s = ParseFields(data + at + 4, p, num_keys);
  if (!s.ok()) return s;
  if (at % BlockedBloomParams::kLineBytes != 0 ||
      at / BlockedBloomParams::kLineBytes != p->num_lines) {
    return SizeMismatch(*p, at);
  }
  *lines = data;
  return Status::Ok();
}

// Version 1: the header, then the lines.
Status ParseV1(std::string_view bytes, BlockedBloomParams* p,
               uint64_t* num_keys, const uint8_t** lines) {
  if (bytes.size() < kV1HeaderBytes) {
    return Status::Corruption("BlockedBloom header truncated: " +
                              std::to_string(bytes.size()) + " of 24 bytes");
  }
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  Status s = ParseFields(data + 4, p, num_keys);
  if (!s.ok()) return s;
  const uint64_t payload = bytes.size() - kV1HeaderBytes;
  if (payload % BlockedBloomParams::kLineBytes != 0 ||
      payload / BlockedBloomParams::kLineBytes != p->num_lines) {
    return SizeMismatch(*p, payload);
  }
  *lines = data + kV1HeaderBytes;
  return Status::Ok();
}

}  // namespace

Status BlockedBloomView::Parse(std::string_view bytes, BlockedBloomView* out) {
  return Parse(bytes, ReadBlockTags(bytes), out);
}

Status BlockedBloomView::Parse(std::string_view bytes, const BlockTags& tags,
                               BlockedBloomView* out) {
  BlockedBloomParams p;
  uint64_t num_keys = 0;
  const uint8_t* lines = nullptr;
  uint8_t version = 0;
  const Status s = ParseByVersion(
      tags, FilterKind::kBlockedBloom,
      [&] { return ParseV1(bytes, &p, &num_keys, &lines); },
      [&] { return ParseV2(bytes, &p, &num_keys, &lines); }, &version);
  if (!s.ok()) return s;
  out->params_ = p;
  out->num_keys_ = num_keys;
  out->probe_ = {lines, p.num_lines, p.ProbesInLine(0), p.ProbesInLine(1)};
  out->version_ = version;
  return Status::Ok();
}

bool BlockedBloomView::OnSimdPath(SimdPath path, BlockedBloomView* out) const {
  if (!SimdPathSupported(path)) return false;
  *out = *this;
  out->simd_path_ = path;
  return true;
}

bool BlockedBloomView::MayContain(uint64_t hash) const {
  return simd_path_ == SimdPath::kAvx2
             ? detail::MayContainAvx2(probe_, hash)
             : detail::MayContain<detail::ScalarLineOps>(probe_, hash);
}

bool BlockedBloomView::MayContainKey(std::string_view key) const {
  return MayContain(HashKey(key));
}

void BlockedBloomView::MayContainBatch(const uint64_t* hashes, size_t count,
                                       bool* results) const {
  if (simd_path_ == SimdPath::kAvx2) {
    detail::MayContainBatchAvx2(probe_, hashes, count, results);
  } else {
    detail::MayContainBatch<detail::ScalarLineOps>(probe_, hashes, count,
                                                   results);
  }
}

void BlockedBloomView::MayContainKeys(const std::string_view* keys,
                                      size_t count, bool* results) const {
  constexpr size_t kChunk = 64;
  uint64_t hashes[kChunk];
  for (size_t start = 0; start < count; start += kChunk) {
    const size_t n = std::min(kChunk, count - start);
    for (size_t i = 0; i < n; ++i) hashes[i] = HashKey(keys[start + i]);
    MayContainBatch(hashes, n, results + start);
  }
}

double FillRatio(std::string_view bits) {
  if (bits.empty()) return 0.0;
  uint64_t set = 0;
  size_t i = 0;
  for (; i + 8 <= bits.size(); i += 8) {
    set += __builtin_popcountll(
        detail::LoadLittleEndian<uint64_t>(bits.data() + i));
  }
  for (; i < bits.size(); ++i) {
    set += __builtin_popcount(static_cast<uint8_t>(bits[i]));
  }
  return static_cast<double>(set) / (8.0 * static_cast<double>(bits.size()));
}

double BlockedBloomView::FillRatio() const {
  return sstfilter::FillRatio({reinterpret_cast<const char*>(probe_.lines),
                               static_cast<size_t>(params_.num_lines) *
                                   BlockedBloomParams::kLineBytes});
}

namespace {

// Writes the v2 metadata of a filter of `params` holding `num_keys`.
void WriteMetadata(const BlockedBloomParams& params, uint64_t num_keys,
                   uint8_t* filter) {
  uint8_t* meta = filter + params.num_lines * BlockedBloomParams::kLineBytes;
  meta[4] = static_cast<uint8_t>(params.num_probes);
  meta[5] = static_cast<uint8_t>(params.lines_per_key);
  meta[6] = meta[7] = 0;
  detail::StoreLittleEndian<uint64_t>(meta + 8, params.num_lines);
  detail::StoreLittleEndian<uint64_t>(
      meta + 16, std::min(num_keys, BlockedBloomParams::kMaxRecordedKeys));
  SealMetadata(FilterKind::kBlockedBloom, meta, meta + 24);
}

// Sets the bits of probes 0..probes-1 of line hash `g` in `line`.
void SetProbeBits(uint8_t* line, uint32_t g, uint32_t probes) {
  for (uint32_t i = 0; i < probes; ++i) {
    const uint32_t bit = detail::ProbeBit(g, i);
    line[bit >> 3] |= static_cast<uint8_t>(1u << (bit & 7));
  }
}

// Sets the bits of `hashes` in the lines at `lines`: the one place both the
// writer and BlockedBloom add through. Setting bits gains nothing from
// vectors (measured slower than this loop), so every SIMD path adds here.
void AddHashes(const BlockedBloomParams& p, uint8_t* lines,
               const uint64_t* hashes, size_t count) {
  if (p.num_lines == 0) return;
  const uint32_t probes[2] = {p.ProbesInLine(0), p.ProbesInLine(1)};
  // Prefetch a fixed distance ahead; building a large filter is bound by
  // random cache-line misses, not by arithmetic.
  constexpr size_t kAhead = 8;
  for (size_t i = 0; i < count; ++i) {
    if (i + kAhead < count) {
      const uint64_t ahead = hashes[i + kAhead];
      __builtin_prefetch(
          detail::LinePtr(lines, detail::FirstLineOf(ahead, p.num_lines).line),
          1);
      if (p.lines_per_key == 2) {
        __builtin_prefetch(
            detail::LinePtr(lines,
                            detail::SecondLineOf(ahead, p.num_lines).line),
            1);
      }
    }
    const detail::KeyLine first = detail::FirstLineOf(hashes[i], p.num_lines);
    SetProbeBits(lines + first.line * BlockedBloomParams::kLineBytes, first.g,
                 probes[0]);
    if (p.lines_per_key == 2) {
      const detail::KeyLine second =
          detail::SecondLineOf(hashes[i], p.num_lines);
      SetProbeBits(lines + second.line * BlockedBloomParams::kLineBytes,
                   second.g, probes[1]);
    }
  }
}

}  // namespace

BlockedBloomWriter::BlockedBloomWriter(const BlockedBloomParams& params,
                                       uint8_t* out)
    : params_(params), out_(out) {
  std::fill(out, out + params.SerializedSize(), 0);
  WriteMetadata(params, 0, out);
}

void BlockedBloomWriter::AddBatch(const uint64_t* hashes, size_t count) {
  AddHashes(params_, out_, hashes, count);
  num_keys_ += count;
  WriteMetadata(params_, num_keys_, out_);
}

Status BlockedBloom::Create(const BlockedBloomParams& params,
                            BlockedBloom* out) {
  Status s = params.Validate();
  if (!s.ok()) return s;
  if (params.num_lines == 0) {
    return Status::InvalidArgument(
        "a BlockedBloom that can hold keys needs num_lines >= 1");
  }
  out->bytes_.assign(params.SerializedSize(), 0);
  BlockedBloomWriter(params, out->bytes_.data());
  return BlockedBloomView::Parse(out->bytes(), &out->view_);
}

void BlockedBloom::AddBatch(const uint64_t* hashes, size_t count) {
  AddHashes(view_.params(), bytes_.data(), hashes, count);
  view_.num_keys_ += count;
  sealed_ = false;
}

std::string_view BlockedBloom::bytes() const {
  if (!sealed_) {
    WriteMetadata(view_.params(), view_.num_keys(), bytes_.data());
    sealed_ = true;
  }
  return {reinterpret_cast<const char*>(bytes_.data()), bytes_.size()};
}

void BlockedBloom::AddKey(std::string_view key) { Add(HashKey(key)); }

}  // namespace sstfilter
