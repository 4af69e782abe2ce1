// LevelAware's three choices and the cost model each allocates with
// (sstfilter/level_allocation.h states the model): which kinds a level may
// get, their bits/key -> FPR curves, their measured build CPU, and the
// build CPU cap. RocksDB's FastLocalBloom and Standard128Ribbon enter as
// curves taken from RocksDB's own builders and are built by RocksDB's own
// policies (NewBloomFilterPolicy, NewRibbonFilterPolicy); nothing of
// RocksDB's filters is reimplemented here.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "sstfilter/level_allocation.h"

namespace sstfilter::rocksdb_plugin {

enum class LevelAwareChoice {
  // Fewest wasted reads at the average bits/key, with filter build CPU no
  // more than uniform ribbonfilter's (Bloom for flushes, Ribbon below) at
  // the same memory. All four kinds.
  kDefault,
  // Our kinds and FastLocalBloom only, build CPU no more than 1.2x uniform
  // bloomfilter's at the same bits/key.
  kCpuLean,
  // RocksDB's formats only (FastLocalBloom and Ribbon), so that a RocksDB
  // without the plugin reads every filter; the default's CPU cap.
  kPortable,
};

// "default", "cpu_lean", "portable": the id's field.
const char* LevelAwareChoiceName(LevelAwareChoice choice);
bool ParseLevelAwareChoice(std::string_view text, LevelAwareChoice* choice);

// The cost model of `choice` for a tree of `num_levels` levels growing by
// `size_ratio`, at `average_bits_per_key`: its kinds, and its CPU cap
// (the reference configuration's build CPU under the same model).
LevelCostModel CostModelFor(LevelAwareChoice choice,
                            double average_bits_per_key, double size_ratio,
                            uint32_t num_levels);

// The curve of RocksDB's FastLocalBloom or Standard128Ribbon: bits/key
// from its builder's CalculateSpace and FPR from its EstimatedFpRate, for
// 2^20 keys, over a grid of the policy's bits/key (Bloom-equivalent for
// Ribbon). Sampled once per process.
const std::vector<FilterChoice>& RocksdbKindPoints(FilterKind kind);

}  // namespace sstfilter::rocksdb_plugin
