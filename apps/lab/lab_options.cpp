// `scankit lab`: value types, the experiments, the size and experiment-list parsers, the command line
// (by CLI11) and the plan it resolves to.
#include "lab_options.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <functional>
#include <limits>
#include <sstream>

#include <CLI/CLI.hpp>

namespace scankit::lab {

namespace {

constexpr std::int64_t max_lab_size = std::int64_t(1) << 34;  // far beyond any GPU's memory for a scan

const experiment_info experiments_table[experiment_count] = {
    {1, "three_launch_vs_cpu", "Three-launch multi-block scan vs the CPU",
     "Lecture, exercise 1: write the three-launch multi-block scan (block scans, scan of the block totals, "
     "add the offsets) on 1M elements and compare it with the CPU result.",
     false},
    {2, "warp_vs_shared", "Warp-shuffle block scan vs shared-memory block scans",
     "Lecture 05-06: a block scan built from __shfl_up_sync warp scans (warp of warps) takes about 30-40% "
     "less time than the shared-memory block scans.",
     false},
    {3, "barriers", "Block barriers per tile for each block algorithm, next to its time",
     "Lecture 09: the dominant cost of a block scan is __syncthreads() latency, not memory; exercise 3: "
     "the warp-of-warps block scan has exactly two barriers.",
     true},
    {4, "coarsening", "Coarsening sweep: K items per thread in {1, 2, 4, 8, 16}",
     "Lecture 07 and exercise 4: K items per thread in registers make the block scan cheaper, but more "
     "registers per thread eventually lower occupancy; find the best K and where occupancy starts to fall.",
     true},
    {5, "work_depth", "Work and depth: Kogge-Stone vs Brent-Kung",
     "Chapter 11.3-11.4: Kogge-Stone does about N log2 N operations in log2 N steps; Brent-Kung about 2N "
     "operations in 2 log2 N steps (N = threads of the block).",
     true},
    {6, "vs_cub", "scankit vs cub::DeviceScan at each size (every strategy x block algorithm)",
     "Lecture, exercise 6: compare your own scan with cub::DeviceScan; where the difference comes from is "
     "the lesson.",
     false},
    {7, "scaling", "Scaling up to 2^30 elements",
     "Lecture, exercise 7: time must grow exactly linearly in N up to 1B elements; N log N growth means "
     "a bad algorithm somewhere.",
     false},
};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      parts.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(trim(cur));
  return parts;
}

// A non-negative decimal integer without sign, spaces or suffix; false if not.
bool parse_unsigned(const std::string& s, std::uint64_t& value) {
  if (s.empty() || s.size() > 20) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (errno == ERANGE || end != s.c_str() + s.size()) return false;
  value = v;
  return true;
}

bool is_power_of_two(std::int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

std::vector<std::int64_t> powers_of_two(int first_log2, int last_log2, int step) {
  std::vector<std::int64_t> v;
  for (int k = first_log2; k <= last_log2; k += step) v.push_back(std::int64_t(1) << k);
  return v;
}

}  // namespace

const char* to_string(value_type t) noexcept {
  switch (t) {
    case value_type::int8: return "int8";
    case value_type::uint8: return "uint8";
    case value_type::int16: return "int16";
    case value_type::uint16: return "uint16";
    case value_type::int32: return "int32";
    case value_type::uint32: return "uint32";
    case value_type::int64: return "int64";
    case value_type::uint64: return "uint64";
    case value_type::float32: return "float";
    case value_type::float64: return "double";
  }
  return "?";
}

value_type parse_value_type(const std::string& name) {
  static const struct {
    const char* name;
    value_type type;
  } names[] = {{"int8", value_type::int8},       {"uint8", value_type::uint8},     {"int16", value_type::int16},
               {"uint16", value_type::uint16},   {"int32", value_type::int32},     {"uint32", value_type::uint32},
               {"int64", value_type::int64},     {"uint64", value_type::uint64},   {"float", value_type::float32},
               {"float32", value_type::float32}, {"double", value_type::float64}, {"float64", value_type::float64}};
  for (const auto& n : names)
    if (name == n.name) return n.type;
  throw usage_error("unknown value type '" + name +
                    "' (int8, uint8, int16, uint16, int32, uint32, int64, uint64, float, double)");
}

std::size_t size_of(value_type t) noexcept {
  switch (t) {
    case value_type::int8:
    case value_type::uint8: return 1;
    case value_type::int16:
    case value_type::uint16: return 2;
    case value_type::int32:
    case value_type::uint32:
    case value_type::float32: return 4;
    case value_type::int64:
    case value_type::uint64:
    case value_type::float64: return 8;
  }
  return 0;
}

bool is_floating(value_type t) noexcept { return t == value_type::float32 || t == value_type::float64; }

bool has_kernel_variants(value_type t) noexcept { return t == value_type::int32 || t == value_type::float32; }

bool cub_supports(value_type t) noexcept {
  return t == value_type::int32 || t == value_type::int64 || t == value_type::float32 || t == value_type::float64;
}

int tuned_items_per_thread(value_type t) noexcept { return static_cast<int>(16384 / 256 / size_of(t)); }

const experiment_info& experiment(int id) {
  if (id < 1 || id > experiment_count) throw std::out_of_range("scankit lab: no experiment " + std::to_string(id));
  return experiments_table[id - 1];
}

std::int64_t parse_size(const std::string& text) {
  const std::string s = trim(text);
  std::uint64_t value = 0;
  const auto caret = s.find('^');
  if (caret != std::string::npos) {
    std::uint64_t base = 0, exponent = 0;
    if (!parse_unsigned(s.substr(0, caret), base) || base != 2 || !parse_unsigned(s.substr(caret + 1), exponent))
      throw usage_error("size '" + s + "': write a power of two as 2^k (for example 2^20)");
    if (exponent > 34) throw usage_error("size '" + s + "' is too large (at most 2^34)");
    value = std::uint64_t(1) << exponent;
  } else if (!parse_unsigned(s, value)) {
    throw usage_error("size '" + s + "' is not a number (write 1000000 or 2^20)");
  }
  if (value == 0) throw usage_error("size '" + s + "' must be at least 1");
  if (value > static_cast<std::uint64_t>(max_lab_size)) throw usage_error("size '" + s + "' is too large (at most 2^34)");
  return static_cast<std::int64_t>(value);
}

std::vector<std::int64_t> parse_size_list(const std::string& text) {
  std::vector<std::int64_t> sizes;
  if (trim(text).empty()) throw usage_error("empty size list");
  for (const std::string& item : split(text, ',')) {
    if (item.empty()) throw usage_error("size list '" + text + "' has an empty entry");
    const auto dots = item.find("..");
    if (dots == std::string::npos) {
      sizes.push_back(parse_size(item));
      continue;
    }
    const std::int64_t first = parse_size(item.substr(0, dots));
    const std::int64_t last = parse_size(item.substr(dots + 2));
    if (!is_power_of_two(first) || !is_power_of_two(last) || first > last)
      throw usage_error("size range '" + item + "': both ends must be powers of two, the first not above the last");
    for (std::int64_t n = first; n <= last; n *= 2) sizes.push_back(n);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

std::vector<int> parse_experiment_list(const std::string& text) {
  const std::string t = trim(text);
  std::vector<int> ids;
  if (t == "all") {
    for (int i = 1; i <= experiment_count; ++i) ids.push_back(i);
    return ids;
  }
  if (t.empty()) throw usage_error("empty list (say 1,2,... or all)");
  auto parse_id = [&](const std::string& s) {
    std::uint64_t v = 0;
    if (!parse_unsigned(s, v) || v < 1 || v > static_cast<std::uint64_t>(experiment_count))
      throw usage_error("'" + s + "' is not an experiment (1.." + std::to_string(experiment_count) + " or all)");
    return static_cast<int>(v);
  };
  for (const std::string& item : split(t, ',')) {
    const auto dash = item.find('-');
    if (dash == std::string::npos) {
      ids.push_back(parse_id(item));
      continue;
    }
    const int a = parse_id(trim(item.substr(0, dash)));
    const int b = parse_id(trim(item.substr(dash + 1)));
    if (a > b) throw usage_error("range '" + item + "' runs backwards");
    for (int i = a; i <= b; ++i) ids.push_back(i);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

namespace {

// A CLI11 check made of one of the parsers above: the parser's usage_error is the check's message,
// which CLI11 prints after the option's name.
template <class Parse>
std::function<std::string(const std::string&)> accepted_by(Parse parse) {
  return [parse](const std::string& text) {
    try {
      (void)parse(text);
    } catch (const usage_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
}

// CLI11 also reads signs and other bases, and wraps "-1" into an unsigned type: counts and seeds
// here are decimal digits only.
std::string decimal_digits_only(const std::string& text) {
  std::uint64_t value = 0;
  return parse_unsigned(text, value) ? std::string() : "'" + text + "' is not a non-negative integer";
}

std::string not_empty(const std::string& text) { return text.empty() ? "the folder name is empty" : ""; }

std::string help_footer() {
  std::ostringstream os;
  os << "experiments (--experiments 1,3-5 or all):\n";
  for (int id = 1; id <= experiment_count; ++id) {
    const auto& e = experiment(id);
    os << "  " << id << "  " << e.title << (e.needs_kernel_variants ? "  [int32, float]" : "") << "\n";
  }
  os << "\n"
        "--quick is meant to take under a minute on an H200; its scaling run times the chained scan only up\n"
        "to 2^26. Types other than int32 and float run experiments 1, 2, 6 and 7 (no coarsening sweep) at the\n"
        "tuned items per thread; the CUB reference covers int32, int64, float and double. Plots need python3\n"
        "with matplotlib and scripts/plot_lab.py; SCANKIT_PYTHON and SCANKIT_PLOT_SCRIPT override where they are.\n"
        "Sizes that do not fit in the GPU's free memory are skipped with a notice. Without a CUDA device the\n"
        "lab says so, times the host reference (the CPU part of experiment 1) and exits with status 3.\n"
        "Exit status: 0 all measured and correct, 1 a mismatch or a failure, 2 a bad command line, 3 no GPU.";
  return os.str();
}

// The command line, bound to `o`. parse_lab_options parses with it, lab_usage prints its help.
void define_command_line(CLI::App& app, lab_options& o) {
  app.name("scankit lab");
  app.description(
      "The scan lab: runs the classic prefix-sum experiments (a textbook chapter on scan and a lecture on\n"
      "multi-block scan) on this GPU and prints what they predict next to what was measured.\n"
      "Every variant it times is first checked against the host reference on the same input; a mismatch\n"
      "is printed as MISMATCH and the run ends with a non-zero status. Times are CUDA-event medians after\n"
      "a warm-up; GB/s counts 2*N*sizeof(T) bytes (read once, write once); \"of copy\" is that rate over\n"
      "cudaMemcpy device-to-device of the same bytes, measured in the same run.\n");
  app.footer(help_footer());
  app.get_formatter()->label("Usage", "usage");
  app.set_help_flag("-h,--help", "print this help and exit");
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // given twice: the last counts

  // Flags take no value: "--no-plots=1" is an error, not a way to say "true".
  auto* quick = app.add_flag("--quick", o.quick, "quick mode (default): sizes 2^20, 2^24; scaling 2^10..2^28 by 4x; repeat 5")
                    ->disable_flag_override();
  app.add_flag("--full", o.full, "full mode: sizes 2^12, 2^16, 2^20, 2^24, 2^26, 2^28; scaling 2^10..2^30; repeat 10")
      ->disable_flag_override()
      ->excludes(quick);
  app.add_option_function<std::string>(
         "--type",
         [&o](const std::string& t) {
           o.type = parse_value_type(t);
           o.type_given = true;
         },
         "value type: int32 (default), float, double, int8, uint8, int16, uint16, uint32, int64, uint64")
      ->type_name("T")
      ->check(accepted_by(parse_value_type));
  app.add_option_function<std::string>(
         "--sizes", [&o](const std::string& t) { o.sizes = parse_size_list(t); },
         "element counts for experiments 1-6: 2^20,1000000, or powers of two 2^16..2^24")
      ->type_name("LIST")
      ->check(accepted_by(parse_size_list));
  app.add_option_function<std::string>(
         "--scaling-sizes", [&o](const std::string& t) { o.scaling_sizes = parse_size_list(t); },
         "element counts for experiment 7, written as for --sizes (default: the mode's)")
      ->type_name("LIST")
      ->check(accepted_by(parse_size_list));
  app.add_option_function<std::string>(
         "--experiments", [&o](const std::string& t) { o.experiments = parse_experiment_list(t); },
         "experiments to run: ids and ranges (1,3-5), or all (default)")
      ->type_name("LIST")
      ->check(accepted_by(parse_experiment_list));
  app.add_option("--out", o.out_dir, "folder for the CSV, JSON and PNG files, created if missing (default lab-out)")
      ->type_name("DIR")
      ->check(not_empty);
  app.add_option("--repeat", o.repeat,
                 "timed runs per measurement, 1..1000; the median is reported (default 5, full 10)")
      ->type_name("R")
      ->check(decimal_digits_only)
      ->check(CLI::Range(1, 1000).description(""));  // the range is in the description
  app.add_option("--seed", o.seed, "seed of the random inputs (default 1)")->type_name("S")->check(decimal_digits_only);
  app.add_flag_callback("--no-plots", [&o] { o.plots = false; }, "write CSV and JSON only, no PNG plots")
      ->disable_flag_override();
}

}  // namespace

lab_options parse_lab_options(const std::vector<std::string>& args) {
  lab_options o;
  CLI::App app;
  define_command_line(app, o);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes the last argument first
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() != 0) throw usage_error(e.what());
    o.help = true;  // --help: run_lab prints lab_usage()
  }
  return o;
}

std::string format_size(std::int64_t n) {
  if (is_power_of_two(n) && n >= 2) {
    int k = 0;
    while ((std::int64_t(1) << k) != n) ++k;
    return "2^" + std::to_string(k);
  }
  return std::to_string(n);
}

std::string lab_usage() {
  lab_options unused;
  CLI::App app;
  define_command_line(app, unused);
  return app.help();
}

bool lab_plan::runs(int id) const { return std::find(experiments.begin(), experiments.end(), id) != experiments.end(); }

std::int64_t lab_plan::largest_size() const {
  std::int64_t m = 0;
  bool main_used = false;
  for (int id : experiments) main_used = main_used || id <= 6;
  if (main_used)
    for (auto n : sizes) m = std::max(m, n);
  if (runs(7))
    for (auto n : scaling_sizes) m = std::max(m, n);
  return m;
}

lab_plan make_plan(const lab_options& o) {
  lab_plan p;
  p.full = o.full;
  p.type = o.type;
  p.repeat = o.repeat > 0 ? o.repeat : (o.full ? 10 : 5);
  p.seed = o.seed;
  p.out_dir = o.out_dir;
  p.plots = o.plots;
  p.sizes = !o.sizes.empty() ? o.sizes
            : o.full         ? std::vector<std::int64_t>{std::int64_t(1) << 12, std::int64_t(1) << 16, std::int64_t(1) << 20,
                                                         std::int64_t(1) << 24, std::int64_t(1) << 26, std::int64_t(1) << 28}
                             : std::vector<std::int64_t>{std::int64_t(1) << 20, std::int64_t(1) << 24};
  p.scaling_sizes = !o.scaling_sizes.empty() ? o.scaling_sizes : o.full ? powers_of_two(10, 30, 1) : powers_of_two(10, 28, 2);
  p.chained_scaling_limit = o.full ? max_lab_size : (std::int64_t(1) << 26);
  p.coarsening_factors = {1, 2, 4, 8, 16};

  const bool explicit_list = !o.experiments.empty();
  const std::vector<int> wanted = explicit_list ? o.experiments : parse_experiment_list("all");
  for (int id : wanted) {
    const auto& e = experiment(id);
    if (e.needs_kernel_variants && !has_kernel_variants(o.type)) {
      const std::string why = std::string("experiment ") + std::to_string(id) + " (" + e.title +
                              ") needs the kernel variants precompiled for int32 and float only, not " + to_string(o.type);
      if (explicit_list) throw usage_error(why);
      p.notices.push_back(why + ": skipped");
      continue;
    }
    p.experiments.push_back(id);
  }
  if (!has_kernel_variants(o.type) && (p.runs(2))) {
    p.notices.push_back(std::string("experiment 2 runs at the tuned items per thread only: K = 1 is precompiled for "
                                    "int32 and float, not ") + to_string(o.type));
  }
  if (!cub_supports(o.type) && (p.runs(6) || p.runs(7))) {
    p.notices.push_back(std::string("the CUB reference is built for int32, int64, float and double, not ") +
                        to_string(o.type) + ": no speed-up vs CUB");
  }
  if (p.runs(7) && p.scaling_sizes.size() < 2)
    p.notices.push_back("experiment 7 has fewer than two sizes: it cannot fit a growth rate");
  return p;
}

}  // namespace scankit::lab
