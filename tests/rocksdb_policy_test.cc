// The policies as RocksDB configures them: ids, options strings, OPTIONS
// round trips, bad values, and which filter each policy builds.
#include <gtest/gtest.h>

#include <climits>
#include <string>
#include <vector>

#include "rocksdb/convenience.h"
#include "rocksdb/table.h"
#include "rocksdb_test_support.h"
#include "sstfilter/blocked_bloom.h"
#include "sstfilter/cuckoo_filter.h"
#include "sstfilter/format.h"

namespace sstfilter::test_support {
namespace {

std::shared_ptr<const rdb::FilterPolicy> MustMake(const std::string& value) {
  std::shared_ptr<const rdb::FilterPolicy> policy;
  const rdb::Status s = MakePolicy(value, &policy);
  EXPECT_TRUE(s.ok()) << value << ": " << s.ToString();
  EXPECT_NE(policy, nullptr) << value;
  return policy;
}

// Kind and (for cuckoo) fingerprint width of a filter `policy` builds.
FilterKind KindBuilt(const rdb::FilterPolicy& policy,
                     const rdb::FilterBuildingContext& context,
                     uint32_t* fingerprint_bits = nullptr) {
  const BuiltFilter filter = BuildFilter(policy, Keys("k", 1000), context);
  FilterKind kind{};
  uint8_t version = 0;
  EXPECT_TRUE(PeekFormat(filter.bytes.ToStringView(), &kind, &version).ok());
  if (fingerprint_bits != nullptr && kind == FilterKind::kCuckoo) {
    CuckooView view;
    EXPECT_TRUE(CuckooView::Parse(filter.bytes.ToStringView(), &view).ok());
    *fingerprint_bits = view.fingerprint_bits();
  }
  return kind;
}

FilterKind KindBuilt(const rdb::FilterPolicy& policy,
                     uint32_t* fingerprint_bits = nullptr) {
  rdb::BlockBasedTableOptions table_options;
  return KindBuilt(policy, rdb::FilterBuildingContext(table_options),
                   fingerprint_bits);
}

TEST(RocksdbPolicy, EachIdCreatesItsPolicyWithCanonicalId) {
  const struct {
    const char* value;
    const char* name;
    const char* id;
    FilterKind kind;
  } cases[] = {
      {"sstfilter.BlockedBloom:10", "sstfilter.BlockedBloom",
       "sstfilter.BlockedBloom:10", FilterKind::kBlockedBloom},
      {"sstfilter.BlockedBloom:9.9", "sstfilter.BlockedBloom",
       "sstfilter.BlockedBloom:9.9", FilterKind::kBlockedBloom},
      {"sstfilter.BlockedBloom:6.6670", "sstfilter.BlockedBloom",
       "sstfilter.BlockedBloom:6.667", FilterKind::kBlockedBloom},
      {"sstfilter.BlockedBloom:9.9996", "sstfilter.BlockedBloom",
       "sstfilter.BlockedBloom:10", FilterKind::kBlockedBloom},
      {"sstfilter.BlockedBloom:10:1", "sstfilter.BlockedBloom",
       "sstfilter.BlockedBloom:10:1", FilterKind::kBlockedBloom},
      {"sstfilter.BlockedBloom:10:2", "sstfilter.BlockedBloom",
       "sstfilter.BlockedBloom:10", FilterKind::kBlockedBloom},
      {"sstfilter.Cuckoo:12", "sstfilter.Cuckoo", "sstfilter.Cuckoo:12",
       FilterKind::kCuckoo},
      {"sstfilter.Cuckoo:16.5", "sstfilter.Cuckoo", "sstfilter.Cuckoo:16.5",
       FilterKind::kCuckoo},
      // Default table options: a context of unknown level, treated as the
      // last level, so the hybrid builds Cuckoo.
      {"sstfilter.Hybrid:10", "sstfilter.Hybrid", "sstfilter.Hybrid:10:0",
       FilterKind::kCuckoo},
      {"sstfilter.Hybrid:10:1", "sstfilter.Hybrid", "sstfilter.Hybrid:10:1",
       FilterKind::kCuckoo},
      {"sstfilter.Hybrid:10:-1", "sstfilter.Hybrid", "sstfilter.Hybrid:10:-1",
       FilterKind::kCuckoo},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.value);
    const auto policy = MustMake(c.value);
    if (policy == nullptr) continue;
    EXPECT_STREQ(policy->Name(), c.name);
    EXPECT_EQ(policy->GetId(), c.id);
    EXPECT_STREQ(policy->CompatibilityName(), "rocksdb.BuiltinBloomFilter");
    EXPECT_EQ(KindBuilt(*policy), c.kind);
    // The id is what OPTIONS files store: it must recreate the policy.
    EXPECT_EQ(MustMake(policy->GetId())->GetId(), policy->GetId());
  }
}

// lines_per_key 1 builds one line per key with the probes measured best for
// one line; the default takes the best layout, two lines at 10 bits/key.
TEST(RocksdbPolicy, LinesPerKeyPicksTheLayout) {
  const struct {
    const char* id;
    double bits_per_key;
    uint32_t lines_per_key;
  } cases[] = {{"sstfilter.BlockedBloom:10", 10, 2},
               {"sstfilter.BlockedBloom:10:2", 10, 2},
               {"sstfilter.BlockedBloom:10:1", 10, 1},
               {"sstfilter.BlockedBloom:16:1", 16, 1}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.id);
    const auto policy = MustMake(c.id);
    const BuiltFilter filter = BuildFilter(*policy, Keys("k", 5000));
    BlockedBloomView view;
    ASSERT_TRUE(
        BlockedBloomView::Parse(filter.bytes.ToStringView(), &view).ok());
    const BlockedBloomParams expected = BlockedBloomParams::ForBitsPerKey(
        5000, c.bits_per_key, c.lines_per_key);
    EXPECT_EQ(view.params().lines_per_key, c.lines_per_key);
    EXPECT_EQ(view.params().num_probes, expected.num_probes);
    EXPECT_EQ(view.params().num_lines, expected.num_lines);
  }
  for (const char* bad :
       {"sstfilter.BlockedBloom:10:0", "sstfilter.BlockedBloom:10:3",
        "sstfilter.BlockedBloom:10:x", "sstfilter.BlockedBloom:10:1:1"}) {
    std::shared_ptr<const rdb::FilterPolicy> policy;
    const rdb::Status s = MakePolicy(bad, &policy);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad << ": " << s.ToString();
  }
}

