// sstfilter/rocksdb_plugin.h: sstfilter's filters as RocksDB FilterPolicies.
//
// Once RegisterSstfilterPolicies has run on a library the process uses
// (normally ObjectLibrary::Default()), FilterPolicy::CreateFromString,
// options strings and OPTIONS files accept these policy ids:
//
//   sstfilter.BlockedBloom:<bits_per_key>[:<lines_per_key>]
//       The cache-blocked Bloom filter of sstfilter/blocked_bloom.h.
//       lines_per_key 2 (the default, left out of the canonical id) takes
//       the layout that measured best for the bits/key: two cache lines
//       per key from 3.5 bits/key up, for about 10-40% lower FPR. 1 forces
//       one line per key: the FPR of RocksDB's FastLocalBloom, one cache
//       line read per query.
//   sstfilter.Cuckoo:<bits_per_key>
//       The static cuckoo filter of sstfilter/cuckoo_filter.h. Its
//       fingerprint width f is the widest (at most 32) whose filter fits in
//       bits_per_key at the load the static build reaches (about 96%, so
//       f/0.96 bits per key): 10 -> 9, 12 -> 11, 16 -> 15. The named option
//       fingerprint_bits (4..32; 0 = that choice) sets f explicitly,
//       e.g. "id=sstfilter.Cuckoo:12;fingerprint_bits=16"; the filter then
//       takes about f/0.96 bits per key whatever bits_per_key says.
//   sstfilter.Hybrid:<bits_per_key>[:<bloom_before_level>]
//       Per SST file, like RocksDB's "ribbonfilter:10:1": a flush counts as
//       level -1, compaction output as its output level, and a file of
//       unknown level (SstFileWriter, FIFO compaction) as the last level.
//       The file gets a BlockedBloom filter if that level is below
//       bloom_before_level and the file is not known to be bottommost,
//       otherwise a Cuckoo filter (same bits_per_key, and fingerprint_bits
//       as above). bloom_before_level is -1..num_levels, default 0: Bloom
//       for flushes only; -1: always Cuckoo; num_levels: Bloom for all
//       but the bottommost files. DB::Open checks it against the column
//       family's num_levels.
//   sstfilter.LevelAware:<avg_bits_per_key>[:<size_ratio>][:<choice>]
//                       [:hits=<fraction>][:learn=<true|false>]
//                       [:memory_limit=<bytes>|:size_for_cache=true]
//       Per level of a leveled tree, the bits/key and the kind of filter
//       that minimise the sum over the levels of their absent-key probes
//       times their FPRs, i.e. an absent-key Get's wasted reads, at
//       avg_bits_per_key (1..100) over the filtered keys: Monkey over the
//       kinds of `choice`, within its cap on filter build CPU (the cost
//       model is sstfilter/level_allocation.h). size_ratio (2..100,
//       default 10) is the T the model assumes where the policy sees no
//       tree. The choices:
//         default   BlockedBloom, Cuckoo, and RocksDB's FastLocalBloom and
//                   Ribbon; build CPU at most uniform ribbonfilter's at the
//                   same memory (Bloom for flushes, Ribbon below);
//         cpu_lean  BlockedBloom, Cuckoo and FastLocalBloom; build CPU at
//                   most 1.2x uniform bloomfilter's;
//         portable  FastLocalBloom and Ribbon only, so that RocksDB without
//                   the plugin reads every filter; default's cap.
//       RocksDB's kinds are built by RocksDB's own policies
//       (NewBloomFilterPolicy, NewRibbonFilterPolicy with Ribbon at every
//       level), with their cache charging and Ribbon's fallback to Bloom.
//       With sstfilter.LevelAwareListener (below) the policy sees each
//       column family's tree (files, keys and filter bytes per level, from
//       the files' own properties) and learns where its Gets' absent-key
//       probes go (one probe in 256 sampled by the readers, per level and
//       per slice of the key space); each new file gets its level's
//       allocation over the tree as it is, and, where its key range draws
//       significantly more or fewer probes per key than its level's, more
//       or fewer bits; a tree whose files were built on the tree as it
//       stands holds the average asked. Without the listener it assumes
//       levels size_ratio apart and
//       learns nothing, and says so once per column family in the LOG.
//       Named fields, after the positional ones:
//         hits=<0..0.999>       the fraction of Gets expected to find their
//                               key, for the model until probes are learned
//                               (default 0: all absent)
//         learn=<true|false>    sample the readers' probes (default true);
//                               false: readers are plain, nothing sampled
//         memory_limit=<bytes>  the most bytes the live filters of the
//                               column families (and DBs) that share the
//                               policy object may take, with RocksDB's size
//                               suffixes (512M, 2G): each file counted from
//                               its creation to its deletion, each filter
//                               block given at most what is free when it is
//                               finished (a running compaction's outputs
//                               also what its inputs free); split where
//                               their probes go, never above the average
//                               asked; a file may get a smaller filter or
//                               none (a 13-byte block that answers "may
//                               match" and keeps its Gets sampled). Needs
//                               the listener.
//         size_for_cache=<true|false>
//                               with filters in the block cache
//                               (cache_index_and_filter_blocks), the
//                               average is the one, from 2 to twice
//                               avg_bits_per_key (the average until the
//                               tree is seen), at which a Get reads the
//                               fewest blocks from
//                               disk by the cache model of
//                               sstfilter/cache_model.h: the cache's
//                               capacity (split among the column families
//                               whose LevelAware filters use it, by their
//                               data bytes), the tree's data and index
//                               bytes, and the probes that find their key
//                               and those that do not (learned, or from
//                               hits=). Smaller filters where the filter
//                               and index blocks a Get reads do not fit
//                               and Gets find their keys; up to twice the
//                               bits asked where they fit. The LOG tells each choice
//                               and why. Leveled trees, with the listener;
//                               not with memory_limit (the cache is the
//                               bound).
//       Universal and FIFO compaction, and files of no level
//       (SstFileWriter), get the choice's filter for a one-level tree at
//       avg_bits_per_key (under a memory limit, held to what is free). The canonical id leaves out defaults:
//       "sstfilter.LevelAware:10:10", "sstfilter.LevelAware:10:10:
//       memory_limit=512M".
//
// bits_per_key is a decimal such as 10 or 9.9, kept to 1/1000 as RocksDB's
// "bloomfilter:9.9" is. BlockedBloom takes 1..100. Cuckoo and Hybrid take
// 6.251..33.334: the automatic width is 6..32 bits (narrower fingerprints
// cannot reach the build's 96% load, and their FPR is above 20%), and no
// width uses more than 32-bit fingerprints do. A filter then takes at most
// bits_per_key plus 1% (a retried cuckoo build) plus its fixed header and
// one bucket or cache line of rounding. Anything else (a missing or
// malformed number, one out of range, an unknown option, an unknown
// "sstfilter." name) is Status::InvalidArgument, never a default. A bad
// option (a bad fingerprint_bits, or an unknown option of any policy) also
// leaves a policy that fails PrepareOptions and ValidateOptions, so DB::Open
// refuses it even from an OPTIONS file, whose parser RocksDB lets ignore
// filter-policy errors.
//
// Each policy's GetId() is the canonical form of its id, so RocksDB writes
// it to the DB's OPTIONS file and LoadLatestOptions recreates the same
// policy.
//
// One family with RocksDB's filters. All four policies' CompatibilityName()
// is RocksDB's built-in one, "rocksdb.BuiltinBloomFilter" (that of
// bloomfilter and ribbonfilter), so RocksDB finds an SST's filter block
// whichever of these policies wrote it and whichever reads it. Their reader
// reads sstfilter's formats by their tag and RocksDB's (legacy Bloom,
// FastLocalBloom, Ribbon) with RocksDB's own reader; RocksDB's reader, and
// a binary without the plugin, read sstfilter's blocks as "may match"
// (sstfilter/format.h). So a live DB switches from bloomfilter or
// ribbonfilter to any sstfilter policy, between them, and back, and every
// SST keeps a working filter (README, "Switching a live DB"). A filter block
// that does not parse degrades to "may match" for every key.
//
// Every policy takes the option compatibility_name: the default
// "rocksdb.BuiltinBloomFilter", or "sstfilter", the name of sstfilter
// 0.1, to keep the filters of SSTs written by it until the DB is
// compacted, e.g.
//   "filter_policy={id=sstfilter.BlockedBloom:10;compatibility_name=sstfilter}"
// Under that name the policies write what they write under the default
// (LevelAware RocksDB's kinds too) and read it alike, and sstfilter 0.1's
// format v1 besides (sstfilter/block_classifier.h).
#pragma once

