// tests/c_api_test.c: sstfilter through RocksDB's C API, the way Rust's,
// Go's and Python's bindings reach it. The only sstfilter-specific step is
// the options string given to rocksdb_get_options_from_string, with the
// policy and its listener; the plugin is compiled into the RocksDB library
// (tools/build_rocksdb_with_plugin.sh).
//
// A DB of three levels (L2 from a manual compaction, L1 from an automatic
// one, L0 from flushes), every fourth key left out. It proves:
//   - every table RocksDB builds (flush or compaction) names our policy in
//     its table properties and has a filter block;
//   - sstfilter.LevelAwareListener watches the DB: its LOG says so, and has
//     no line saying LevelAware has no listener;
//   - after a reopen, every present key is found (Get and MultiGet) and
//     every absent key is not;
//   - the filter answers: the statistics count absent-key Gets ruled out by
//     it (rocksdb.bloom.filter.useful) and an FPR near 10 bits/key's.
// Failures print "FAIL: ..."; the exit code is non-zero on any.
#define _POSIX_C_SOURCE 200809L  // mkdtemp

#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocksdb/c.h"

#define kPolicyName "sstfilter.LevelAware"
#define kListenerName "sstfilter.LevelAwareListener"
static const char kOptions[] =
    "listeners={" kListenerName
    "};block_based_table_factory={filter_policy=" kPolicyName ":10}";
// Key slots 0..kSlots-1; slot % 4 says where the key lives: 0 L2, 1 L1,
// 2 L0, 3 nowhere (the absent keys, between present ones in every file).
enum { kSlots = 40000, kKeySize = 16, kValueSize = 100, kMultiGetBatch = 64 };
// 10 bits/key on average gives about 1% per filter; 5% leaves room for
// LevelAware's fewer bits on the deepest level and for chance.
static const double kMaxFalsePositiveRate = 0.05;

static atomic_int failures;

static void Fail(const char* format, ...) {
  va_list args;
  va_start(args, format);
  fputs("FAIL: ", stdout);
  vprintf(format, args);
  fputs("\n", stdout);
  fflush(stdout);
  va_end(args);
  atomic_fetch_add(&failures, 1);
}

// Exits at once: nothing after a failed RocksDB call can be checked.
static void CheckNoError(char* error, const char* what) {
  if (error == NULL) return;
  Fail("%s: %s", what, error);
  rocksdb_free(error);
  exit(1);
}

static void KeyOf(int slot, char* key) {
  snprintf(key, kKeySize, "key%08d", slot);
}

static void ValueOf(int slot, char* value) {
  memset(value, 'v', kValueSize);
  snprintf(value, kValueSize, "value-%08d-", slot);
}

// --- Tables built: each must name our policy and carry a filter. ---
static atomic_int tables_built;

static void CheckTable(const rocksdb_table_properties_t* properties,
                       const char* built_by) {
  if (properties == NULL) {
    Fail("a table built by %s has no table properties", built_by);
    return;
  }
  size_t length = 0;
  const char* name =
      rocksdb_table_properties_filter_policy_name(properties, &length);
  if (length != strlen(kPolicyName) || memcmp(name, kPolicyName, length)) {
    Fail("a table built by %s names filter policy \"%.*s\", not " kPolicyName,
         built_by, (int)length, name);
  }
  if (rocksdb_table_properties_filter_size(properties) == 0) {
    Fail("a table built by %s has no filter block", built_by);
  }
  atomic_fetch_add(&tables_built, 1);
}

static void OnFlushCompleted(void* state, rocksdb_t* db,
                             const rocksdb_flushjobinfo_t* info) {
  (void)state, (void)db;
  CheckTable(rocksdb_flushjobinfo_table_properties(info), "a flush");
}

static void OnCompactionCompleted(void* state, rocksdb_t* db,
                                  const rocksdb_compactionjobinfo_t* info) {
  (void)state, (void)db;
  for (size_t i = 0; i < rocksdb_compactionjobinfo_output_files_count(info);
       ++i) {
    size_t length = 0;
    const char* file =
        rocksdb_compactionjobinfo_output_file_at(info, i, &length);
    CheckTable(
        rocksdb_compactionjobinfo_table_properties_for_file(info, file, length),
        "a compaction");
  }
}