TEST(RocksdbPolicy, BadValuesAreInvalidArgument) {
  const char* bad[] = {
      "sstfilter.BlockedBloom",
      "sstfilter.BlockedBloom:",
      "sstfilter.BlockedBloom:abc",
      "sstfilter.BlockedBloom:-3",
      "sstfilter.BlockedBloom:0",
      "sstfilter.BlockedBloom:0.5",
      "sstfilter.BlockedBloom:100.001",
      "sstfilter.BlockedBloom:1e1",
      "sstfilter.BlockedBloom:10.",
      "sstfilter.BlockedBloom:.5",
      "sstfilter.BlockedBloom: 10",
      "sstfilter.BlockedBloom:10:1:2",
      "sstfilter.BlockedBloom:99999999999999999999",
      "sstfilter.Cuckoo:abc",
      "sstfilter.Cuckoo:-1",
      "sstfilter.Cuckoo:nan",
      "sstfilter.Cuckoo:inf",
      "sstfilter.Cuckoo:4",      // below the 6.251 bits/key of 6-bit ones
      "sstfilter.Cuckoo:4.167",  // 4-bit fingerprints: never chosen
      "sstfilter.Cuckoo:6.25",
      "sstfilter.Cuckoo:33.335",  // above what 32-bit fingerprints use
      "sstfilter.Cuckoo:100",
      "sstfilter.Hybrid:40:1",
      "sstfilter.Hybrid:6:1",
      "sstfilter.Cuckoo:12:1",
      "sstfilter.Hybrid:10:x",
      "sstfilter.Hybrid:10:-2",
      "sstfilter.Hybrid:10:1.5",
      "sstfilter.Hybrid:10:1:2",
      "sstfilter.Hybrid:-10:1",
      "id=sstfilter.Cuckoo:12;fingerprint_bits=3",
      "id=sstfilter.Cuckoo:12;fingerprint_bits=33",
      "id=sstfilter.Cuckoo:12;fingerprint_bits=-1",
      "id=sstfilter.Cuckoo:12;fingerprint_bits=abc",
      "id=sstfilter.Cuckoo:12;fingerprint_bits=",
      "id=sstfilter.Cuckoo:12;no_such_option=1",
      "id=sstfilter.Hybrid:12;no_such_option=1",
      "id=sstfilter.BlockedBloom:10;fingerprint_bits=16",
      // Unknown names in our namespace: without our catch-all factory,
      // NotSupported, which CreateFromString turns into OK and no policy.
      "sstfilter.Cukoo:12",
      "sstfilter.blockedbloom:10",
      "sstfilter.Bloom",
      "sstfilter.",  // an empty name (found by sstfilter_options_fuzzer)
      "sstfilter",
      "id=sstfilter.Cukoo:12;fingerprint_bits=16",
      // The family is RocksDB's or the old one, nothing else.
      "id=sstfilter.BlockedBloom:10;compatibility_name=",
      "id=sstfilter.BlockedBloom:10;compatibility_name=rocksdb",
      "id=sstfilter.LevelAware:10;compatibility_name=sstfilter.BlockedBloom",
  };
  for (const char* value : bad) {
    std::shared_ptr<const rdb::FilterPolicy> policy;
    const rdb::Status s = MakePolicy(value, &policy);
    EXPECT_TRUE(s.IsInvalidArgument()) << value << " -> " << s.ToString();
  }
}

