#include "lab_options.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <sstream>

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
  throw usage_error("--type: unknown value type '" + name +
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
  if (t.empty()) throw usage_error("--experiments: empty list (say 1,2,... or all)");
  auto parse_id = [&](const std::string& s) {
    std::uint64_t v = 0;
    if (!parse_unsigned(s, v) || v < 1 || v > static_cast<std::uint64_t>(experiment_count))
      throw usage_error("--experiments: '" + s + "' is not an experiment (1.." + std::to_string(experiment_count) +
                        " or all)");
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
    if (a > b) throw usage_error("--experiments: range '" + item + "' runs backwards");
    for (int i = a; i <= b; ++i) ids.push_back(i);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

lab_options parse_lab_options(const std::vector<std::string>& args) {
  lab_options o;
  bool quick_given = false, full_given = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    std::string inline_value;
    bool has_inline = false;
    if (a.rfind("--", 0) == 0) {
      const auto eq = a.find('=');
      if (eq != std::string::npos) {
        inline_value = a.substr(eq + 1);
        a = a.substr(0, eq);
        has_inline = true;
      }
    }
    auto value = [&]() -> std::string {
      if (has_inline) return inline_value;
      if (i + 1 >= args.size()) throw usage_error(a + " needs a value");
      return args[++i];
    };
    auto no_value = [&]() {
      if (has_inline) throw usage_error(a + " takes no value");
    };
    if (a == "--help" || a == "-h") {
      no_value();
      o.help = true;
    } else if (a == "--quick") {
      no_value();
      quick_given = true;
    } else if (a == "--full") {
      no_value();
      full_given = true;
    } else if (a == "--type") {
      o.type = parse_value_type(value());
      o.type_given = true;
    } else if (a == "--sizes") {
      o.sizes = parse_size_list(value());
    } else if (a == "--scaling-sizes") {
      o.scaling_sizes = parse_size_list(value());
    } else if (a == "--experiments") {
      o.experiments = parse_experiment_list(value());
    } else if (a == "--out") {
      o.out_dir = value();
      if (o.out_dir.empty()) throw usage_error("--out needs a folder name");
    } else if (a == "--repeat") {
      const std::string v = value();
      std::uint64_t r = 0;
      if (!parse_unsigned(v, r) || r < 1 || r > 1000) throw usage_error("--repeat: '" + v + "' is not a count in 1..1000");
      o.repeat = static_cast<int>(r);
    } else if (a == "--seed") {
      const std::string v = value();
      if (!parse_unsigned(v, o.seed)) throw usage_error("--seed: '" + v + "' is not a non-negative integer");
    } else if (a == "--no-plots") {
      no_value();
      o.plots = false;
    } else {
      throw usage_error("unknown option '" + args[i] + "'");
    }
  }
  if (quick_given && full_given) throw usage_error("--quick and --full exclude each other");
  o.full = full_given;
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
  std::ostringstream os;
  os << "usage: scankit lab [--quick | --full] [--type T] [--sizes LIST] [--scaling-sizes LIST]\n"
        "                   [--experiments LIST] [--out DIR] [--repeat R] [--seed S] [--no-plots]\n"
        "\n"
        "The scan lab: runs the classic prefix-sum experiments (a textbook chapter on scan and a lecture on\n"
        "multi-block scan) on this GPU and prints what they predict next to what was measured.\n"
        "Every variant it times is first checked against the host reference on the same input; a mismatch\n"
        "is printed as MISMATCH and the run ends with a non-zero status. Times are CUDA-event medians after\n"
        "a warm-up; GB/s counts 2*N*sizeof(T) bytes (read once, write once); \"of copy\" is that rate over\n"
        "cudaMemcpy device-to-device of the same bytes, measured in the same run.\n"
        "\n"
        "experiments (--experiments 1,3-5 or all):\n";
  for (int id = 1; id <= experiment_count; ++id) {
    const auto& e = experiment(id);
    os << "  " << id << "  " << e.title << (e.needs_kernel_variants ? "  [int32, float]" : "") << "\n";
  }
  os << "\n"
        "options:\n"
        "  --quick            quick mode (default): sizes 2^20 and 2^24, scaling 2^10..2^28 in steps of 4x,\n"
        "                     repeat 5, chained scan in the scaling run only up to 2^26; meant to take under a\n"
        "                     minute on an H200\n"
        "  --full             full mode: sizes 2^12, 2^16, 2^20, 2^24, 2^26, 2^28, scaling every power of two\n"
        "                     from 2^10 to 2^30, repeat 10\n"
        "  --type T           value type of the scans: int32 (default) or float; int8, uint8, int16, uint16,\n"
        "                     uint32, int64, uint64 and double run the experiments without the coarsening sweep\n"
        "                     (1, 2, 6, 7) at the tuned items per thread; CUB covers int32, int64, float, double\n"
        "  --sizes LIST       element counts for experiments 1-6, e.g. 2^20,1000000 or 2^16..2^24 (powers of two)\n"
        "  --scaling-sizes LIST  element counts for experiment 7 (default: see the modes)\n"
        "  --experiments LIST which experiments to run: ids, ranges or all (default all)\n"
        "  --out DIR          folder for the CSV, JSON and PNG files (default lab-out; created if missing)\n"
        "  --repeat R         timed repetitions per measurement, the median is reported (default 5 quick, 10 full)\n"
        "  --seed S           seed of the random inputs (default 1)\n"
        "  --no-plots         write CSV and JSON only (plots need python3 with matplotlib and\n"
        "                     scripts/plot_lab.py; SCANKIT_PYTHON and SCANKIT_PLOT_SCRIPT override where they are)\n"
        "  --help             this text\n"
        "\n"
        "Sizes that do not fit in the GPU's free memory are skipped with a notice. Without a CUDA device the\n"
        "lab says so, times the host reference (the CPU part of experiment 1) and exits with status 3.\n"
        "Exit status: 0 all measured and correct, 1 a mismatch or a failure, 2 a bad command line, 3 no GPU.\n";
  return os.str();
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