// rocksdb_eventlistener_create calls every callback it is given, unchecked.
static void Ignore(void* state) { (void)state; }
static void IgnoreFlush(void* s, rocksdb_t* d,
                        const rocksdb_flushjobinfo_t* i) {
  (void)s, (void)d, (void)i;
}
static void IgnoreCompaction(void* s, rocksdb_t* d,
                             const rocksdb_compactionjobinfo_t* i) {
  (void)s, (void)d, (void)i;
}
static void IgnoreSubcompaction(void* s,
                                const rocksdb_subcompactionjobinfo_t* i) {
  (void)s, (void)i;
}
static void IgnoreIngestion(void* s, rocksdb_t* d,
                            const rocksdb_externalfileingestioninfo_t* i) {
  (void)s, (void)d, (void)i;
}
static void IgnoreBackgroundError(void* s, uint32_t r,
                                  rocksdb_status_ptr_t* p) {
  (void)s, (void)r, (void)p;
}
static void IgnoreStall(void* s, const rocksdb_writestallinfo_t* i) {
  (void)s, (void)i;
}
static void IgnoreMemtable(void* s, const rocksdb_memtableinfo_t* i) {
  (void)s, (void)i;
}

static rocksdb_eventlistener_t* NewTableChecker(void) {
  return rocksdb_eventlistener_create(
      NULL, Ignore, IgnoreFlush, OnFlushCompleted, IgnoreCompaction,
      OnCompactionCompleted, IgnoreSubcompaction, IgnoreSubcompaction,
      IgnoreIngestion, IgnoreBackgroundError, IgnoreStall, IgnoreMemtable);
}

// --- Statistics, by name from the string every binding can get. ---
typedef struct {
  uint64_t useful;         // filter said "absent": a data-block read saved
  uint64_t positive;       // filter said "may match"
  uint64_t true_positive;  // ... and the key was there
} FilterCounts;

static uint64_t Ticker(const char* statistics, const char* name) {
  char pattern[128];
  snprintf(pattern, sizeof pattern, "%s COUNT : ", name);
  const char* found = strstr(statistics, pattern);
  if (found == NULL) {
    Fail("statistics have no %s", name);
    return 0;
  }
  return strtoull(found + strlen(pattern), NULL, 10);
}

static FilterCounts ReadFilterCounts(rocksdb_options_t* options) {
  char* statistics = rocksdb_options_statistics_get_string(options);
  FilterCounts counts = {0, 0, 0};
  if (statistics == NULL) {
    Fail("no statistics");
    return counts;
  }
  counts.useful = Ticker(statistics, "rocksdb.bloom.filter.useful");
  counts.positive = Ticker(statistics, "rocksdb.bloom.filter.full.positive");
  counts.true_positive =
      Ticker(statistics, "rocksdb.bloom.filter.full.true.positive");
  rocksdb_free(statistics);
  return counts;
}

// The filter's work between two snapshots of the counts, for `reads` reads
// of keys that are all present (absent = 0) or all absent (absent = 1).
static void CheckFilterAtWork(const char* path, FilterCounts before,
                              FilterCounts after, int reads, int absent) {
  uint64_t useful = after.useful - before.useful;
  uint64_t positive = after.positive - before.positive;
  uint64_t true_positive = after.true_positive - before.true_positive;
  uint64_t false_positive = positive - true_positive;
  double rate =
      useful + false_positive == 0
          ? 0
          : (double)false_positive / (double)(useful + false_positive);
  printf("%s, %d %s keys: filter ruled out %" PRIu64 " table reads, %" PRIu64
         " true and %" PRIu64 " false positives (FPR %.4f)\n",
         path, reads, absent ? "absent" : "present", useful, true_positive,
         false_positive, rate);
  // Every absent key is covered by a table of each level: the filters must
  // rule out nearly all of those reads, at least one per key.
  if (absent && useful < (uint64_t)reads) {
    Fail("%s: the filter ruled out %" PRIu64 " table reads for %d absent keys",
         path, useful, reads);
  }
  // Present keys are in one table each; the other levels' filters say no.
  if (!absent && (true_positive < (uint64_t)reads || useful == 0)) {
    Fail("%s: %" PRIu64 " true positives and %" PRIu64
         " ruled out for %d present keys",
         path, true_positive, useful, reads);
  }
  if (rate > kMaxFalsePositiveRate) {
    Fail("%s: filter FPR %.4f above %.2f", path, rate, kMaxFalsePositiveRate);
  }
}

// --- Building the DB. ---
static void PutSlots(rocksdb_t* db, int remainder, int first, int last) {
  rocksdb_writeoptions_t* write_options = rocksdb_writeoptions_create();
  char key[kKeySize], value[kValueSize];
  for (int slot = first; slot < last; ++slot) {
    if (slot % 4 != remainder) continue;
    KeyOf(slot, key);
    ValueOf(slot, value);
    char* error = NULL;
    rocksdb_put(db, write_options, key, strlen(key), value, kValueSize, &error);
    CheckNoError(error, "rocksdb_put");
  }
  rocksdb_writeoptions_destroy(write_options);
}