// A bad id leaves no policy. A bad option is different: RocksDB's
// CreateFromString keeps the object it made before the option failed, so
// that object must refuse to be used, or an OPTIONS file (whose parser
// ignores the error) would run it without the option: with the automatic
// width for a bad fingerprint_bits, as if never given for an unknown
// (misspelled) option.
TEST(RocksdbPolicy, BadIdLeavesNoPolicyAndBadOptionLeavesOneThatFailsOpen) {
  for (const char* value : {"sstfilter.Cuckoo:100", "sstfilter.Cukoo:12",
                            "sstfilter.Hybrid:10:x", "sstfilter."}) {
    std::shared_ptr<const rdb::FilterPolicy> policy;
    EXPECT_TRUE(MakePolicy(value, &policy).IsInvalidArgument()) << value;
    EXPECT_EQ(policy, nullptr) << value;
  }
  const struct {
    const char* value;
    const char* option;  // named by the error
  } bad_options[] = {
      {"id=sstfilter.Cuckoo:12;fingerprint_bits=3", "fingerprint_bits"},
      {"id=sstfilter.Cuckoo:12;fingerprint_bits=33", "fingerprint_bits"},
      {"id=sstfilter.Hybrid:12:1;fingerprint_bits=abc", "fingerprint_bits"},
      // Unknown options, each policy (found by sstfilter_options_fuzzer).
      {"id=sstfilter.Cuckoo:12;fingerprint_bitz=16", "fingerprint_bitz"},
      {"id=sstfilter.Hybrid:12;no_such_option=1", "no_such_option"},
      {"id=sstfilter.BlockedBloom:10;fingerprint_bits=16", "fingerprint_bits"},
      {"id=sstfilter.LevelAware:10;no_such_option=1", "no_such_option"},
  };
  for (const auto& bad : bad_options) {
    SCOPED_TRACE(bad.value);
    std::shared_ptr<const rdb::FilterPolicy> policy;
    const rdb::Status made = MakePolicy(bad.value, &policy);
    EXPECT_TRUE(made.IsInvalidArgument()) << made.ToString();
    if (policy == nullptr) continue;  // a RocksDB that cleans up: fine
    // (RocksDB has restored the previous values after the error.)
    const rdb::Status validated =
        policy->ValidateOptions(rdb::DBOptions(), rdb::ColumnFamilyOptions());
    EXPECT_TRUE(validated.IsInvalidArgument()) << validated.ToString();
    EXPECT_NE(validated.ToString().find(bad.option), std::string::npos)
        << validated.ToString();
    EXPECT_TRUE(const_cast<rdb::FilterPolicy&>(*policy)
                    .PrepareOptions(rdb::ConfigOptions())
                    .IsInvalidArgument());
  }
}

