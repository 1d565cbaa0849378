// The main() both benchmark binaries share: default repetitions, Google Benchmark's own flags,
// a listing-only mode that needs no GPU, and the binary's set-up / summary / tear-down around the run.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

namespace scankit_bench {

struct bench_hooks {
  const char* name;            // for messages
  void (*register_all)();      // registers every benchmark
  void (*setup_gpu)();         // throws when nothing can be measured
  int (*print_summary)();      // returns the number of failed rows
  void (*teardown_gpu)();
};

// --benchmark_list_tests (unless =false / =0) only lists names: no GPU is touched.
inline bool wants_listing_only(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--benchmark_list_tests", 0) == 0) {
      return !(arg.size() >= 6 &&
               (arg.compare(arg.size() - 6, 6, "=false") == 0 || arg.compare(arg.size() - 2, 2, "=0") == 0));
    }
  }
  return false;
}

inline int run_benchmark_main(int argc, char** argv, const bench_hooks& hooks) {
  // Defaults go first so that the caller's own flags, parsed after them, win.
  static char default_repetitions[] = "--benchmark_repetitions=5";
  std::vector<char*> args;
  args.push_back(argv[0]);
  args.push_back(default_repetitions);
  for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
  int args_count = static_cast<int>(args.size());
  args.push_back(nullptr);

  hooks.register_all();
  benchmark::Initialize(&args_count, args.data());
  if (benchmark::ReportUnrecognizedArguments(args_count, args.data())) return 1;
  if (wants_listing_only(argc, argv)) {
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
  }
  try {
    hooks.setup_gpu();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: cannot measure: %s\n", hooks.name, e.what());
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  const int failed = hooks.print_summary();
  hooks.teardown_gpu();
  benchmark::Shutdown();
  return failed == 0 ? 0 : 1;
}

}  // namespace scankit_bench