static void Flush(rocksdb_t* db) {
  rocksdb_flushoptions_t* flush_options = rocksdb_flushoptions_create();
  rocksdb_flushoptions_set_wait(flush_options, 1);
  char* error = NULL;
  rocksdb_flush(db, flush_options, &error);
  CheckNoError(error, "rocksdb_flush");
  rocksdb_flushoptions_destroy(flush_options);
}

static void WaitForCompactions(rocksdb_t* db) {
  rocksdb_wait_for_compact_options_t* wait =
      rocksdb_wait_for_compact_options_create();
  char* error = NULL;
  rocksdb_wait_for_compact(db, wait, &error);
  CheckNoError(error, "rocksdb_wait_for_compact");
  rocksdb_wait_for_compact_options_destroy(wait);
}

static void BuildThreeLevels(rocksdb_t* db) {
  // L2: two overlapping flushes merged by a manual compaction (output to
  // L1, then moved to L2).
  PutSlots(db, 0, 0, kSlots / 2);
  Flush(db);
  PutSlots(db, 0, kSlots / 2, kSlots);
  Flush(db);
  rocksdb_compactoptions_t* compact = rocksdb_compactoptions_create();
  rocksdb_compactoptions_set_change_level(compact, 1);
  rocksdb_compactoptions_set_target_level(compact, 2);
  rocksdb_compact_range_opt(db, compact, NULL, 0, NULL, 0);
  rocksdb_compactoptions_destroy(compact);
  // L1: four flushes, level0_file_num_compaction_trigger of them.
  for (int quarter = 0; quarter < 4; ++quarter) {
    PutSlots(db, 1, quarter * kSlots / 4, (quarter + 1) * kSlots / 4);
    Flush(db);
  }
  WaitForCompactions(db);
  // L0: two flushes, below the trigger.
  PutSlots(db, 2, 0, kSlots / 2);
  Flush(db);
  PutSlots(db, 2, kSlots / 2, kSlots);
  Flush(db);
  WaitForCompactions(db);
}

static void CheckLevels(rocksdb_t* db) {
  const rocksdb_livefiles_t* files = rocksdb_livefiles(db);
  int per_level[7] = {0};
  for (int i = 0; i < rocksdb_livefiles_count(files); ++i) {
    int level = rocksdb_livefiles_level(files, i);
    if (level >= 0 && level < 7) ++per_level[level];
  }
  rocksdb_livefiles_destroy(files);
  printf("tables: L0 %d, L1 %d, L2 %d\n", per_level[0], per_level[1],
         per_level[2]);
  for (int level = 0; level <= 2; ++level) {
    if (per_level[level] == 0) Fail("no table at L%d", level);
  }
}

// The LOG of the DB in `dir`, closed (RocksDB buffers it), after its
// flushes and compactions: the listener said it watches the column family,
// and LevelAware never said it has no listener.
static void CheckListenerWatched(const char* dir) {
  char path[4200];
  snprintf(path, sizeof path, "%s/LOG", dir);
  FILE* file = fopen(path, "rb");
  long size = -1;
  if (file != NULL && fseek(file, 0, SEEK_END) == 0) size = ftell(file);
  char* log = size >= 0 ? malloc((size_t)size + 1) : NULL;
  if (log == NULL || fseek(file, 0, SEEK_SET) != 0 ||
      fread(log, 1, (size_t)size, file) != (size_t)size) {
    Fail("cannot read %s", path);
  } else {
    log[size] = '\0';
    int watched =
        strstr(log, "] " kListenerName " watches this column family") != NULL;
    int missing = strstr(log, "no " kListenerName) != NULL;
    if (!watched) Fail("the LOG does not say " kListenerName " watches");
    if (missing) Fail("the LOG says LevelAware has no " kListenerName);
    if (watched && !missing) printf("LOG: " kListenerName " watches\n");
  }
  free(log);
  if (file != NULL) fclose(file);
}

// --- Reading it back. ---
static int IsPresent(int slot) { return slot % 4 != 3; }

static void CheckValue(int slot, const char* value, size_t length,
                       const char* path) {
  char key[kKeySize], expected[kValueSize];
  KeyOf(slot, key);
  if (!IsPresent(slot)) {
    if (value != NULL) Fail("%s found absent key %s", path, key);
    return;
  }
  ValueOf(slot, expected);
  if (value == NULL) {
    Fail("%s lost present key %s", path, key);
  } else if (length != kValueSize || memcmp(value, expected, kValueSize)) {
    Fail("%s read a wrong value for %s", path, key);
  }
}

