// sstfilter/block_classifier.h: whose filter a block is, ours or RocksDB's.
//
// An SST stores its filter block under the name of the policy's family (its
// CompatibilityName, after "fullfilter." or "partitionedfilter."), and a
// policy reads the blocks of its own family only:
//   "rocksdb.BuiltinBloomFilter"  RocksDB's built-in family, that of
//                                 bloomfilter and ribbonfilter, which our
//                                 policies join by default: our blocks
//                                 beside RocksDB's;
//   "sstfilter"                   the name of sstfilter 0.1, kept by the
//                                 policy option compatibility_name=sstfilter:
//                                 our blocks (format v1 included), and the
//                                 RocksDB kinds LevelAware writes under
//                                 whichever name it is given.
// ClassifyBlock is the one rule that tells the blocks apart; the RocksDB
// plugin's reader and the inspector both follow it.
//
// RocksDB's kinds are told apart by the 5 metadata bytes that end them
// (table/block_based/filter_policy.cc, GetBuiltinFilterBitsReader, the same
// from 7.8 to 11.x): a signed marker byte, then 4 bytes whose meaning
// depends on it. Ours keep that marker byte 0 (format.h). Nothing here
// needs RocksDB.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sstfilter/filter_view.h"
#include "sstfilter/format.h"
#include "sstfilter/status.h"

namespace sstfilter {

// The family of a block: that of its name (format.h).
enum class BlockFamily {
  kRocksdbBuiltin,  // kRocksdbFamilyCompatibilityName
  kSstfilter,       // kSstfilterCompatibilityName
};

// The family of `compatibility_name`; false if it is neither name.
bool FamilyNamed(std::string_view compatibility_name, BlockFamily* family);

// A block's kind and layout as RocksDB's metadata gives them.
struct BuiltinFormat {
  // One of RocksDB's kinds (FilterKind: kFastLocalBloom to kUnknown), or
  // kNone where the block was not read as RocksDB's: it is (or was) ours.
  FilterKind kind = FilterKind::kNone;
  std::string error;          // why kUnknown
  uint32_t num_probes = 0;    // the Bloom kinds
  uint64_t line_bytes = 0;    // the Bloom kinds: a cache line, or a block
  uint64_t num_lines = 0;     // the Bloom kinds
  uint32_t seed = 0;          // Ribbon
  uint64_t num_blocks = 0;    // Ribbon: 128 slots each
  uint64_t num_segments = 0;  // Ribbon: 16-byte solution segments
};

// Reads `bytes` as a block of RocksDB's built-in family. Well formed means
// what RocksDB's reader needs to read it as that kind (and, for Ribbon, a
// solution of at least one column per block, which its builder always
// writes); anything else is kUnknown, for which RocksDB's reader would
// answer "may match" or misread the bytes. Never kNone.
BuiltinFormat ReadBuiltinFormat(std::string_view bytes);

// Whose a block is, and so how it is read.
enum class BlockOwner {
  kOurs,      // a filter of ours, parsed
  kRocksdb,   // RocksDB's legacy Bloom, FastLocalBloom or Ribbon: its
              // reader reads it
  kMayMatch,  // neither: every key may match
};

struct BlockClass {
  BlockOwner owner = BlockOwner::kMayMatch;
  FilterView ours;  // kOurs: the block parsed
  // kRocksdb: its kind and layout. kMayMatch: the same (kEmpty, kAlwaysTrue
  // or kUnknown) if the block was read as RocksDB's, kNone if it was
  // taken for a damaged block of ours.
  BuiltinFormat rocksdb;
  // kMayMatch: why. Corruption or NotSupported as FilterView::Parse says
  // for a block of ours; for RocksDB's, Corruption for kEmpty and
  // kAlwaysTrue, NotSupported for kUnknown.
  Status why;
};

// The one rule. A block that parses as ours is ours. One with our trailer
// tag that does not parse is a damaged or later block of ours, and so,
// under the old name, is one with a v1 head tag: v1 blocks end in Bloom
// lines, which must never be taken for RocksDB's metadata. Any other block
// is read as RocksDB's, in either family: a well-formed legacy Bloom,
// FastLocalBloom or Ribbon block is RocksDB's. The rest (empty, zero
// probes, malformed) may be a damaged block of ours, which loses its tag
// when truncated, so every key may match there, where RocksDB would answer
// "no" to a short block.
BlockClass ClassifyBlock(std::string_view bytes, BlockFamily family);

}  // namespace sstfilter
