// A filter in front of a cache: every added key matches, and most others
// do not. Exit status 0 when both hold.
#include <cstdio>
#include <string>

#include "sstfilter/blocked_bloom.h"

int main() {
  sstfilter::BlockedBloom filter;
  const auto params = sstfilter::BlockedBloomParams::ForBitsPerKey(1000, 10);
  if (!sstfilter::BlockedBloom::Create(params, &filter).ok()) return 1;
  for (int i = 0; i < 1000; ++i) filter.AddKey("key" + std::to_string(i));
  int false_negatives = 0;
  int positives = 0;
  for (int i = 0; i < 1000; ++i) {
    false_negatives += !filter.MayContainKey("key" + std::to_string(i));
    positives += filter.MayContainKey("absent" + std::to_string(i));
  }
  std::printf("false negatives %d, false positives %d of 1000\n",
              false_negatives, positives);
  return false_negatives == 0 && positives < 50 ? 0 : 1;
}
