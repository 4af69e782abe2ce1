// The range filter of sstfilter/range_filter.h: the format is described
// there, once.
#include "sstfilter/range_filter.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "sstfilter/detail/endian.h"
#include "sstfilter/hash.h"

namespace sstfilter {
namespace {

using detail::LoadLittleEndian;
using detail::StoreLittleEndian;

constexpr char kMagic[4] = {'S', 'F', 'R', 'F'};
constexpr uint64_t kMaxRange = uint64_t{1} << 62;
constexpr uint64_t kMaxUpperBits = uint64_t{1} << 32;
constexpr uint32_t kMaxLowBits = 62;
// Slack the sizing allows over bits_per_key * keys: whole words of rounding
// for the two bit arrays, so that a filter of a handful of keys is possible.
constexpr uint64_t kRoundingSlackBits = 128;

uint64_t WordsFor(uint64_t bits) { return (bits + 63) / 64; }
uint64_t SamplesFor(uint64_t buckets) {
  return (buckets + RangeFilterView::kZerosPerSample - 1) /
         RangeFilterView::kZerosPerSample;
}
uint64_t PayloadBits(uint64_t n, uint64_t buckets, uint32_t low_bits) {
  return 64 * WordsFor(n + buckets) + 64 * WordsFor(n * low_bits) +
         32 * SamplesFor(buckets);
}

// q: a block number to [0, range).
uint64_t BlockOffset(uint64_t block, uint64_t seed, uint64_t range) {
  return FastRange64(Remix64(block ^ seed), range);
}

// h(x) = (q(x / L) + x mod L) mod r, L = 2^block_bits <= r.
uint64_t LocalityHash(uint64_t x, uint32_t block_bits, uint64_t seed,
                      uint64_t range) {
  const uint64_t in_block = x & ((uint64_t{1} << block_bits) - 1);
  const uint64_t h = BlockOffset(x >> block_bits, seed, range) + in_block;
  return h >= range ? h - range : h;
}

uint32_t FloorLog2(uint64_t x) { return 63 - __builtin_clzll(x); }

// Position of the set bit number `k` (0-based) of `word`; k < popcount.
uint32_t SelectInWord(uint64_t word, uint32_t k) {
  for (uint32_t i = 0; i < k; ++i) word &= word - 1;
  return static_cast<uint32_t>(__builtin_ctzll(word));
}

// Sorts values below 2^bits: an LSD radix sort, 11 bits a pass. At SST
// sizes (10^4-10^6 hashes of 20-40 bits) it takes a fifth of std::sort's
// time, which dominated the filter's build.
void RadixSort(std::vector<uint64_t>* values, uint32_t bits) {
  constexpr uint32_t kDigitBits = 11;
  constexpr size_t kDigits = size_t{1} << kDigitBits;
  if (values->size() < 1024) {
    std::sort(values->begin(), values->end());
    return;
  }
  std::vector<uint64_t> buffer(values->size());
  std::vector<size_t> start(kDigits + 1);
  for (uint32_t shift = 0; shift < bits; shift += kDigitBits) {
    std::fill(start.begin(), start.end(), 0);
    for (uint64_t v : *values) ++start[((v >> shift) & (kDigits - 1)) + 1];
    for (size_t d = 0; d < kDigits; ++d) start[d + 1] += start[d];
    for (uint64_t v : *values)
      buffer[start[(v >> shift) & (kDigits - 1)]++] = v;
    values->swap(buffer);
  }
}

}  // namespace

Status RangeKeyRule::Validate() const {
  if (prefix_bytes > kMaxPrefixBytes) {
    return Status::InvalidArgument("prefix_bytes must be 0.." +
                                   std::to_string(kMaxPrefixBytes));
  }
  if (int_bytes < 1 || int_bytes > 8) {
    return Status::InvalidArgument("int_bytes must be 1..8");
  }
  if (prefix_bytes > 0 && int_bytes > 7) {
    return Status::InvalidArgument(
        "int_bytes must be 1..7 with a prefix: its hash takes the top bits");
  }
  return Status::Ok();
}

uint64_t RangeKeyRule::Map(std::string_view key) const {
  uint64_t value = 0;
  for (uint32_t i = 0; i < int_bytes; ++i) {
    const size_t at = size_t{prefix_bytes} + i;
    value = (value << 8) |
            (at < key.size() ? static_cast<unsigned char>(key[at]) : 0u);
  }
  if (prefix_bytes == 0) return value;
  const uint64_t segment =
      HashKey(key.substr(0, std::min<size_t>(prefix_bytes, key.size())));
  const uint32_t int_bits = 8 * int_bytes;
  return ((segment >> int_bits) << int_bits) | value;
}

Status RangeFilterBuilder::ValidateOptions(double bits_per_key,
                                           RangeKeyRule rule) {
  if (!(bits_per_key >= kMinBitsPerKey && bits_per_key <= kMaxBitsPerKey)) {
    return Status::InvalidArgument("bits_per_key must be 4..64");
  }
  return rule.Validate();
}

RangeFilterBuilder::RangeFilterBuilder(double bits_per_key, RangeKeyRule rule)
    : bits_per_key_(bits_per_key), rule_(rule) {}

Status RangeFilterBuilder::Finish(std::string* out) {
  std::vector<uint64_t> ints;
  ints.swap(ints_);
  // An SST's keys come sorted, so their integers come sorted too (bytewise
  // order) or reversed (its reverse); a prefix rule mixes them.
  if (std::is_sorted(ints.rbegin(), ints.rend())) {
    std::reverse(ints.begin(), ints.end());
  } else if (!std::is_sorted(ints.begin(), ints.end())) {
    std::sort(ints.begin(), ints.end());
  }
  ints.erase(std::unique(ints.begin(), ints.end()), ints.end());
  const uint64_t num_keys = ints.size();
  if (num_keys >= kMaxUpperBits / 2) {
    return Status::CapacityExceeded("too many keys for a range filter");
  }

  // The largest r the budget allows, over every low-bit width: r = buckets
  // << low_bits, the payload (PayloadBits) within the budget.
  const uint64_t budget =
      static_cast<uint64_t>(bits_per_key_ * static_cast<double>(num_keys)) +
      kRoundingSlackBits;
  uint64_t range = 1;
  uint32_t low_bits = 0;
  for (uint32_t l = 0; l <= kMaxLowBits && num_keys > 0; ++l) {
    const uint64_t fixed = 64 * WordsFor(num_keys * l);
    if (fixed >= budget) break;
    // Each bucket costs 1 + 1/16 bits; start there and step down past the
    // rounding to whole words.
    uint64_t buckets = (budget - fixed) * 16 / 17;
    buckets = std::min(buckets, kMaxRange >> l);
    buckets = std::min(buckets, kMaxUpperBits - 1 - num_keys);
    while (buckets > 0 && fixed + PayloadBits(num_keys, buckets, 0) > budget) {
      buckets -= std::min<uint64_t>(buckets, 32);
    }
    if (buckets == 0) continue;
    if ((buckets << l) > range) {
      range = buckets << l;
      low_bits = l;
    }
  }
  const uint32_t block_bits = FloorLog2(range);

  std::vector<uint64_t> hashes(ints.size());
  for (size_t i = 0; i < ints.size(); ++i) {
    hashes[i] = LocalityHash(ints[i], block_bits, kDefaultSeed, range);
  }
  std::vector<uint64_t>().swap(ints);
  RadixSort(&hashes, FloorLog2(range) + 1);
  hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
  const uint64_t n = hashes.size();

  const uint64_t buckets = ((range - 1) >> low_bits) + 1;
  const uint64_t upper_bits = n + buckets;
  std::vector<uint64_t> upper(WordsFor(upper_bits), 0);
  std::vector<uint64_t> low(WordsFor(n * low_bits), 0);
  std::vector<uint32_t> samples(SamplesFor(buckets), 0);
  const uint64_t low_mask = low_bits == 0 ? 0 : (uint64_t{1} << low_bits) - 1;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t bit = (hashes[i] >> low_bits) + i;
    upper[bit / 64] |= uint64_t{1} << (bit % 64);
    if (low_bits > 0) {
      const uint64_t value = hashes[i] & low_mask;
      const uint64_t at = i * low_bits;
      low[at / 64] |= value << (at % 64);
      if (at % 64 + low_bits > 64) low[at / 64 + 1] |= value >> (64 - at % 64);
    }
  }
  // Sample s: the position of zero number 512 s.
  uint64_t zeros_before = 0, next_sample = 0;
  for (size_t word = 0; word < upper.size(); ++word) {
    uint64_t zeros = ~upper[word];
    if (word + 1 == upper.size() && upper_bits % 64 != 0) {
      zeros &= (uint64_t{1} << (upper_bits % 64)) - 1;
    }
    const uint64_t count = static_cast<uint64_t>(__builtin_popcountll(zeros));
    while (next_sample < zeros_before + count) {
      samples[next_sample / RangeFilterView::kZerosPerSample] =
          static_cast<uint32_t>(
              64 * word + SelectInWord(zeros, static_cast<uint32_t>(
                                                  next_sample - zeros_before)));
      next_sample += RangeFilterView::kZerosPerSample;
    }
    zeros_before += count;
  }

