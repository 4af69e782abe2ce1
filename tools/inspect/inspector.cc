#include "inspector.h"

#include <algorithm>
#include <cinttypes>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "output_format.h"
#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/utilities/object_registry.h"
#include "sstfilter/rocksdb_plugin.h"
#include "table/block_based/filter_policy_internal.h"

namespace sstfilter::inspect {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

const std::string kBytewiseComparator = "leveldb.BytewiseComparator";

// The same code with `where` in front of the message.
Status InContext(const Status& s, const std::string& where) {
  const std::string message = where + ": " + s.message();
  switch (s.code()) {
    case StatusCode::kNotSupported:
      return Status::NotSupported(message);
    case StatusCode::kNotFound:
      return Status::NotFound(message);
    case StatusCode::kInvalidArgument:
      return Status::InvalidArgument(message);
    default:
      return Status::Corruption(message);
  }
}

// The policy whose FilterBitsReader RocksDB would use on filters of
// `family`: ours, under either of its names, reads every filter of that
// family (in RocksDB's, its built-in kinds through RocksDB's own reader).
// Registered in a private registry, so the process's default ObjectLibrary
// is left alone.
const rdb::FilterPolicy* ReaderPolicy(const std::string& family) {
  static const auto policies = [] {
    rdb::ConfigOptions config;
    config.registry = rdb::ObjectRegistry::NewInstance();
    config.registry->AddLibrary("sstfilter", RegisterSstfilterPolicies, "");
    std::vector<std::shared_ptr<const rdb::FilterPolicy>> readers;
    for (const char* name :
         {kRocksdbFamilyCompatibilityName, kSstfilterCompatibilityName}) {
      std::shared_ptr<const rdb::FilterPolicy> policy;
      rdb::FilterPolicy::CreateFromString(
          config,
          std::string("id=sstfilter.BlockedBloom:10;compatibility_name=") +
              name,
          &policy)
          .PermitUncheckedError();
      if (policy != nullptr) readers.push_back(std::move(policy));
    }
    return readers;
  }();
  for (const auto& policy : policies) {
    if (family == policy->CompatibilityName()) return policy.get();
  }
  return nullptr;
}

// Why keys cannot be answered for this table, or "" if they can.
std::string WhyKeysUnanswerable(const FileReport& report) {
  const sst::Table& table = report.table;
  if (table.filter_layout == sst::FilterLayout::kNone) {
    return "this SST has no filter";
  }
  if (table.StringProperty("rocksdb.block.based.table.whole.key.filtering") ==
      "0") {
    return "the filter holds key prefixes only (prefix extractor " +
           table.StringProperty("rocksdb.prefix.extractor.name") + ")";
  }
  if (table.filter_layout == sst::FilterLayout::kPartitioned) {
    const std::string comparator = table.StringProperty("rocksdb.comparator");
    if (!comparator.empty() && comparator != kBytewiseComparator) {
      return "finding the partition needs " + kBytewiseComparator + ", not " +
             comparator;
    }
  }
  if (ReaderPolicy(table.compatibility_name) == nullptr) {
    return "no reader for filters of \"" + table.compatibility_name + "\"";
  }
  return "";
}

void AnswerKeys(const std::vector<std::string>& keys,
                const std::vector<std::string>& block_bytes,
                FileReport* report) {
  const std::string why_not = WhyKeysUnanswerable(*report);
  std::vector<std::unique_ptr<rdb::FilterBitsReader>> readers(
      block_bytes.size());
  for (const std::string& key : keys) {
    KeyAnswer answer;
    answer.key = key;
    if (!why_not.empty()) {
      answer.error = why_not;
      report->answers.push_back(std::move(answer));
      continue;
    }
    size_t block = 0;
    if (report->table.filter_layout == sst::FilterLayout::kPartitioned) {
      block = sst::PartitionFor(report->table.partitions, key);
      answer.partition = static_cast<int64_t>(block);
    }
    if (!readers[block]) {
      readers[block].reset(
          ReaderPolicy(report->table.compatibility_name)
              ->GetFilterBitsReader(rdb::Slice(block_bytes[block])));
    }
    if (!readers[block]) {
      answer.error = "the policy gave no reader for this block";
      report->answers.push_back(std::move(answer));
      continue;
    }
    answer.answered = true;
    answer.may_match = readers[block]->MayMatch(rdb::Slice(key));
    report->answers.push_back(std::move(answer));
  }
}

void Summarize(FileReport* report) {
  double occupancy_sum = 0, fpr_sum = 0;
  bool all_keys_known = true;
  uint64_t block_keys = 0;
  report->occupancy_name =
      report->blocks.empty() ? "" : report->blocks.front().occupancy_name;
  for (const sst::FilterBlockInfo& block : report->blocks) {
    report->filter_bytes += block.bytes;
    occupancy_sum += block.occupancy * static_cast<double>(block.bytes);
    fpr_sum += block.fpr * static_cast<double>(block.bytes);
    all_keys_known = all_keys_known && block.keys_known;
    block_keys += block.keys;
    if (block.occupancy_name != report->occupancy_name) {
      report->occupancy_name.clear();
    }
  }
  if (report->filter_bytes > 0) {
    const double bytes = static_cast<double>(report->filter_bytes);
    report->occupancy =
        report->occupancy_name.empty() ? 0 : occupancy_sum / bytes;
    report->fpr = fpr_sum / bytes;
  }
  const sst::Table& table = report->table;
  if (table.IntProperty("rocksdb.num.filter_entries", &report->keys) &&
      report->keys > 0) {
    report->keys_source = "num_filter_entries";
  } else if (table.IntProperty("rocksdb.num.entries", &report->keys) &&
             report->keys > 0) {
    report->keys_source = "num_entries";
  } else if (all_keys_known && !report->blocks.empty()) {
    report->keys = block_keys;
    report->keys_source = "filter";
  } else {
    report->keys = 0;
  }
  if (report->keys > 0) {
    report->bits_per_key = 8.0 * static_cast<double>(report->filter_bytes) /
                           static_cast<double>(report->keys);
  }
}

// ---- formatting ----

double BitsPerKey(const sst::FilterBlockInfo& block) {
  return block.keys > 0 ? 8.0 * static_cast<double>(block.bytes) /
                              static_cast<double>(block.keys)
                        : 0;
}

std::string Hex(const std::string& bytes) {
  std::string out;
  for (unsigned char c : bytes) out += Printf("%02x", c);
  return out;
}

// A key for the text output: printable ASCII as is, other bytes as \xNN.
std::string TextKey(const std::string& key, const PrintOptions& options) {
  if (options.hex_keys) return "0x" + Hex(key);
  std::string out = "\"";
  for (unsigned char c : key) {
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += Printf("\\x%02x", c);
    }
  }
  return out + "\"";
}