#include <memory>
#include <string>

#include "rocksdb/listener.h"
#include "rocksdb/utilities/object_registry.h"
#include "sstfilter/format.h"

// The CompatibilityName() of every sstfilter policy (the suffix of the
// "fullfilter." / "partitionedfilter." meta block name in SST files):
// RocksDB's built-in family, or the one of sstfilter 0.1, kept by the
// option compatibility_name.
using sstfilter::kRocksdbFamilyCompatibilityName;
using sstfilter::kSstfilterCompatibilityName;

// Adds the four policy factories, one for any other "sstfilter." name
// (an error that lists the known names), the factory of
// sstfilter.LevelAwareListener and that of the range filter's collector
// sstfilter.RangeFilter (sstfilter/range_filter_rocksdb.h) to `library`;
// returns how many (7).
// `arg` is ignored. This is the registration function of RocksDB's plugin
// folder ABI (<name>_FUNC) and of ObjectRegistry::AddLibrary; call it once
// per library, e.g.
//   RegisterSstfilterPolicies(
//       *ROCKSDB_NAMESPACE::ObjectLibrary::Default(), "");
extern "C" int RegisterSstfilterPolicies(
    ROCKSDB_NAMESPACE::ObjectLibrary& library, const std::string& arg);

namespace sstfilter {

// The name of the listener below, as options strings and OPTIONS files
// write it ("listeners={sstfilter.LevelAwareListener}").
inline constexpr char kLevelAwareListenerName[] =
    "sstfilter.LevelAwareListener";

// sstfilter.LevelAwareListener: the listener that shows
// sstfilter.LevelAware its DB. One line of DBOptions turns it on:
//   listeners={sstfilter.LevelAwareListener}        (options string, the
//       C API's rocksdb_get_options_from_string, Java's properties)
//   listeners={sstfilter.LevelAwareListener}        (OPTIONS file, [DBOptions])
//   options.listeners.push_back(sstfilter::NewLevelAwareListener());  (C++)
//   SstFilter.addLevelAwareListener(options);       (Java, io.sstfilter)
// RocksDB writes it to the DB's OPTIONS file, so a DB reopened from that
// file keeps it. It reads the DB's file list once when it first sees the
// DB, then keeps keys and filter bytes per level from what each flush and
// compaction reports (the files' own table properties): no file is opened
// on a job's thread. It owns what LevelAware learns of the DB's lookups,
// which goes with the DB when it closes. With it, each new file's filter
// is sized for the tree as it is (a running compaction's inputs at its
// output level) and for what the live filters hold against the average or
// the limit asked, and LevelAware learns where absent-key probes go.
// Without it, LevelAware assumes levels T apart, learns nothing, holds no
// limit, and says so once per column family in the DB's LOG. Harmless
// with any other policy; one listener may watch several DBs.
std::shared_ptr<ROCKSDB_NAMESPACE::EventListener> NewLevelAwareListener();

}  // namespace sstfilter
