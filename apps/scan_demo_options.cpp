// `scankit scan`'s command line, by CLI11.
#include "scan_demo_options.hpp"

#include <cstdint>
#include <limits>
#include <string>

#include <CLI/CLI.hpp>

#include "scankit/error.hpp"
#include "scankit/scan_options.hpp"

namespace scankit::apps {

int parse_scan_demo_options(int argc, char** argv, scan_demo_options& o) {
  CLI::App app{"The int32 inclusive sum of N generated values with every strategy x block algorithm of the scan\n"
               "lab, each checked against the host reference and timed beside a device-to-device copy of the\n"
               "same bytes. Without a CUDA device only the host reference runs.",
               "scankit scan"};
  app.add_option("--n", o.n, "number of values (default 2^26)")
      ->check(CLI::Range(std::int64_t{1}, std::numeric_limits<std::int64_t>::max()));
  app.add_option("--repeat", o.repeat, "timed calls per strategy; the median is reported (default 10)")
      ->check(CLI::Range(1, 1'000'000));
  app.add_option("--seed", o.seed, "seed of the generated values (default 1)");
  app.add_option("--strategy", o.strategy,
                 "three_launch, reduce_then_scan, chained, decoupled_look_back, or all (default)");
  app.add_option("--block", o.block,
                 "kogge_stone_double_buffer, kogge_stone_read_sync_write, brent_kung, warp_of_warps, or all "
                 "(default)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help: CLI11 prints it
    throw error("scankit scan: " + std::string(e.what()) + " (see --help)");
  }
  // The names are checked by the library's own parsers (they throw scankit::error naming them).
  if (o.strategy != "all") (void)parse_scan_strategy(o.strategy);
  if (o.block != "all") (void)parse_block_scan_algorithm(o.block);
  return -1;
}

}  // namespace scankit::apps