std::string JsonKey(const std::string& key, const PrintOptions& options) {
  return JsonString(options.hex_keys ? Hex(key) : key);
}

// Parameters shared by all blocks as "name=value", others "name=min..max".
std::vector<std::pair<std::string, std::string>> MergedParams(
    const std::vector<sst::FilterBlockInfo>& blocks) {
  std::vector<std::pair<std::string, std::string>> merged;
  if (blocks.empty()) return merged;
  for (const sst::FilterParam& param : blocks.front().params) {
    int64_t low = param.value, high = param.value;
    for (const sst::FilterBlockInfo& block : blocks) {
      for (const sst::FilterParam& other : block.params) {
        if (other.name != param.name) continue;
        low = std::min(low, other.value);
        high = std::max(high, other.value);
      }
    }
    merged.emplace_back(param.name, low == high ? std::to_string(low)
                                                : std::to_string(low) + ".." +
                                                      std::to_string(high));
  }
  return merged;
}

// "BlockedBloom" if every block is of that kind, else "mixed".
std::string CommonKind(const std::vector<sst::FilterBlockInfo>& blocks,
                       std::string* family, uint32_t* version) {
  if (blocks.empty()) return "";
  *family = blocks.front().family;
  *version = blocks.front().version;
  for (const sst::FilterBlockInfo& block : blocks) {
    if (block.kind != blocks.front().kind ||
        block.version != blocks.front().version) {
      return "mixed";
    }
  }
  return blocks.front().kind;
}