// bloom_before_level above the column family's num_levels would silently
// mean "Bloom for all but the bottommost files": DB::Open's validation
// refuses it, and takes -1..num_levels.
TEST(RocksdbPolicy, HybridLevelIsValidatedAgainstNumLevels) {
  rdb::ColumnFamilyOptions cf;
  cf.num_levels = 7;
  for (const char* value : {"sstfilter.Hybrid:10:-1", "sstfilter.Hybrid:10:0",
                            "sstfilter.Hybrid:10:7"}) {
    const rdb::Status s =
        MustMake(value)->ValidateOptions(rdb::DBOptions(), cf);
    EXPECT_TRUE(s.ok()) << value << " -> " << s.ToString();
  }
  for (const char* value :
       {"sstfilter.Hybrid:10:8", "sstfilter.Hybrid:10:99"}) {
    const rdb::Status s =
        MustMake(value)->ValidateOptions(rdb::DBOptions(), cf);
    EXPECT_TRUE(s.IsInvalidArgument()) << value << " -> " << s.ToString();
    EXPECT_NE(s.ToString().find("num_levels 7"), std::string::npos)
        << s.ToString();
  }
}

// Every policy's filter stays within its bits/key budget, up to the
// documented tolerance (rocksdb_plugin.h): 1% (a retried cuckoo build) plus
// the fixed cost of the filter, taken as its one-key filter's bytes.
TEST(RocksdbPolicy, FilterStaysWithinBitsPerKeyBudget) {
  const char* policies[] = {
      "sstfilter.BlockedBloom:1",  "sstfilter.BlockedBloom:4.5",
      "sstfilter.BlockedBloom:10", "sstfilter.BlockedBloom:100",
      "sstfilter.Cuckoo:6.251",    "sstfilter.Cuckoo:7",
      "sstfilter.Cuckoo:10",       "sstfilter.Cuckoo:12.5",
      "sstfilter.Cuckoo:16",       "sstfilter.Cuckoo:33.334",
  };
  for (const char* value : policies) {
    const auto policy = MustMake(value);
    const double budget =
        std::stod(std::string(value).substr(std::string(value).find(':') + 1));
    const size_t fixed = BuildFilter(*policy, Keys("k", 1)).bytes.size();
    for (size_t n : {1000, 10000, 100000, 300000}) {
      SCOPED_TRACE(std::string(value) + " n=" + std::to_string(n));
      const size_t bytes = BuildFilter(*policy, Keys("k", n)).bytes.size();
      EXPECT_LE(static_cast<double>(bytes),
                static_cast<double>(n) * budget / 8.0 * 1.01 +
                    static_cast<double>(fixed));
    }
  }
}