// Gets every slot whose presence is `present`; returns how many.
static int GetAll(rocksdb_t* db, int present) {
  rocksdb_readoptions_t* read_options = rocksdb_readoptions_create();
  char key[kKeySize];
  int reads = 0;
  for (int slot = 0; slot < kSlots; ++slot) {
    if (IsPresent(slot) != present) continue;
    KeyOf(slot, key);
    size_t length = 0;
    char* error = NULL;
    char* value =
        rocksdb_get(db, read_options, key, strlen(key), &length, &error);
    CheckNoError(error, "rocksdb_get");
    CheckValue(slot, value, length, "Get");
    rocksdb_free(value);
    ++reads;
  }
  rocksdb_readoptions_destroy(read_options);
  return reads;
}

static int MultiGetAll(rocksdb_t* db, int present) {
  rocksdb_readoptions_t* read_options = rocksdb_readoptions_create();
  char keys[kMultiGetBatch][kKeySize];
  const char* key_pointers[kMultiGetBatch];
  size_t key_sizes[kMultiGetBatch], value_sizes[kMultiGetBatch];
  char* values[kMultiGetBatch];
  char* errors[kMultiGetBatch];
  int slots[kMultiGetBatch];
  int reads = 0;
  for (int slot = 0; slot < kSlots;) {
    int batch = 0;
    for (; slot < kSlots && batch < kMultiGetBatch; ++slot) {
      if (IsPresent(slot) != present) continue;
      KeyOf(slot, keys[batch]);
      key_pointers[batch] = keys[batch];
      key_sizes[batch] = strlen(keys[batch]);
      slots[batch++] = slot;
    }
    rocksdb_multi_get(db, read_options, batch, key_pointers, key_sizes, values,
                      value_sizes, errors);
    for (int i = 0; i < batch; ++i) {
      CheckNoError(errors[i], "rocksdb_multi_get");
      CheckValue(slots[i], values[i], value_sizes[i], "MultiGet");
      rocksdb_free(values[i]);
    }
    reads += batch;
  }
  rocksdb_readoptions_destroy(read_options);
  return reads;
}

static void CheckReads(rocksdb_t* db, rocksdb_options_t* options) {
  for (int present = 1; present >= 0; --present) {
    FilterCounts before = ReadFilterCounts(options);
    int reads = GetAll(db, present);
    CheckFilterAtWork("Get", before, ReadFilterCounts(options), reads,
                      !present);
    before = ReadFilterCounts(options);
    reads = MultiGetAll(db, present);
    CheckFilterAtWork("MultiGet", before, ReadFilterCounts(options), reads,
                      !present);
  }
}

int main(void) {
  const char* tmp = getenv("TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/sstfilter_c_api_test_XXXXXX",
           tmp != NULL && *tmp ? tmp : "/tmp");
  if (mkdtemp(dir) == NULL) {
    perror(dir);
    return 1;
  }

  // A binding's usual start: options set by setters, then the string.
  rocksdb_options_t* base = rocksdb_options_create();
  rocksdb_options_set_create_if_missing(base, 1);
  rocksdb_options_enable_statistics(base);
  rocksdb_options_set_level_compaction_dynamic_level_bytes(base, 0);
  rocksdb_options_set_level0_file_num_compaction_trigger(base, 4);
  rocksdb_options_set_target_file_size_base(base, 256 << 10);
  rocksdb_options_set_max_bytes_for_level_base(base, 64 << 20);
  rocksdb_options_t* options = rocksdb_options_create();
  char* error = NULL;
  rocksdb_get_options_from_string(base, kOptions, options, &error);
  CheckNoError(error, "rocksdb_get_options_from_string");
  // After the string: its listeners={...} replaces the base's listeners.
  rocksdb_options_add_eventlistener(options, NewTableChecker());

  rocksdb_t* db = rocksdb_open(options, dir, &error);
  CheckNoError(error, "rocksdb_open");
  BuildThreeLevels(db);
  CheckLevels(db);
  printf("tables built by flushes and compactions, each checked: %d\n",
         atomic_load(&tables_built));
  if (atomic_load(&tables_built) < 4) Fail("too few tables were built");
  // Reopened, the tables' filter blocks are found and read from the files.
  rocksdb_close(db);
  CheckListenerWatched(dir);  // before the reopen renames the LOG
  db = rocksdb_open(options, dir, &error);
  CheckNoError(error, "rocksdb_open (reopen)");
  CheckReads(db, options);
  rocksdb_close(db);

  rocksdb_destroy_db(options, dir, &error);
  CheckNoError(error, "rocksdb_destroy_db");
  rocksdb_options_destroy(options);
  rocksdb_options_destroy(base);
  int failed = atomic_load(&failures);
  if (failed) {
    printf("FAIL: %d check(s) failed with %s\n", failed, kOptions);
    return 1;
  }
  printf("ok: %s through RocksDB's C API\n", kOptions);
  return 0;
}