  out->assign(RangeFilterView::kHeaderBytes, '\0');
  std::memcpy(out->data(), kMagic, 4);
  (*out)[4] = static_cast<char>(RangeFilterView::kVersion);
  (*out)[5] = static_cast<char>(rule_.prefix_bytes);
  (*out)[6] = static_cast<char>(rule_.int_bytes);
  (*out)[7] = static_cast<char>(low_bits);
  (*out)[8] = static_cast<char>(block_bits);
  StoreLittleEndian<uint64_t>(out->data() + 16, n);
  StoreLittleEndian<uint64_t>(out->data() + 24, range);
  StoreLittleEndian<uint64_t>(out->data() + 32, kDefaultSeed);
  StoreLittleEndian<uint64_t>(out->data() + 40, num_keys);
  const size_t header = out->size();
  out->resize(header + 8 * (upper.size() + low.size()) + 4 * samples.size());
  char* p = out->data() + header;
  for (uint64_t w : upper) StoreLittleEndian<uint64_t>(p, w), p += 8;
  for (uint64_t w : low) StoreLittleEndian<uint64_t>(p, w), p += 8;
  for (uint32_t s : samples) StoreLittleEndian<uint32_t>(p, s), p += 4;
  return Status::Ok();
}

Status RangeFilterView::Parse(std::string_view bytes, RangeFilterView* view) {
  if (bytes.size() < kHeaderBytes ||
      std::memcmp(bytes.data(), kMagic, 4) != 0) {
    return Status::Corruption("not a range filter");
  }
  const auto byte = [&](size_t i) {
    return static_cast<uint32_t>(static_cast<unsigned char>(bytes[i]));
  };
  if (byte(4) != kVersion) {
    return Status::NotSupported("range filter version " +
                                std::to_string(byte(4)));
  }
  RangeFilterView v;
  v.bytes_ = bytes;
  v.rule_.prefix_bytes = byte(5);
  v.rule_.int_bytes = byte(6);
  v.low_bits_ = byte(7);
  v.block_bits_ = byte(8);
  for (size_t i = 9; i < 16; ++i) {
    if (byte(i) != 0) return Status::Corruption("reserved bytes not zero");
  }
  v.num_hashes_ = LoadLittleEndian<uint64_t>(bytes.data() + 16);
  v.range_ = LoadLittleEndian<uint64_t>(bytes.data() + 24);
  v.seed_ = LoadLittleEndian<uint64_t>(bytes.data() + 32);
  v.num_keys_ = LoadLittleEndian<uint64_t>(bytes.data() + 40);
  if (!v.rule_.Validate().ok() || v.low_bits_ > kMaxLowBits || v.range_ == 0 ||
      v.range_ > kMaxRange || v.num_hashes_ > v.range_ || v.block_bits_ > 62 ||
      (uint64_t{1} << v.block_bits_) > v.range_) {
    return Status::Corruption("range filter header out of range");
  }
  v.num_buckets_ = ((v.range_ - 1) >> v.low_bits_) + 1;
  v.upper_bits_ = v.num_hashes_ + v.num_buckets_;
  if (v.upper_bits_ >= kMaxUpperBits) {
    return Status::Corruption("range filter too large");
  }
  v.upper_words_ = WordsFor(v.upper_bits_);
  v.low_words_ = WordsFor(v.num_hashes_ * v.low_bits_);
  v.num_samples_ = SamplesFor(v.num_buckets_);
  v.upper_offset_ = kHeaderBytes;
  v.low_offset_ = v.upper_offset_ + 8 * v.upper_words_;
  v.sample_offset_ = v.low_offset_ + 8 * v.low_words_;
  if (v.sample_offset_ + 4 * v.num_samples_ != bytes.size()) {
    return Status::Corruption("range filter size does not match its header");
  }
  *view = v;
  return Status::Ok();
}