// Through a table options string the error reaches the caller as long as
// the strings are not "escaped". With ConfigOptions::input_strings_escaped
// (the default, and how OPTIONS files are read) RocksDB's
// BlockBasedTableFactory::ParseOption turns any filter_policy error into OK
// and leaves the policy unset, for its own "bloomfilter:abc" too.
TEST(RocksdbPolicy, BadValueInTableOptionsStringIsInvalidArgument) {
  RegisterPolicies();
  rdb::ConfigOptions strict;
  strict.input_strings_escaped = false;
  // What the overload without ConfigOptions used (removed in RocksDB 10).
  rdb::ConfigOptions legacy = strict;
  legacy.ignore_unknown_options = false;
  legacy.invoke_prepare_options = false;
  legacy.ignore_unsupported_options = false;
  rdb::BlockBasedTableOptions base;
  rdb::BlockBasedTableOptions out;
  for (const char* value :
       {"filter_policy=sstfilter.Cuckoo:abc",
        "filter_policy=sstfilter.BlockedBloom:-1",
        "filter_policy={id=sstfilter.Cuckoo:12;fingerprint_bits=99}",
        "filter_policy={id=sstfilter.BlockedBloom:10;unknown=1}"}) {
    rdb::Status s =
        rdb::GetBlockBasedTableOptionsFromString(strict, base, value, &out);
    EXPECT_TRUE(s.IsInvalidArgument()) << value << " -> " << s.ToString();
    s = rdb::GetBlockBasedTableOptionsFromString(legacy, base, value, &out);
    EXPECT_TRUE(s.IsInvalidArgument()) << value << " -> " << s.ToString();
  }
}

// The rule of rocksdb_plugin.h: the widest f whose filter fits the budget.
TEST(RocksdbPolicy, CuckooPicksWidestFingerprintWithinBitsPerKey) {
  constexpr uint64_t kKeys = uint64_t{1} << 20;
  auto bits_per_key = [&](uint32_t f) {
    return static_cast<double>(StaticCuckooBytes(kKeys, f)) * 8.0 / kKeys;
  };
  const struct {
    const char* bits;
    uint32_t expected;
  } cases[] = {{"6.3", 6}, {"9.9", 9}, {"10", 9},     {"12", 11},
               {"16", 15}, {"20", 19}, {"33.334", 32}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.bits);
    const double budget = std::stod(c.bits);
    uint32_t fingerprint_bits = 0;
    ASSERT_EQ(KindBuilt(*MustMake(std::string("sstfilter.Cuckoo:") + c.bits),
                        &fingerprint_bits),
              FilterKind::kCuckoo);
    EXPECT_EQ(fingerprint_bits, c.expected);
    EXPECT_LE(bits_per_key(fingerprint_bits), budget);
    if (fingerprint_bits < CuckooLimits::kMaxFingerprintBits) {
      EXPECT_GT(bits_per_key(fingerprint_bits + 1), budget);
    }
  }
}

TEST(RocksdbPolicy, ExplicitFingerprintBitsOverrideAndRoundTrip) {
  const auto policy = MustMake("id=sstfilter.Cuckoo:12;fingerprint_bits=16");
  ASSERT_NE(policy, nullptr);
  EXPECT_EQ(policy->GetId(), "sstfilter.Cuckoo:12");
  const rdb::ConfigOptions config;
  std::string value;
  ASSERT_TRUE(policy->GetOption(config, "fingerprint_bits", &value).ok());
  EXPECT_EQ(value, "16");
  uint32_t fingerprint_bits = 0;
  EXPECT_EQ(KindBuilt(*policy, &fingerprint_bits), FilterKind::kCuckoo);
  EXPECT_EQ(fingerprint_bits, 16u);

  // The serialized form (what an OPTIONS file holds) recreates it.
  const std::string serialized = policy->ToString(config);
  EXPECT_EQ(serialized,
            "{id=sstfilter.Cuckoo:12;compatibility_name=rocksdb."
            "BuiltinBloomFilter;fingerprint_bits=16;}");
  const auto again =
      MustMake(serialized.substr(1, serialized.size() - 2));  // no braces
  ASSERT_NE(again, nullptr);
  std::string mismatch;
  EXPECT_TRUE(policy->AreEquivalent(config, again.get(), &mismatch))
      << mismatch;
  fingerprint_bits = 0;
  KindBuilt(*again, &fingerprint_bits);
  EXPECT_EQ(fingerprint_bits, 16u);

  // The hybrid takes the same option for its cuckoo filters.
  const auto hybrid = MustMake("id=sstfilter.Hybrid:12:-1;fingerprint_bits=8");
  ASSERT_NE(hybrid, nullptr);
  fingerprint_bits = 0;
  EXPECT_EQ(KindBuilt(*hybrid, &fingerprint_bits), FilterKind::kCuckoo);
  EXPECT_EQ(fingerprint_bits, 8u);
}

