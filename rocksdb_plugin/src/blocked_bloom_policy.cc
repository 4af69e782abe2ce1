// sstfilter.BlockedBloom: a BlockedBloom filter (sstfilter/blocked_bloom.h)
// at the id's bits per key.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "filter_bits.h"
#include "id_grammar.h"
#include "policies.h"
#include "policy_base.h"

namespace sstfilter::rocksdb_plugin {
namespace {

using ROCKSDB_NAMESPACE::FilterBitsBuilder;
using ROCKSDB_NAMESPACE::FilterBuildingContext;
using ROCKSDB_NAMESPACE::FilterPolicy;
using RocksStatus = ROCKSDB_NAMESPACE::Status;

class BlockedBloomPolicy : public SstfilterPolicy {
 public:
  // lines_per_key 1 forces one cache line per key; 2, the default, takes
  // the layout that measured best for the bits/key (blocked_bloom.h).
  BlockedBloomPolicy(int64_t millibits, uint32_t lines_per_key)
      : SstfilterPolicy(millibits), lines_per_key_(lines_per_key) {}
  const char* Name() const override { return kBlockedBloomName; }
  std::string GetId() const override {
    return SstfilterPolicy::GetId() + (lines_per_key_ == 1 ? ":1" : "");
  }
  FilterBitsBuilder* GetBuilderWithContext(
      const FilterBuildingContext& context) const override {
    BuilderConfig config = Config(FilterKind::kBlockedBloom, context);
    config.lines_per_key = lines_per_key_;
    return NewBitsBuilder(config);
  }

 private:
  const uint32_t lines_per_key_;
};

}  // namespace

RocksStatus NewBlockedBloom(const std::vector<std::string_view>& fields,
                            std::unique_ptr<const FilterPolicy>* policy) {
  int64_t millibits;
  RocksStatus s = ParseBloomSizedFields(
      fields, 2, "<bits_per_key>[:<lines_per_key>]", &millibits);
  if (!s.ok()) return s;
  int lines_per_key = 2;
  if (fields.size() == 2 && (!ParseInt(fields[1], &lines_per_key) ||
                             (lines_per_key != 1 && lines_per_key != 2))) {
    return RocksStatus::InvalidArgument(
        "lines_per_key \"" + std::string(fields[1]) + "\" is not 1 or 2");
  }
  policy->reset(
      new BlockedBloomPolicy(millibits, static_cast<uint32_t>(lines_per_key)));
  return s;
}

}  // namespace sstfilter::rocksdb_plugin