std::string KeyAnswerText(const KeyAnswer& answer) {
  if (!answer.answered) return "cannot tell: " + answer.error;
  std::string text = answer.may_match ? "may match" : "no (not in this SST)";
  if (answer.partition >= 0) {
    text += Printf(" [partition #%" PRId64 "]", answer.partition);
  }
  return text;
}

// One figure over the partitions: its text and JSON names, how to print it.
struct SpreadRow {
  const char* name;
  const char* json_name;
  const char* format;  // printf format of one value; "%" for a percentage
  std::vector<double> values;
};

std::vector<SpreadRow> SpreadRows(const FileReport& report) {
  std::vector<SpreadRow> rows = {{"bytes", "bytes", "%.0f", {}},
                                 {"keys", "keys", "%.0f", {}},
                                 {"bits/key", "bits_per_key", "%.2f", {}},
                                 {"occupancy", "occupancy", "%.4f", {}},
                                 {"est. FPR", "fpr", "%", {}}};
  for (const sst::FilterBlockInfo& block : report.blocks) {
    rows[0].values.push_back(static_cast<double>(block.bytes));
    if (block.keys_known) {
      rows[1].values.push_back(static_cast<double>(block.keys));
      rows[2].values.push_back(BitsPerKey(block));
    }
    if (!block.occupancy_name.empty()) {
      rows[3].values.push_back(block.occupancy);
    }
    rows[4].values.push_back(block.fpr);
  }
  return rows;
}

std::string SpreadCell(double value, const SpreadRow& row) {
  if (row.format == std::string("%")) return Percent(value);
  return Printf(row.format, value);
}

}  // namespace

FileReport InspectSource(const sst::Source& source, const std::string& path,
                         const std::vector<std::string>& keys) {
  FileReport report;
  report.path = path;
  report.status = sst::ReadTable(source, &report.table);
  if (!report.status.ok()) return report;
  const sst::Table& table = report.table;

  std::vector<sst::BlockHandle> handles;
  if (table.filter_layout == sst::FilterLayout::kFull) {
    handles.push_back(table.filter_handle);
  } else if (table.filter_layout == sst::FilterLayout::kPartitioned) {
    report.partition_index_bytes = table.filter_handle.size;
    for (const sst::FilterPartition& partition : table.partitions) {
      handles.push_back(partition.handle);
    }
  }
  std::vector<std::string> block_bytes(handles.size());
  for (size_t i = 0; i < handles.size(); ++i) {
    const std::string where = table.filter_layout == sst::FilterLayout::kFull
                                  ? "filter block"
                                  : "filter partition #" + std::to_string(i);
    sst::FilterBlockInfo info;
    Status s =
        sst::ReadBlock(source, table.footer, handles[i], &block_bytes[i]);
    if (s.ok()) {
      s = sst::DescribeFilterBlock(table.compatibility_name, block_bytes[i],
                                   &info);
    }
    if (!s.ok()) {
      report.status = InContext(s, where);
      return report;
    }
    report.blocks.push_back(std::move(info));
  }
  Summarize(&report);
  AnswerKeys(keys, block_bytes, &report);
  return report;
}

FileReport InspectFile(const std::string& path,
                       const std::vector<std::string>& keys) {
  std::unique_ptr<sst::Source> source;
  Status s = sst::OpenFileSource(path, &source);
  if (!s.ok()) {
    FileReport report;
    report.path = path;
    report.status = s;
    return report;
  }
  return InspectSource(*source, path, keys);
}

std::string KindName(const FileReport& report) {
  std::string family;
  uint32_t version = 0;
  return CommonKind(report.blocks, &family, &version);
}