TEST(RocksdbPolicy, TableOptionsStringsRoundTrip) {
  RegisterPolicies();
  const rdb::ConfigOptions config;
  for (const char* value :
       {"filter_policy=sstfilter.BlockedBloom:9.9",
        "filter_policy=sstfilter.Cuckoo:12",
        "filter_policy={id=sstfilter.Cuckoo:12;fingerprint_bits=16}",
        "filter_policy=sstfilter.Hybrid:10:1"}) {
    SCOPED_TRACE(value);
    rdb::BlockBasedTableOptions base;
    rdb::BlockBasedTableOptions parsed;
    ASSERT_TRUE(
        rdb::GetBlockBasedTableOptionsFromString(config, base, value, &parsed)
            .ok());
    ASSERT_NE(parsed.filter_policy, nullptr);
    std::unique_ptr<rdb::TableFactory> factory(
        rdb::NewBlockBasedTableFactory(parsed));
    std::string serialized;
    ASSERT_TRUE(factory->GetOptionString(config, &serialized).ok());
    rdb::BlockBasedTableOptions reparsed;
    ASSERT_TRUE(rdb::GetBlockBasedTableOptionsFromString(config, base,
                                                         serialized, &reparsed)
                    .ok());
    ASSERT_NE(reparsed.filter_policy, nullptr);
    EXPECT_EQ(reparsed.filter_policy->GetId(), parsed.filter_policy->GetId());
    std::string mismatch;
    EXPECT_TRUE(parsed.filter_policy->AreEquivalent(
        config, reparsed.filter_policy.get(), &mismatch))
        << mismatch;
  }
}

rdb::FilterBuildingContext Context(
    const rdb::BlockBasedTableOptions& table,
    rdb::TableFileCreationReason reason, int level, bool bottommost,
    rdb::CompactionStyle style = rdb::kCompactionStyleLevel) {
  rdb::FilterBuildingContext context(table);
  context.compaction_style = style;
  context.reason = reason;
  context.level_at_creation = level;
  context.is_bottommost = bottommost;
  context.num_levels = 7;
  return context;
}

