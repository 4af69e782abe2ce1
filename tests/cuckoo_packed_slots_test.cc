// Specification of the packed-slot table under the cuckoo filter: what is
// written reads back at every fingerprint width, and the word-at-a-time
// probe agrees with the per-slot one.
#include <gtest/gtest.h>

#include "cuckoo_test_support.h"

namespace sstfilter::test_support {
namespace {

TEST(CuckooPackedSlotsTest, ReadBackWhatWasWrittenAtEveryWidth) {
  std::mt19937_64 rng(3);
  for (uint32_t f = 4; f <= 32; ++f) {
    // An odd bucket count so the stream ends mid-word (the clamped path).
    const uint64_t m = 37;
    std::vector<uint8_t> bytes(detail::PackedSlotsView::BytesFor(m, f));
    detail::PackedSlots slots(bytes.data(), m, f);
    std::vector<uint32_t> shadow(m * 4, 0);
    const uint32_t mask = static_cast<uint32_t>((uint64_t{1} << f) - 1);
    for (int round = 0; round < 3; ++round) {
      for (uint64_t i = 0; i < m * 4; ++i) {
        const uint32_t v = static_cast<uint32_t>(rng()) & mask;
        EXPECT_EQ(slots.Exchange(i / 4, i % 4, v), shadow[i]);
        shadow[i] = v;
      }
      for (uint64_t i = 0; i < m * 4; ++i) {
        ASSERT_EQ(slots.Get(i / 4, i % 4), shadow[i]) << "f=" << f;
      }
    }
  }
}

TEST(CuckooPackedSlotsTest, WordAtATimeProbeMatchesPerSlotReference) {
  // Fill buckets with near misses of the probed fingerprint (one bit off,
  // +-1, the top bit flipped, empty) so every borrow and carry case of the
  // SWAR test is exercised, then compare with the per-slot Find.
  std::mt19937_64 rng(4);
  for (uint32_t f = 4; f <= 32; ++f) {
    const uint64_t m = 41;
    const uint32_t mask = static_cast<uint32_t>((uint64_t{1} << f) - 1);
    std::vector<uint8_t> bytes(detail::PackedSlotsView::BytesFor(m, f));
    detail::PackedSlots slots(bytes.data(), m, f);
    for (int trial = 0; trial < 2000; ++trial) {
      const uint32_t fp = 1 + static_cast<uint32_t>(rng() % mask);
      const uint32_t near[] = {0,
                               fp,
                               (fp + 1) & mask,
                               (fp - 1) & mask,
                               fp ^ (1u << (f - 1)),
                               fp ^ (1u << (rng() % f)),
                               static_cast<uint32_t>(rng()) & mask};
      const uint64_t a = rng() % m, b = rng() % m;
      for (uint64_t bucket : {a, b}) {
        for (uint32_t j = 0; j < 4; ++j) {
          const uint32_t v = near[rng() % 7];
          slots.Exchange(bucket, j, v == fp && rng() % 2 ? 0 : v);
        }
      }
      const bool reference = slots.Find(a, fp) >= 0 || slots.Find(b, fp) >= 0;
      ASSERT_EQ(slots.EitherBucketContains(a, b, fp), reference)
          << "f=" << f << " fp=" << fp;
      if (slots.HasWordBuckets()) {
        ASSERT_EQ(slots.WordBucketsContain(a, b, fp), reference);
      }
    }
  }
}

}  // namespace
}  // namespace sstfilter::test_support
