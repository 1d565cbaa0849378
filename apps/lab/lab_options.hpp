// `scankit lab`: command-line options and the plan they resolve to. Plain C++, no CUDA: the
// host tests exercise everything here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace scankit::lab {

// A bad command line: printed with "scankit lab: " in front, exit status 2.
class usage_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Value types of the precompiled API.
enum class value_type { int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64 };

const char* to_string(value_type t) noexcept;  // int8 ... uint64, float, double
value_type parse_value_type(const std::string& name);  // throws usage_error
std::size_t size_of(value_type t) noexcept;
bool is_floating(value_type t) noexcept;
// int32 and float: every items_per_thread in {1,2,4,8,16} and describe_scan_kernel.
bool has_kernel_variants(value_type t) noexcept;
// The types the CUB reference is built for (lab_cub.cu): int32, int64, float, double.
bool cub_supports(value_type t) noexcept;
// The tuned items per thread of the precompiled library (16 KiB tiles of 256 threads).
int tuned_items_per_thread(value_type t) noexcept;

inline constexpr int experiment_count = 7;

struct experiment_info {
  int id;
  const char* slug;      // file stem of its CSV: exp<id>_<slug>.csv
  const char* title;     // one line
  const char* seed_says; // what the textbook and lecture claim or ask
  bool needs_kernel_variants;  // needs has_kernel_variants(type)
};
// id in 1..experiment_count; throws std::out_of_range otherwise.
const experiment_info& experiment(int id);

struct lab_options {
  bool full = false;                        // --full (default: --quick)
  bool quick = false;                       // --quick given (the default mode; excludes --full)
  value_type type = value_type::int32;      // --type
  bool type_given = false;
  std::vector<std::int64_t> sizes;          // --sizes: experiments 1-6 (empty: the mode's default)
  std::vector<std::int64_t> scaling_sizes;  // --scaling-sizes: experiment 7 (empty: default)
  std::vector<int> experiments;             // --experiments (empty: all)
  std::string out_dir = "lab-out";          // --out
  int repeat = 0;                           // --repeat (0: the mode's default)
  std::uint64_t seed = 1;                   // --seed
  bool plots = true;                        // --no-plots turns off
  bool help = false;                        // --help / -h
};

// "2^20", "1048576", "1M" is not accepted (say 2^20 or 1000000). Throws usage_error.
std::int64_t parse_size(const std::string& text);
// Comma-separated sizes and power-of-two ranges: "2^10,1000000,2^20..2^24" (a range doubles
// from its first to its last size; both ends must be powers of two). Sorted, without repeats.
std::vector<std::int64_t> parse_size_list(const std::string& text);
// "all", or a comma-separated list of ids and ranges: "1,3-5,7". Sorted, without repeats.
std::vector<int> parse_experiment_list(const std::string& text);
// The arguments after "lab", parsed by CLI11. Throws usage_error with a message that names the
// option (or the unexpected argument). --help or -h only sets `help`: the caller prints lab_usage().
lab_options parse_lab_options(const std::vector<std::string>& args);
// The --help text: CLI11's help of the same command line, every option on one line.
std::string lab_usage();
// 1048576 -> "2^20", 1000000 -> "1000000".
std::string format_size(std::int64_t n);

// What a run does, resolved from the options: defaults filled in, experiments that cannot run
// for the value type dropped with a notice. Pure: no device is consulted.
struct lab_plan {
  bool full = false;
  value_type type = value_type::int32;
  int repeat = 5;
  std::uint64_t seed = 1;
  std::string out_dir;
  bool plots = true;
  std::vector<int> experiments;             // to run, ascending
  std::vector<std::string> notices;         // what was left out and why
  std::vector<std::int64_t> sizes;          // experiments 1-6
  std::vector<std::int64_t> scaling_sizes;  // experiment 7
  std::vector<int> coarsening_factors;      // experiment 4 (and K = 1 in experiments 2, 3, 5)
  std::int64_t chained_scaling_limit = 0;   // experiment 7 runs the chained scan up to this size

  bool runs(int id) const;
  std::int64_t largest_size() const;        // over the experiments that run
};

// Quick mode: 2^20 and 2^24, scaling 2^10..2^28 in steps of 4x, repeat 5, chained <= 2^26.
// Full mode: 2^12, 2^16, 2^20, 2^24, 2^26, 2^28, scaling 2^10..2^30 in steps of 2x, repeat 10.
// Throws usage_error when an experiment that was asked for by number cannot run for the type.
lab_plan make_plan(const lab_options& options);

}  // namespace scankit::lab