TEST(RocksdbPolicy, HybridChoosesFilterByLevelLikeRibbon) {
  using Reason = rdb::TableFileCreationReason;
  const rdb::BlockBasedTableOptions table;
  const auto bloom = FilterKind::kBlockedBloom;
  const auto cuckoo = FilterKind::kCuckoo;
  const struct {
    const char* policy;
    rdb::FilterBuildingContext context;
    FilterKind expected;
  } cases[] = {
      // Default bloom_before_level 0: Bloom for flushes only.
      {"sstfilter.Hybrid:10", Context(table, Reason::kFlush, 0, false), bloom},
      {"sstfilter.Hybrid:10", Context(table, Reason::kCompaction, 0, false),
       cuckoo},
      // bloom_before_level 2: flushes, L0 and L1 get Bloom.
      {"sstfilter.Hybrid:10:2", Context(table, Reason::kFlush, 0, false),
       bloom},
      {"sstfilter.Hybrid:10:2", Context(table, Reason::kCompaction, 0, false),
       bloom},
      {"sstfilter.Hybrid:10:2", Context(table, Reason::kCompaction, 1, false),
       bloom},
      {"sstfilter.Hybrid:10:2", Context(table, Reason::kCompaction, 2, false),
       cuckoo},
      // Bottommost output is always Cuckoo.
      {"sstfilter.Hybrid:10:2", Context(table, Reason::kCompaction, 1, true),
       cuckoo},
      // Unknown level (SstFileWriter) and FIFO count as the last level.
      {"sstfilter.Hybrid:10:2", Context(table, Reason::kMisc, -1, false),
       cuckoo},
      {"sstfilter.Hybrid:10:2",
       Context(table, Reason::kCompaction, 0, false, rdb::kCompactionStyleFIFO),
       cuckoo},
      {"sstfilter.Hybrid:10:2",
       Context(table, Reason::kFlush, 0, false, rdb::kCompactionStyleUniversal),
       bloom},
      // -1: always Cuckoo; num_levels: Bloom unless bottommost or unknown.
      {"sstfilter.Hybrid:10:-1", Context(table, Reason::kFlush, 0, false),
       cuckoo},
      {"sstfilter.Hybrid:10:7", Context(table, Reason::kCompaction, 6, false),
       bloom},
      {"sstfilter.Hybrid:10:7", Context(table, Reason::kCompaction, 6, true),
       cuckoo},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.policy) + " level " +
                 std::to_string(c.context.level_at_creation));
    EXPECT_EQ(KindBuilt(*MustMake(c.policy), c.context), c.expected);
  }
}

// One family with RocksDB's filters: every policy of ours has the
// CompatibilityName of RocksDB's Bloom and Ribbon policies, so RocksDB
// finds an SST's filter block whichever of them wrote it.
TEST(RocksdbPolicy, PoliciesShareRocksDbsBuiltinFamily) {
  std::shared_ptr<const rdb::FilterPolicy> bloom, ribbon;
  ASSERT_TRUE(MakePolicy("bloomfilter:10:false", &bloom).ok());
  ASSERT_TRUE(MakePolicy("ribbonfilter:10", &ribbon).ok());
  ASSERT_STREQ(bloom->CompatibilityName(), ribbon->CompatibilityName());
  for (const char* id : {"sstfilter.BlockedBloom:10", "sstfilter.Cuckoo:12",
                         "sstfilter.Hybrid:10:1", "sstfilter.LevelAware:10"}) {
    SCOPED_TRACE(id);
    EXPECT_STREQ(MustMake(id)->CompatibilityName(), bloom->CompatibilityName());
  }
}

// compatibility_name=sstfilter keeps the name of sstfilter 0.1 for DBs
// whose SSTs were written under it, and round-trips through the serialized
// options (what an OPTIONS file holds).
TEST(RocksdbPolicy, OldFamilyNameIsAnOptionThatRoundTrips) {
  const rdb::ConfigOptions config;
  for (const char* id : {"sstfilter.BlockedBloom:10", "sstfilter.Cuckoo:12",
                         "sstfilter.Hybrid:10:1", "sstfilter.LevelAware:10"}) {
    SCOPED_TRACE(id);
    const auto old_name =
        MustMake(std::string("id=") + id + ";compatibility_name=sstfilter");
    ASSERT_NE(old_name, nullptr);
    EXPECT_STREQ(old_name->CompatibilityName(), "sstfilter");
    const std::string serialized = old_name->ToString(config);
    EXPECT_NE(serialized.find("compatibility_name=sstfilter;"),
              std::string::npos)
        << serialized;
    const auto again = MustMake(serialized.substr(1, serialized.size() - 2));
    ASSERT_NE(again, nullptr);
    EXPECT_STREQ(again->CompatibilityName(), "sstfilter");
    std::string mismatch;
    EXPECT_TRUE(old_name->AreEquivalent(config, again.get(), &mismatch))
        << mismatch;
    // The default is RocksDB's family, and the two are not equivalent.
    const auto default_name = MustMake(id);
    EXPECT_FALSE(
        default_name->AreEquivalent(config, old_name.get(), &mismatch));
  }
}

}  // namespace
}  // namespace sstfilter::test_support