uint64_t RangeFilterView::Word(size_t offset, uint64_t index) const {
  const size_t at = offset + 8 * index;
  if (at + 8 > bytes_.size()) return 0;
  return LoadLittleEndian<uint64_t>(bytes_.data() + at);
}

uint64_t RangeFilterView::LowBits(uint64_t index) const {
  if (low_bits_ == 0) return 0;
  const uint64_t at = index * low_bits_;
  const uint32_t shift = at % 64;
  uint64_t value = Word(low_offset_, at / 64) >> shift;
  if (shift + low_bits_ > 64 && at / 64 + 1 < low_words_) {
    value |= Word(low_offset_, at / 64 + 1) << (64 - shift);
  }
  return value & ((uint64_t{1} << low_bits_) - 1);
}

bool RangeFilterView::SelectZero(uint64_t k, uint64_t* pos) const {
  const uint64_t sample = k / kZerosPerSample;
  if (sample >= num_samples_) return false;
  const uint64_t start =
      LoadLittleEndian<uint32_t>(bytes_.data() + sample_offset_ + 4 * sample);
  uint64_t remaining = k % kZerosPerSample;
  uint64_t word = start / 64;
  if (word >= upper_words_) return false;
  uint64_t zeros = ~Word(upper_offset_, word) & (~uint64_t{0} << (start % 64));
  while (true) {
    const uint64_t count = static_cast<uint64_t>(__builtin_popcountll(zeros));
    if (remaining < count) {
      *pos = 64 * word + SelectInWord(zeros, static_cast<uint32_t>(remaining));
      return *pos < upper_bits_;
    }
    remaining -= count;
    if (++word >= upper_words_) return false;
    zeros = ~Word(upper_offset_, word);
  }
}

