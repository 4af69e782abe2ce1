// Specification of the bucket bucket array under the cuckoo filter
// (sstfilter/detail/cuckoo_bucket_array.h): what is written reads back at every
// fingerprint width, the word-at-a-time probe agrees with the per-slot one,
// and the bytes that follow a bucket array's slots never change its answers,
// nor does the static probe that loads them unclamped.
#include "sstfilter/detail/cuckoo_bucket_array.h"

#include <gtest/gtest.h>

#include "cuckoo_test_support.h"

namespace sstfilter::test_support {
namespace {

using detail::cuckoo::BucketArray;
using detail::cuckoo::Location;
using detail::cuckoo::MutableBucketArray;

TEST(CuckooBucketArrayTest, ReadBackWhatWasWrittenAtEveryWidth) {
  std::mt19937_64 rng(3);
  for (uint32_t f = 4; f <= 32; ++f) {
    // An odd bucket count so the stream ends mid-word (the clamped path).
    const uint64_t m = 37;
    std::vector<uint8_t> bytes(BucketArray::BytesFor(m, f));
    ASSERT_EQ(bytes.size(), SpecSlotBytes(m, f));
    MutableBucketArray slots(bytes.data(), m, f, 0, 0);
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
        // The layout of the header: slot j of bucket i at bit (4i + j) * f.
        ASSERT_EQ(SlotAt(std::string(bytes.begin(), bytes.end()), 0, f, i),
                  shadow[i])
            << "f=" << f;
      }
    }
  }
}

TEST(CuckooBucketArrayTest, WordAtATimeProbeMatchesPerSlotReference) {
  // Fill buckets with near misses of the probed fingerprint (one bit off,
  // +-1, the top bit flipped, empty) so every borrow and carry case of the
  // SWAR test is exercised, then compare with the per-slot Find.
  std::mt19937_64 rng(4);
  for (uint32_t f = 4; f <= 32; ++f) {
    const uint64_t m = 41;
    const uint32_t mask = static_cast<uint32_t>((uint64_t{1} << f) - 1);
    std::vector<uint8_t> bytes(BucketArray::BytesFor(m, f));
    MutableBucketArray slots(bytes.data(), m, f, 0, 0);
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
      const Location loc{a, b, fp};
      ASSERT_EQ(slots.Contains(loc), reference) << "f=" << f << " fp=" << fp;
      if (slots.HasWordBuckets()) {
        ASSERT_EQ(slots.WordBucketsContain(loc), reference);
        const int empty = slots.FirstEmptySlot(a);
        ASSERT_EQ(empty, slots.Find(a, 0)) << "f=" << f;
      }
    }
  }
}

TEST(CuckooBucketArrayTest, BytesAfterTheSlotsNeverChangeAnAnswer) {
  // A view may read past its slots (into the rest of its block) to skip the
  // clamping of the last buckets' loads: whatever those bytes hold, every
  // slot and every probe reads as in a bucket array that ends at its slots.
  std::mt19937_64 rng(5);
  for (uint32_t f = 4; f <= 32; ++f) {
    const uint64_t m = 23;
    const size_t slot_bytes = BucketArray::BytesFor(m, f);
    std::vector<uint8_t> bytes(slot_bytes + 40);
    MutableBucketArray writer(bytes.data(), m, f, 9, 0);
    const uint32_t mask = static_cast<uint32_t>((uint64_t{1} << f) - 1);
    for (uint64_t i = 0; i < m * 4; ++i) {
      const uint32_t v = rng() % 3 == 0 ? 0 : static_cast<uint32_t>(rng());
      writer.Exchange(i / 4, i % 4, v & mask);
    }
    for (size_t k = slot_bytes; k < bytes.size(); ++k) bytes[k] = 0xff;
    const BucketArray clamped(bytes.data(), slot_bytes, m, f, 9, 0);
    const BucketArray followed(bytes.data(), bytes.size(), m, f, 9, 0);
    for (uint64_t i = 0; i < m * 4; ++i) {
      ASSERT_EQ(followed.Get(i / 4, i % 4), clamped.Get(i / 4, i % 4));
    }
    for (uint64_t i = 0; i < m; ++i) {
      ASSERT_EQ(followed.FirstEmptySlot(i), clamped.FirstEmptySlot(i));
    }
    for (int q = 0; q < 5000; ++q) {
      const Location loc = clamped.Locate(rng());
      ASSERT_EQ(followed.Contains(loc), clamped.Contains(loc)) << "f=" << f;
    }
    if (!followed.HasWordBuckets()) continue;
    // With 40 bytes after the slots every bucket word is in bounds, so the
    // static probe, which loads without clamping, applies; it answers as
    // the clamped per-query probe does, one hash at a time or in groups.
    ASSERT_TRUE(followed.BucketWordsInBounds());
    std::vector<uint64_t> hashes(1000);
    for (uint64_t& h : hashes) h = rng();
    bool batch[1000];
    detail::cuckoo::StaticMayContainBatch(followed, hashes.data(),
                                          hashes.size(), batch);
    for (size_t i = 0; i < hashes.size(); ++i) {
      const bool expected = clamped.Contains(clamped.Locate(hashes[i]));
      ASSERT_EQ(detail::cuckoo::StaticMayContain(followed, hashes[i]),
                expected);
      ASSERT_EQ(batch[i], expected) << "f=" << f << " i=" << i;
    }
  }
}

}  // namespace
}  // namespace sstfilter::test_support
