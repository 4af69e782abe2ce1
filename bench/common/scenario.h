// bench/common/scenario.h: how both instruments pick a named scenario from
// their first argument, as db_bench picks a benchmark from --benchmarks.
#pragma once

#include <cstdio>
#include <string_view>

namespace sstfilter::bench {

struct Scenario {
  const char* name;
  // Called with argv[0] the scenario's name and its flags after it.
  int (*main)(int argc, char** argv);
  const char* what;  // one line for the list
};

// Runs the scenario argv[1] names and returns its exit status; lists the
// scenarios and returns 2 if argv[1] names none.
template <size_t N>
int RunScenario(const Scenario (&scenarios)[N], int argc, char** argv) {
  if (argc >= 2) {
    for (const Scenario& scenario : scenarios) {
      if (std::string_view(argv[1]) == scenario.name) {
        return scenario.main(argc - 1, argv + 1);
      }
    }
  }
  std::fprintf(stderr, "usage: %s SCENARIO [flags]; the scenarios:\n", argv[0]);
  for (const Scenario& scenario : scenarios) {
    std::fprintf(stderr, "  %-13s %s\n", scenario.name, scenario.what);
  }
  return 2;
}

}  // namespace sstfilter::bench