bool RangeFilterView::UpperBit(uint64_t pos) const {
  return (Word(upper_offset_, pos / 64) >> (pos % 64)) & 1;
}

bool RangeFilterView::NextZero(uint64_t pos, uint64_t* zero) const {
  uint64_t word = pos / 64;
  uint64_t zeros = ~Word(upper_offset_, word) & (~uint64_t{0} << (pos % 64));
  while (zeros == 0) {
    if (++word >= upper_words_) return false;
    zeros = ~Word(upper_offset_, word);
  }
  *zero = 64 * word + static_cast<uint64_t>(__builtin_ctzll(zeros));
  return *zero < upper_bits_;
}

bool RangeFilterView::AnyHashIn(uint64_t lo, uint64_t hi) const {
  const uint64_t first_bucket = lo >> low_bits_;
  const uint64_t last_bucket = hi >> low_bits_;
  const uint64_t low_mask = low_bits_ == 0 ? 0 : (uint64_t{1} << low_bits_) - 1;
  // The first bucket's hashes: the ones between zero first_bucket - 1 and
  // zero first_bucket; hash i is the one at position bucket + i.
  uint64_t begin_pos = 0, end_pos = 0;
  if (first_bucket > 0) {
    if (!SelectZero(first_bucket - 1, &begin_pos)) return true;
    ++begin_pos;
  }
  if (begin_pos < first_bucket || !NextZero(begin_pos, &end_pos)) return true;
  uint64_t index = begin_pos - first_bucket;
  const uint64_t end = end_pos - first_bucket;
  if (end > num_hashes_) return true;
  // The first hash >= lo in that bucket (their low bits are sorted).
  for (uint64_t count = end - index; count > 0;) {
    const uint64_t half = count / 2;
    if (LowBits(index + half) < (lo & low_mask)) {
      index += half + 1;
      count -= half + 1;
    } else {
      count = half;
    }
  }
  if (index < end) {
    return first_bucket < last_bucket || LowBits(index) <= (hi & low_mask);
  }
  // Else the next hash, hash number `end`, is the first one of a later
  // bucket: walk the bits after the bucket, a zero a bucket, to its one.
  uint64_t bucket = first_bucket + 1;
  for (uint64_t pos = end_pos + 1; bucket <= last_bucket; ++pos) {
    if (pos >= upper_bits_) return false;  // no more hashes
    if (UpperBit(pos)) {
      return bucket < last_bucket || LowBits(end) <= (hi & low_mask);
    }
    ++bucket;
  }
  return false;
}