std::string FormatText(const FileReport& report, const PrintOptions& options) {
  if (!report.status.ok()) {
    return report.path + ": " + report.status.ToString() + "\n";
  }
  const sst::Table& table = report.table;
  std::string out = report.path + "\n";
  uint64_t entries = 0, filter_entries = 0;
  table.IntProperty("rocksdb.num.entries", &entries);
  out += Printf("  table       format_version %u, checksum %s, %" PRIu64
                " entries",
                table.footer.format_version,
                sst::ChecksumTypeName(table.footer.checksum_type), entries);
  if (table.IntProperty("rocksdb.num.filter_entries", &filter_entries)) {
    out += Printf(", %" PRIu64 " filter entries", filter_entries);
  }
  out += "\n";
  const std::string policy = table.StringProperty("rocksdb.filter.policy");
  if (table.filter_layout == sst::FilterLayout::kNone) {
    out += "  filter      none\n";
  } else {
    out += "  policy      " + (policy.empty() ? "?" : policy) +
           "  (meta block " + table.filter_meta_name + ")\n";
    std::string family;
    uint32_t version = 0;
    const std::string kind = CommonKind(report.blocks, &family, &version);
    out += "  filter      " + family + " " + kind;
    if (family == "sstfilter" && kind != "mixed") {
      out += " v" + std::to_string(version);
    }
    if (kind != "mixed") {
      for (const auto& [name, value] : MergedParams(report.blocks)) {
        out += " " + name + "=" + value;
      }
    }
    if (table.filter_layout == sst::FilterLayout::kPartitioned) {
      out += Printf("  (%zu partitions, index %" PRIu64 " bytes)",
                    report.blocks.size(), report.partition_index_bytes);
    }
    out += "\n";
    out += Printf("  cost        %" PRIu64 " bytes", report.filter_bytes);
    if (report.keys > 0) {
      out +=
          Printf(", %.2f bits/key (%" PRIu64 " keys, %s)", report.bits_per_key,
                 report.keys, report.keys_source.c_str());
    }
    out += "\n";
    if (!report.occupancy_name.empty()) {
      out += Printf("  occupancy   %s %.4f\n", report.occupancy_name.c_str(),
                    report.occupancy);
    }
    out += "  est. FPR    " + Percent(report.fpr) + "\n";
    if (table.filter_layout == sst::FilterLayout::kPartitioned) {
      out += Printf("  partitions  %-12s %-12s %s\n", "min", "median", "max");
      for (const SpreadRow& row : SpreadRows(report)) {
        if (row.values.empty()) continue;
        const sst::Spread spread = sst::SpreadOf(row.values);
        out += Printf("    %-9s %-12s %-12s %s\n", row.name,
                      SpreadCell(spread.min, row).c_str(),
                      SpreadCell(spread.median, row).c_str(),
                      SpreadCell(spread.max, row).c_str());
      }
      if (options.per_partition) {
        out += Printf("  %5s %10s %8s %9s %10s %10s  %s\n", "#", "bytes",
                      "keys", "bits/key", "occupancy", "est. FPR", "last key");
        for (size_t i = 0; i < report.blocks.size(); ++i) {
          const sst::FilterBlockInfo& block = report.blocks[i];
          out += Printf(
              "  %5zu %10" PRIu64 " %8s %9s %10s %10s  %s\n", i, block.bytes,
              block.keys_known ? std::to_string(block.keys).c_str() : "-",
              block.keys_known ? Printf("%.2f", BitsPerKey(block)).c_str()
                               : "-",
              block.occupancy_name.empty()
                  ? "-"
                  : Printf("%.4f", block.occupancy).c_str(),
              Percent(block.fpr).c_str(),
              TextKey(table.partitions[i].last_user_key, options).c_str());
        }
      }
    }
  }
  for (const KeyAnswer& answer : report.answers) {
    out += "  key " + TextKey(answer.key, options) + ": " +
           KeyAnswerText(answer) + "\n";
  }
  return out;
}

