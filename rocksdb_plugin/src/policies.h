// The policies' names and makers: each policy lives in its own file
// (BlockedBloom with the base of every policy in policy_base.cc;
// cuckoo_policy.cc, level_aware_policy.cc), and
// registration.cc registers each maker under its name. LevelAware's file
// also makes RocksDB's own policies for the levels it gives RocksDB's kinds
// (RocksdbPolicyFor).
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "rocksdb/filter_policy.h"
#include "rocksdb/listener.h"
#include "rocksdb/status.h"
#include "sstfilter/level_allocation.h"
#include "sstfilter/rocksdb_plugin.h"

namespace sstfilter::rocksdb_plugin {

inline constexpr char kBlockedBloomName[] = "sstfilter.BlockedBloom";
inline constexpr char kCuckooName[] = "sstfilter.Cuckoo";
inline constexpr char kHybridName[] = "sstfilter.Hybrid";
inline constexpr char kLevelAwareName[] = "sstfilter.LevelAware";
// The listener that shows LevelAware its DB (level_aware_listener.cc).
using sstfilter::kLevelAwareListenerName;

// Makes a policy from the id's fields after its name (id_grammar.h), or
// InvalidArgument saying what is wrong with them.
using PolicyMaker = ROCKSDB_NAMESPACE::Status (*)(
    const std::vector<std::string_view>& fields,
    std::unique_ptr<const ROCKSDB_NAMESPACE::FilterPolicy>* policy);

// sstfilter.BlockedBloom:<bits_per_key>[:<lines_per_key>]
ROCKSDB_NAMESPACE::Status NewBlockedBloom(
    const std::vector<std::string_view>& fields,
    std::unique_ptr<const ROCKSDB_NAMESPACE::FilterPolicy>* policy);
// sstfilter.Cuckoo:<bits_per_key>
ROCKSDB_NAMESPACE::Status NewCuckoo(
    const std::vector<std::string_view>& fields,
    std::unique_ptr<const ROCKSDB_NAMESPACE::FilterPolicy>* policy);
// sstfilter.Hybrid:<bits_per_key>[:<bloom_before_level>]
ROCKSDB_NAMESPACE::Status NewHybrid(
    const std::vector<std::string_view>& fields,
    std::unique_ptr<const ROCKSDB_NAMESPACE::FilterPolicy>* policy);
// sstfilter.LevelAware:<avg_bits_per_key>[:<size_ratio>][:<choice>]
ROCKSDB_NAMESPACE::Status NewLevelAware(
    const std::vector<std::string_view>& fields,
    std::unique_ptr<const ROCKSDB_NAMESPACE::FilterPolicy>* policy);

// The allocator of a sstfilter.LevelAware policy (its rule: what
// sstfilter-inspect --db prints), or null for another policy.
class LevelAwareAllocator;
const LevelAwareAllocator* LevelAwareAllocatorOf(
    const ROCKSDB_NAMESPACE::FilterPolicy& policy);

// RocksDB's own policy that builds a level of LevelAware's `choice` of
// kind FastLocalBloom or Ribbon: NewBloomFilterPolicy(millibits / 1000) or
// NewRibbonFilterPolicy(millibits / 1000, -1), Ribbon at every level (its
// fallback to Bloom under cache pressure included). One object per size,
// kept for the process's life: its builders refer to it.
std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> RocksdbPolicyFor(
    const FilterChoice& choice);

// A new sstfilter.LevelAwareListener.
std::unique_ptr<ROCKSDB_NAMESPACE::EventListener> MakeLevelAwareListener();

}  // namespace sstfilter::rocksdb_plugin
