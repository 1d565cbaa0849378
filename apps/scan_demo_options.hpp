// `scankit scan`'s options (plain C++): parsed by CLI11 in scan_demo_options.cpp, so that the
// host tests check them as the command line does.
#pragma once

#include <cstdint>
#include <string>

namespace scankit::apps {

struct scan_demo_options {
  std::int64_t n = std::int64_t{1} << 26;
  int repeat = 10;
  std::uint64_t seed = 1;
  std::string strategy = "all";  // a scan_strategy name, or all
  std::string block = "all";     // a block_scan_algorithm name, or all
};

// Returns -1 when the options are parsed and the run should go on, else the exit status (--help
// prints the help and returns 0). Bad options throw scankit::error.
int parse_scan_demo_options(int argc, char** argv, scan_demo_options& options);

}  // namespace scankit::apps
