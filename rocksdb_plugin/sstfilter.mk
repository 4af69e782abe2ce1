# RocksDB plugin-folder description (RocksDB's plugin/README.md). Link or
# copy this directory to <rocksdb>/plugin/sstfilter and build RocksDB with
#   make ROCKSDB_PLUGINS=sstfilter SSTFILTER_PREFIX=<prefix> db_bench
# or
#   cmake -DROCKSDB_PLUGINS=sstfilter -DCMAKE_PREFIX_PATH=<prefix> ...
# RocksDB then compiles these sources into its library and calls the
# registration function from ObjectRegistry::Default(), so its db_bench,
# ldb and db_stress know the sstfilter.* policies. The filters themselves
# come from an installed sstfilter core (cmake --install, see README): the
# Makefile takes it from SSTFILTER_PREFIX, CMake from find_package
# (CMakeLists.txt). RocksDB's CMake reads the three lines below with
# regular expressions: keep each on one line, spaced as they are.
sstfilter_SOURCES = src/block_cache_share.cc src/block_index.cc src/builder.cc src/cache_charge.cc src/cuckoo_policy.cc src/id_grammar.cc src/job_handoff.cc src/level_aware_allocation.cc src/level_aware_builder.cc src/level_aware_listener.cc src/level_aware_policy.cc src/level_aware_tree.cc src/level_cost_model.cc src/memory_ledger.cc src/policy_base.cc src/range_filter_collector.cc src/range_table_filter.cc src/readers.cc src/registration.cc
sstfilter_HEADERS = include/sstfilter/rocksdb_plugin.h include/sstfilter/range_filter_rocksdb.h
sstfilter_FUNC = RegisterSstfilterPolicies

SSTFILTER_PREFIX ?= /usr/local
sstfilter_CXXFLAGS = -I./plugin/sstfilter/include -I$(SSTFILTER_PREFIX)/include
sstfilter_LDFLAGS = -L$(SSTFILTER_PREFIX)/lib -lsstfilter -lxxhash