bool RangeFilterView::MayOverlapInts(uint64_t lo, uint64_t hi) const {
  if (num_hashes_ == 0) return false;
  if (lo > hi || hi - lo >= range_ - 1) return true;
  const uint64_t block_mask = (uint64_t{1} << block_bits_) - 1;
  const uint64_t first_block = lo >> block_bits_;
  const uint64_t last_block = hi >> block_bits_;
  if (last_block - first_block >= 2) return true;
  // The range's part in one block: hashes [h(start), h(start) + length],
  // wrapping around r.
  const auto piece = [&](uint64_t block, uint64_t start, uint64_t end) {
    uint64_t from = BlockOffset(block, seed_, range_) + start;
    if (from >= range_) from -= range_;
    const uint64_t to = from + (end - start);
    if (to < range_) return AnyHashIn(from, to);
    return AnyHashIn(from, range_ - 1) || AnyHashIn(0, to - range_);
  };
  if (first_block == last_block) {
    return piece(first_block, lo & block_mask, hi & block_mask);
  }
  return piece(first_block, lo & block_mask, block_mask) ||
         piece(last_block, 0, hi & block_mask);
}

bool RangeFilterView::MayOverlap(std::string_view lo, bool /*lo_inclusive*/,
                                 std::string_view hi, bool hi_inclusive) const {
  const size_t prefix = rule_.prefix_bytes;
  if (prefix > 0 && (lo.size() < prefix || hi.size() < prefix ||
                     lo.substr(0, prefix) != hi.substr(0, prefix))) {
    return true;
  }
  // A key >= lo (or > lo) maps to >= Map(lo): Map is monotone.
  const uint64_t from = rule_.Map(lo);
  uint64_t to = rule_.Map(hi);
  // A key k < hi has Map(k) < Map(hi) when hi is wholly inside the integer's
  // bytes and does not end in a zero byte: equal integers would make k
  // either have hi as a prefix (k >= hi) or be hi less its trailing zeros.
  if (!hi_inclusive && hi.size() <= prefix + rule_.int_bytes && !hi.empty() &&
      hi.back() != '\0' && to > from) {
    --to;
  }
  return MayOverlapInts(from, to);
}

double RangeFilterView::FprBound(uint64_t length) const {
  const double bound = static_cast<double>(length) *
                       static_cast<double>(num_hashes_) /
                       static_cast<double>(range_);
  return std::min(1.0, bound);
}

bool RangeMayOverlap(std::string_view bytes, std::string_view lo,
                     bool lo_inclusive, std::string_view hi,
                     bool hi_inclusive) {
  RangeFilterView view;
  if (!RangeFilterView::Parse(bytes, &view).ok()) return true;
  return view.MayOverlap(lo, lo_inclusive, hi, hi_inclusive);
}

}  // namespace sstfilter
