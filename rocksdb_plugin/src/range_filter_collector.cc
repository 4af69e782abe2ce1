// sstfilter.RangeFilter: a TablePropertiesCollectorFactory whose collectors
// put every user key of a new SST into a range filter (filter/'s
// RangeFilterBuilder) and write its bytes as one user property.
#include "range_filter_collector.h"

#include <charconv>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "rocksdb/table_properties.h"
#include "rocksdb/utilities/options_type.h"
#include "sstfilter/range_filter.h"
#include "sstfilter/range_filter_rocksdb.h"

namespace sstfilter::rocksdb_plugin {
namespace {

using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::EntryType;
using ROCKSDB_NAMESPACE::OptionType;
using ROCKSDB_NAMESPACE::OptionTypeFlags;
using ROCKSDB_NAMESPACE::OptionTypeInfo;
using ROCKSDB_NAMESPACE::OptionVerificationType;
using ROCKSDB_NAMESPACE::SequenceNumber;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::TablePropertiesCollector;
using ROCKSDB_NAMESPACE::TablePropertiesCollectorFactory;
using ROCKSDB_NAMESPACE::UserCollectedProperties;
using RocksStatus = ROCKSDB_NAMESPACE::Status;

RocksStatus Validate(const RangeFilterOptions& options) {
  const Status s = RangeFilterBuilder::ValidateOptions(
      options.bits_per_key, {options.prefix_bytes, options.int_bytes});
  if (s.ok()) return RocksStatus::OK();
  return RocksStatus::InvalidArgument(std::string(kRangeFilterName) + ": " +
                                      s.message());
}

class RangeFilterCollector : public TablePropertiesCollector {
 public:
  explicit RangeFilterCollector(const RangeFilterOptions& options)
      : builder_(options.bits_per_key,
                 {options.prefix_bytes, options.int_bytes}),
        property_(RangeFilterPropertyName(options)) {}

  // Every entry type: a delete, single delete or merge hidden by a skipped
  // file would bring an older version back. A range deletion comes with
  // its start key (RocksDB applies it whatever table_filter says; its key
  // is kept all the same).
  RocksStatus AddUserKey(const Slice& key, const Slice& /*value*/,
                         EntryType /*type*/, SequenceNumber /*seq*/,
                         uint64_t /*file_size*/) override {
    builder_.AddKey(std::string_view(key.data(), key.size()));
    return RocksStatus::OK();
  }

  RocksStatus Finish(UserCollectedProperties* properties) override {
    std::string bytes;
    const Status s = builder_.Finish(&bytes);
    // Without the property the SST file is read as usual.
    if (!s.ok()) return RocksStatus::Aborted(kRangeFilterName, s.message());
    (*properties)[property_] = std::move(bytes);
    return RocksStatus::OK();
  }

  UserCollectedProperties GetReadableProperties() const override { return {}; }
  const char* Name() const override { return kRangeFilterName; }

 private:
  RangeFilterBuilder builder_;
  std::string property_;
};

// Writes no property: the collector of a factory whose options were
// refused, if RocksDB made one anyway.
class NoRangeFilterCollector : public TablePropertiesCollector {
 public:
  RocksStatus Finish(UserCollectedProperties* /*properties*/) override {
    return RocksStatus::OK();
  }
  RocksStatus AddUserKey(const Slice& /*key*/, const Slice& /*value*/,
                         EntryType /*type*/, SequenceNumber /*seq*/,
                         uint64_t /*file_size*/) override {
    return RocksStatus::OK();
  }
  UserCollectedProperties GetReadableProperties() const override { return {}; }
  const char* Name() const override { return kRangeFilterName; }
};

const std::unordered_map<std::string, OptionTypeInfo>&
RangeFilterOptionsInfo() {
  static const std::unordered_map<std::string, OptionTypeInfo> info = {
      {"bits_per_key",
       {offsetof(RangeFilterOptions, bits_per_key), OptionType::kDouble,
        OptionVerificationType::kNormal, OptionTypeFlags::kNone}},
      {"prefix_bytes",
       {offsetof(RangeFilterOptions, prefix_bytes), OptionType::kUInt32T,
        OptionVerificationType::kNormal, OptionTypeFlags::kNone}},
      {"int_bytes",
       {offsetof(RangeFilterOptions, int_bytes), OptionType::kUInt32T,
        OptionVerificationType::kNormal, OptionTypeFlags::kNone}},
  };
  return info;
}

class RangeFilterCollectorFactory : public TablePropertiesCollectorFactory {
 public:
  explicit RangeFilterCollectorFactory(const RangeFilterOptions& options)
      : options_(options) {
    RegisterOptions("RangeFilterOptions", &options_, &RangeFilterOptionsInfo());
  }

