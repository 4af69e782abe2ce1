// Writes a few valid filters of every kind into a directory: the seed
// corpus for filter_fuzzer, so it starts from real formats.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "keys.h"
#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  int written = 0;
  auto write = [&](const std::string& name, std::string_view bytes) {
    std::ofstream out(dir + "/" + name, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    written += out.good() ? 1 : 0;
  };
  for (uint64_t n : {0, 1, 10, 200}) {
    const auto keys = sstfilter::test_support::SequentialKeyHashes(n);
    for (uint32_t lines : {1u, 2u}) {
      const auto params =
          sstfilter::BlockedBloomParams::ForBitsPerKey(n, 10, lines);
      std::string bytes(params.SerializedSize(), '\0');
      sstfilter::BlockedBloomWriter(params,
                                    reinterpret_cast<uint8_t*>(bytes.data()))
          .AddBatch(keys.data(), keys.size());
      write("bloom_" + std::to_string(n) + "_" + std::to_string(lines), bytes);
    }
    for (uint32_t bits : {4u, 12u, 17u, 32u}) {
      std::string bytes;
      if (sstfilter::BuildStaticCuckoo(keys.data(), keys.size(), bits, &bytes)
              .ok()) {
        write("cuckoo_" + std::to_string(n) + "_" + std::to_string(bits),
              bytes);
      }
    }
  }
  // A grown (chained) dynamic filter with its stash in use.
  sstfilter::CuckooFilter grown;
  if (sstfilter::CuckooFilter::Create(8, 16, &grown).ok()) {
    for (uint64_t h : sstfilter::test_support::SequentialKeyHashes(300)) {
      (void)grown.Add(h);
    }
    write("cuckoo_chain", grown.Serialize());
  }
  std::printf("wrote %d seeds to %s\n", written, dir.c_str());
  return written > 0 ? 0 : 1;
}