std::string FormatJson(const FileReport& report, const PrintOptions& options) {
  std::string out = "{\"path\": " + JsonString(report.path);
  if (!report.status.ok()) {
    return out + ", \"ok\": false, \"error\": " +
           JsonString(report.status.ToString()) + "}";
  }
  const sst::Table& table = report.table;
  out += ", \"ok\": true";
  out += Printf(", \"format_version\": %u, \"checksum\": \"%s\"",
                table.footer.format_version,
                sst::ChecksumTypeName(table.footer.checksum_type));
  const std::pair<const char*, const char*> counts[] = {
      {"num_entries", "rocksdb.num.entries"},
      {"num_filter_entries", "rocksdb.num.filter_entries"}};
  for (const auto& [json_name, property] : counts) {
    uint64_t value;
    if (table.IntProperty(property, &value)) {
      out += Printf(", \"%s\": %" PRIu64, json_name, value);
    }
  }
  out += ", \"filter_policy\": " +
         JsonString(table.StringProperty("rocksdb.filter.policy"));
  out += ", \"filter\": ";
  if (table.filter_layout == sst::FilterLayout::kNone) {
    out += "null";
  } else {
    std::string family;
    uint32_t version = 0;
    const std::string kind = CommonKind(report.blocks, &family, &version);
    out += "{\"layout\": \"" +
           std::string(sst::FilterLayoutName(table.filter_layout)) +
           "\", \"meta_block\": " + JsonString(table.filter_meta_name) +
           ", \"family\": " + JsonString(family) +
           ", \"kind\": " + JsonString(kind) +
           ", \"version\": " + std::to_string(version) + ", \"params\": {";
    const auto params = MergedParams(report.blocks);
    for (size_t i = 0; i < params.size(); ++i) {
      const bool range = params[i].second.find("..") != std::string::npos;
      out += (i ? ", " : "") + JsonString(params[i].first) + ": " +
             (range ? JsonString(params[i].second) : params[i].second);
    }
    out += Printf("}, \"bytes\": %" PRIu64 ", \"keys\": %" PRIu64,
                  report.filter_bytes, report.keys);
    out += ", \"keys_source\": " + JsonString(report.keys_source) +
           ", \"bits_per_key\": " + JsonNumber(report.bits_per_key) +
           ", \"occupancy_name\": " + JsonString(report.occupancy_name) +
           ", \"occupancy\": " + JsonNumber(report.occupancy) +
           ", \"fpr\": " + JsonNumber(report.fpr);
    if (table.filter_layout == sst::FilterLayout::kPartitioned) {
      out += Printf(", \"partition_index_bytes\": %" PRIu64,
                    report.partition_index_bytes);
      out += ", \"spread\": {";
      bool first = true;
      for (const SpreadRow& row : SpreadRows(report)) {
        if (row.values.empty()) continue;
        const sst::Spread spread = sst::SpreadOf(row.values);
        out += (first ? "" : ", ") + JsonString(row.json_name) +
               ": {\"min\": " + JsonNumber(spread.min) +
               ", \"median\": " + JsonNumber(spread.median) +
               ", \"max\": " + JsonNumber(spread.max) + "}";
        first = false;
      }
      out += "}, \"partitions\": [";
      for (size_t i = 0; i < report.blocks.size(); ++i) {
        const sst::FilterBlockInfo& block = report.blocks[i];
        out += (i ? ", " : "") + std::string("{\"last_key\": ") +
               JsonKey(table.partitions[i].last_user_key, options) +
               Printf(", \"offset\": %" PRIu64 ", \"bytes\": %" PRIu64,
                      table.partitions[i].handle.offset, block.bytes) +
               ", \"kind\": " + JsonString(block.kind) + ", \"keys\": " +
               (block.keys_known ? std::to_string(block.keys) : "null") +
               ", \"bits_per_key\": " +
               (block.keys_known ? JsonNumber(BitsPerKey(block)) : "null") +
               ", \"occupancy\": " +
               (block.occupancy_name.empty() ? "null"
                                             : JsonNumber(block.occupancy)) +
               ", \"fpr\": " + JsonNumber(block.fpr) + "}";
      }
      out += "]";
    }
    out += "}";
  }
  if (!report.answers.empty()) {
    out += ", \"keys\": [";
    for (size_t i = 0; i < report.answers.size(); ++i) {
      const KeyAnswer& answer = report.answers[i];
      out += (i ? ", " : "") + std::string("{\"key\": ") +
             JsonKey(answer.key, options);
      if (answer.answered) {
        out +=
            std::string(", \"may_match\": ") +
            (answer.may_match ? "true" : "false") + ", \"partition\": " +
            (answer.partition >= 0 ? std::to_string(answer.partition) : "null");
      } else {
        out += ", \"may_match\": null, \"error\": " + JsonString(answer.error);
      }
      out += "}";
    }
    out += "]";
  }
  return out + "}";
}

}  // namespace sstfilter::inspect