  TablePropertiesCollector* CreateTablePropertiesCollector(
      TablePropertiesCollectorFactory::Context /*context*/) override {
    if (!Validate(options_).ok()) return new NoRangeFilterCollector();
    return new RangeFilterCollector(options_);
  }
  const char* Name() const override { return kRangeFilterName; }
  // Options strings and OPTIONS files set the options here; RocksDB calls
  // neither PrepareOptions nor ValidateOptions on the elements of
  // table_properties_collectors (OptionTypeInfo::Vector), so a value out
  // of range is refused here, and the parse fails with it.
  // Nor can a second sstfilter.RangeFilter in the list be refused (7.8.3
  // and 11.8.1 alike): DB::Open validates a column family's options
  // (ValidateOptionsByTable, db/db_impl/db_impl_open.cc) through
  // Configurable::ValidateOptions (options/configurable.cc), which visits
  // only options that are Configurable or have a validate function
  // (OptionTypeInfo::ShouldValidate, rocksdb/utilities/options_type.h);
  // table_properties_collectors is a Vector with neither
  // (options/cf_options.cc), a factory is parsed apart from its siblings
  // (ParseVector), and CreateTablePropertiesCollector's Context names none.
  // So each collector writes under a name of its options
  // (RangeFilterPropertyName) and both filters are kept and read.
  RocksStatus ConfigureOptions(
      const ConfigOptions& config_options,
      const std::unordered_map<std::string, std::string>& options,
      std::unordered_map<std::string, std::string>* unused) override {
    const RocksStatus s = TablePropertiesCollectorFactory::ConfigureOptions(
        config_options, options, unused);
    if (!s.ok()) return s;
    return Validate(options_);
  }
  std::string ToString() const override {
    return std::string(kRangeFilterName) +
           " bits_per_key=" + std::to_string(options_.bits_per_key) +
           " prefix_bytes=" + std::to_string(options_.prefix_bytes) +
           " int_bytes=" + std::to_string(options_.int_bytes);
  }

 private:
  RangeFilterOptions options_;
};

}  // namespace

void RegisterRangeFilterCollector(ROCKSDB_NAMESPACE::ObjectLibrary& library) {
  library.AddFactory<TablePropertiesCollectorFactory>(
      kRangeFilterName,
      [](const std::string& /*id*/,
         std::unique_ptr<TablePropertiesCollectorFactory>* guard,
         std::string* /*errmsg*/) {
        guard->reset(new RangeFilterCollectorFactory(RangeFilterOptions()));
        return guard->get();
      });
  // After it (a library takes the first pattern that matches): any other
  // "sstfilter." id is an error. Without a factory it would be NotSupported,
  // which RocksDB's default ignore_unsupported_options drops from the list
  // (ParseVector, rocksdb/utilities/options_type.h): a misspelled id would
  // leave the column family silently without range filters.
  library.AddFactory<TablePropertiesCollectorFactory>(
      ROCKSDB_NAMESPACE::ObjectLibrary::PatternEntry("sstfilter")
          .AddSeparator(".", false),
      [](const std::string& id,
         std::unique_ptr<TablePropertiesCollectorFactory>* guard,
         std::string* errmsg) -> TablePropertiesCollectorFactory* {
        guard->reset();
        *errmsg = id + ": unknown table properties collector; sstfilter's is " +
                  kRangeFilterName;
        return nullptr;
      });
}

}  // namespace sstfilter::rocksdb_plugin

namespace sstfilter {

std::string RangeFilterPropertyName(const RangeFilterOptions& options) {
  const RangeFilterOptions defaults;
  if (options.bits_per_key == defaults.bits_per_key &&
      options.prefix_bytes == defaults.prefix_bytes &&
      options.int_bytes == defaults.int_bytes) {
    return kRangeFilterProperty;
  }
  // The shortest decimal that reads back as the same double.
  char bits[32];
  const auto written =
      std::to_chars(bits, bits + sizeof(bits), options.bits_per_key);
  return std::string(kRangeFilterProperty) + ":" +
         std::string(bits, written.ptr) + ":" +
         std::to_string(options.prefix_bytes) + ":" +
         std::to_string(options.int_bytes);
}

bool IsRangeFilterProperty(std::string_view name) {
  const std::string_view base = kRangeFilterProperty;
  return name.substr(0, base.size()) == base &&
         (name.size() == base.size() || name[base.size()] == ':');
}

ROCKSDB_NAMESPACE::Status NewRangeFilterCollectorFactory(
    const RangeFilterOptions& options,
    std::shared_ptr<ROCKSDB_NAMESPACE::TablePropertiesCollectorFactory>*
        factory) {
  const ROCKSDB_NAMESPACE::Status s = rocksdb_plugin::Validate(options);
  if (!s.ok()) return s;
  *factory =
      std::make_shared<rocksdb_plugin::RangeFilterCollectorFactory>(options);
  return s;
}

}  // namespace sstfilter
