// `scankit sort`: sorts one column of a dataset file (or generated keys) on the GPU with the radix
// sort, or each segment of it on its own (--segments: CSR offsets) with the segmented sort, checks
// the result bit for bit against the host reference and reports keys/s next to a
// device-to-device copy of the same bytes. Without a CUDA device the host reference runs alone,
// with a notice. Plain C++ (g++): it uses only the precompiled host API; options are parsed by CLI11.
//
//   scankit sort                                      2^24 generated f32 keys
//   scankit sort --n 1000000 --type u64 --descending --strategy reduce_then_scan
//   scankit sort --input readings.csv --column temperature_c --argsort --output sorted.csv
//   scankit sort --input keys.bin --type i64 --begin-bit 0 --end-bit 32
//   scankit sort --input scores.csv --column score --segments groups.txt --descending
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <CLI/CLI.hpp>
#include <cuda_runtime_api.h>

#include "scankit/error.hpp"
#include "scankit/segmented_sort.hpp"
#include "scankit/sort.hpp"
#include "scankit/reference/sort_reference.hpp"
#include "scankit/scan.hpp"  // cuda_device_available

namespace {

struct app_options {
  std::string input, format, column, type, output, segments;  // empty: the defaults described in --help
  std::string strategy = "automatic";
  bool descending = false, argsort = false;
  int begin_bit = 0, end_bit = -1;
  std::int64_t n = std::int64_t{1} << 24;
  std::uint64_t seed = 7;
  int repeat = 5;
};

[[noreturn]] void fail(const std::string& message) { throw scankit::error("scankit sort: " + message); }

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string format_of(const std::string& format, const std::string& path) {
  return !format.empty() ? format : (ends_with(path, ".bin") ? "bin" : "csv");
}

// Returns -1 when the options are parsed and the run should go on, else the exit status (help).
int parse(int argc, char** argv, app_options& o) {
  CLI::App app{"Sorts a column of a dataset file (or generated keys) on the GPU with the radix sort, checks\n"
               "the result bit for bit against the host reference and reports keys/s and the time of a\n"
               "device-to-device copy of the same bytes. Without a CUDA device only the host reference runs.",
               "scankit sort"};
  const std::vector<std::string> types{"u32", "i32", "u64", "i64", "f32", "f64"};
  auto* input = app.add_option("--input", o.input, "CSV file with a header row, or raw binary keys of --type");
  app.add_option("--format", o.format, "csv or bin (default: bin for a .bin name, else csv)")
      ->check(CLI::IsMember({"csv", "bin"}));
  app.add_option("--column", o.column, "CSV column to sort: header name or 0-based index (default 0)");
  app.add_option("--type", o.type, "key type: u32, i32, u64, i64, f32, f64 (default: f64 for CSV, else f32)")
      ->check(CLI::IsMember(types));
  app.add_flag("--descending", o.descending, "largest key first (still stable)");
  app.add_option("--begin-bit", o.begin_bit, "first bit of the key's ordered bits to sort by (default 0)");
  app.add_option("--end-bit", o.end_bit, "one past the last bit to sort by (default: every bit)");
  app.add_option("--strategy", o.strategy, "onesweep (default) or reduce_then_scan")
      ->check(CLI::IsMember({"automatic", "onesweep", "reduce_then_scan"}));
  app.add_flag("--argsort", o.argsort, "compute the sorting permutation too (int64 indices)");
  app.add_option("--segments", o.segments,
                 "sort each segment on its own: a file of CSR offsets (num_segments + 1 integers, text with one\n"
                 "or more per line, or int64 binary for a .bin name); items outside every segment stay in place")
      ->check(CLI::ExistingFile);
  app.add_option("--output", o.output, "write the sorted column there, in the input's format");
  app.add_option("--n", o.n, "number of generated keys without --input (default 2^24)")
      ->check(CLI::NonNegativeNumber)->excludes(input);
  app.add_option("--seed", o.seed, "seed of the generated keys (default 7)")->excludes(input);
  app.add_option("--repeat", o.repeat, "timed GPU calls; the median is reported (default 5)")
      ->check(CLI::PositiveNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help: CLI11 prints it
    fail(std::string(e.what()) + " (see --help)");
  }
  return -1;
}

// ---- Reading, generating and writing keys -----------------------------------------------------

template <class T>
struct key_column {
  std::vector<T> keys;
  std::string name;  // CSV header of the column (for --output)
};

std::string trim(const std::string& s) {
  const std::size_t first = s.find_first_not_of(" \t\r"), last = s.find_last_not_of(" \t\r");
  return first == std::string::npos ? std::string() : s.substr(first, last - first + 1);
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) out.push_back(trim(field));
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

// One CSV field as T; the whole field must be a number of T's range. Empty floats are NaN.
template <class T>
T parse_key(const std::string& f, const std::string& where) {
  if (std::is_floating_point_v<T> && f.empty()) return std::numeric_limits<T>::quiet_NaN();
  char* end = nullptr;
  T v{};
  bool ok = !f.empty();
  errno = 0;
  if constexpr (std::is_floating_point_v<T>) {
    v = std::is_same_v<T, float> ? std::strtof(f.c_str(), &end) : std::strtod(f.c_str(), &end);
  } else if constexpr (std::is_signed_v<T>) {
    const long long x = std::strtoll(f.c_str(), &end, 10);
    ok = ok && x >= std::numeric_limits<T>::min() && x <= std::numeric_limits<T>::max();
    v = static_cast<T>(x);
  } else {
    const unsigned long long x = std::strtoull(f.c_str(), &end, 10);
    ok = ok && f[0] != '-' && x <= std::numeric_limits<T>::max();  // strtoull wraps negatives
    v = static_cast<T>(x);
  }
  // Floats out of range round to inf or 0 (as IEEE conversion does); integers must fit.
  if (!ok || (errno == ERANGE && !std::is_floating_point_v<T>) || end == f.c_str() || *end != '\0') {
    fail(where + ": '" + f + "' is not a number of the key type (see --type)");
  }
  return v;
}

std::size_t resolve_column(const std::string& wanted, const std::vector<std::string>& names) {
  if (!wanted.empty() && std::all_of(wanted.begin(), wanted.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    const std::size_t index = std::stoul(wanted);
    if (index >= names.size()) {
      fail("--column " + wanted + " but the header has " + std::to_string(names.size()) + " columns");
    }
    return index;
  }
  const auto it = std::find(names.begin(), names.end(), wanted);
  if (it == names.end()) fail("no column named '" + wanted + "'");
  return static_cast<std::size_t>(it - names.begin());
}

template <class T>
key_column<T> load_csv(const std::string& path, const std::string& column) {
  std::ifstream in(path);
  if (!in) fail("cannot open " + path);
  std::string line;
  if (!std::getline(in, line)) fail(path + " is empty (a CSV file starts with a header row)");
  const std::vector<std::string> names = split_csv(line);
  const std::size_t c = resolve_column(column.empty() ? "0" : column, names);
  key_column<T> d{{}, names[c]};
  for (std::int64_t number = 2; std::getline(in, line); ++number) {
    if (trim(line).empty()) continue;
    const std::vector<std::string> fields = split_csv(line);
    const std::string where = path + ":" + std::to_string(number);
    if (fields.size() <= c) fail(where + ": too few fields");
    d.keys.push_back(parse_key<T>(fields[c], where));
  }
  return d;
}

template <class T>
key_column<T> load_bin(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) fail("cannot open " + path);
  const auto bytes = static_cast<std::size_t>(in.tellg());
  if (bytes % sizeof(T) != 0) {
    fail(path + " holds " + std::to_string(bytes) + " bytes, not a whole number of " + std::to_string(sizeof(T)) +
         "-byte keys (see --type)");
  }
  key_column<T> d{std::vector<T>(bytes / sizeof(T)), "key"};
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(d.keys.data()), static_cast<std::streamsize>(bytes))) {
    fail("reading " + path + " failed");
  }
  return d;
}

// CSR offsets of segments over n keys: num_segments + 1 integers, non-decreasing, in [0, n]. Text:
// integers separated by whitespace or commas, lines starting with '#' skipped; .bin: int64.
std::vector<std::int64_t> load_offsets(const std::string& path, std::int64_t n) {
  std::vector<std::int64_t> offsets;
  if (ends_with(path, ".bin")) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) fail("cannot open " + path);
    const auto bytes = static_cast<std::size_t>(in.tellg());
    if (bytes % sizeof(std::int64_t) != 0) fail(path + " is not a whole number of int64 offsets");
    offsets.resize(bytes / sizeof(std::int64_t));
    in.seekg(0);
    if (!in.read(reinterpret_cast<char*>(offsets.data()), static_cast<std::streamsize>(bytes))) {
      fail("reading " + path + " failed");
    }
  } else {
    std::ifstream in(path);
    if (!in) fail("cannot open " + path);
    std::string line;
    for (std::int64_t number = 1; std::getline(in, line); ++number) {
      if (trim(line).empty() || trim(line)[0] == '#') continue;
      std::replace(line.begin(), line.end(), ',', ' ');
      std::istringstream fields(line);
      std::string field;
      while (fields >> field) offsets.push_back(parse_key<std::int64_t>(field, path + ":" + std::to_string(number)));
    }
  }
  if (offsets.empty()) fail(path + " holds no offsets (num_segments + 1 of them, the first one 0 or more)");
  for (std::size_t s = 0; s < offsets.size(); ++s) {
    const bool below = s > 0 && offsets[s] < offsets[s - 1];
    if (offsets[s] < 0 || offsets[s] > n || below) {
      fail(path + ": offset " + std::to_string(s) + " = " + std::to_string(offsets[s]) +
           (below ? " is below the one before it" : " is outside [0, " + std::to_string(n) + "] (the keys' count)"));
    }
  }
  return offsets;
}

// splitmix64: the same keys on every platform for a seed (std:: distributions are not portable).
template <class T>
key_column<T> generate(std::int64_t n, std::uint64_t seed) {
  key_column<T> d{std::vector<T>(static_cast<std::size_t>(n)), "key"};
  for (T& key : d.keys) {
    std::uint64_t z = (seed += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    if constexpr (std::is_floating_point_v<T>) {
      key = static_cast<T>(2000.0 * (static_cast<double>(z >> 11) / 9007199254740992.0) - 1000.0);  // [-1000, 1000)
    } else {
      key = static_cast<T>(z);  // every bit random: the full range of the type
    }
  }
  return d;
}

template <class T>
void write_keys(const key_column<T>& d, const std::vector<T>& keys, const std::string& path,
                const std::string& format) {
  std::ofstream out(path, format == "bin" ? std::ios::binary : std::ios::out);
  if (!out) fail("cannot write " + path);
  if (format == "bin") {
    out.write(reinterpret_cast<const char*>(keys.data()), static_cast<std::streamsize>(keys.size() * sizeof(T)));
  } else {
    out << d.name << '\n' << std::setprecision(std::numeric_limits<T>::max_digits10);  // digits that read back exactly
    for (const T& key : keys) out << +key << '\n';
  }
  if (!out) fail("writing " + path + " failed");
}

// ---- The GPU run ------------------------------------------------------------------------------

void check(cudaError_t code, const char* what) {
  if (code != cudaSuccess) throw scankit::cuda_error(code, what);
}

// Device memory (at least a byte, so that n = 0 still has a pointer), a stream and two events,
// released however the run ends.
struct device_buffer {
  void* ptr = nullptr;
  explicit device_buffer(std::size_t bytes) { check(cudaMalloc(&ptr, std::max<std::size_t>(bytes, 1)), "cudaMalloc"); }
  ~device_buffer() { cudaFree(ptr); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
};

struct timer {
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  timer() {
    check(cudaStreamCreate(&stream), "cudaStreamCreate");
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
  }
  ~timer() { cudaEventDestroy(start); cudaEventDestroy(stop); cudaStreamDestroy(stream); }
  timer(const timer&) = delete;
  timer& operator=(const timer&) = delete;

  // Median milliseconds of `repeat` calls of `work` on the stream, after one untimed call.
  template <class Work>
  double median_ms(int repeat, Work&& work) {
    work();
    std::vector<double> times;
    for (int r = 0; r < repeat; ++r) {
      check(cudaEventRecord(start, stream), "cudaEventRecord");
      work();
      check(cudaEventRecord(stop, stream), "cudaEventRecord");
      check(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  }
};

template <class T>
struct gpu_result {
  std::vector<T> keys;
  std::vector<std::int64_t> indices;  // --argsort only
  double sort_ms = 0, copy_ms = 0;
};

// offsets empty: one sort of all keys; else the segmented sort of those segments. The output starts
// as a copy of the keys (indices as -1), which items outside every segment keep.
template <class T>
gpu_result<T> gpu_sort(const std::vector<T>& keys, const std::vector<std::int64_t>& offsets,
                       const scankit::sort_options& options, bool argsort, int repeat) {
  const auto n = static_cast<std::int64_t>(keys.size());
  const std::size_t bytes = keys.size() * sizeof(T);
  timer t;
  device_buffer in(bytes), out(bytes), indices(argsort ? keys.size() * sizeof(std::int64_t) : 0);
  device_buffer positions(argsort && !offsets.empty() ? keys.size() * sizeof(std::int64_t) : 0);
  device_buffer d_offsets_memory(offsets.size() * sizeof(std::int64_t));
  scankit::workspace ws;  // grown by the warm-up call, reused by the timed ones; freed before the stream goes
  auto* d_in = static_cast<T*>(in.ptr);
  auto* d_out = static_cast<T*>(out.ptr);
  auto* d_indices = static_cast<std::int64_t*>(indices.ptr);
  auto* d_positions = static_cast<std::int64_t*>(positions.ptr);
  auto* d_offsets = static_cast<std::int64_t*>(d_offsets_memory.ptr);
  const auto segments = static_cast<std::int64_t>(offsets.size()) - 1;
  check(cudaMemcpy(d_in, keys.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemcpy(d_out, keys.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  if (!offsets.empty()) {
    check(cudaMemcpy(d_offsets, offsets.data(), offsets.size() * sizeof(std::int64_t), cudaMemcpyHostToDevice),
          "cudaMemcpy");
    if (argsort) {  // the values that the segmented sort permutes: each key's position
      std::vector<std::int64_t> iota(keys.size());
      for (std::size_t i = 0; i < iota.size(); ++i) iota[i] = static_cast<std::int64_t>(i);
      check(cudaMemcpy(d_positions, iota.data(), bytes / sizeof(T) * 8, cudaMemcpyHostToDevice), "cudaMemcpy");
      check(cudaMemset(d_indices, 0xff, keys.size() * sizeof(std::int64_t)), "cudaMemset");
    }
  }

  gpu_result<T> r;
  // The copy reference reads and writes the same key bytes as one sorting pass would.
  r.copy_ms = t.median_ms(repeat, [&] {
    check(cudaMemcpyAsync(d_out, d_in, bytes, cudaMemcpyDeviceToDevice, t.stream), "cudaMemcpyAsync");
  });
  // The copy above overwrote the output: put the keys back for the items outside every segment.
  check(cudaMemcpy(d_out, keys.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  r.sort_ms = t.median_ms(repeat, [&] {
    if (!offsets.empty()) {
      if constexpr (std::is_same_v<T, std::uint64_t>) {
        fail("--segments sorts u32, i32, i64, f32 and f64 keys (u64: not precompiled)");
      } else if (argsort) {
        scankit::segmented_sort_pairs(d_in, d_out, d_positions, d_indices, n, d_offsets, segments, t.stream, &ws,
                                      options);
      } else {
        scankit::segmented_sort_keys(d_in, d_out, n, d_offsets, segments, t.stream, &ws, options);
      }
    } else if (argsort) {
      scankit::argsort(d_in, d_out, d_indices, n, t.stream, &ws, options);
    } else {
      scankit::sort_keys(d_in, d_out, n, t.stream, &ws, options);
    }
  });
  r.keys.resize(keys.size());
  check(cudaMemcpy(r.keys.data(), d_out, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  if (argsort) {
    r.indices.resize(keys.size());
    check(cudaMemcpy(r.indices.data(), d_indices, keys.size() * 8, cudaMemcpyDeviceToHost), "cudaMemcpy");
  }
  return r;
}

// Position of the first element that differs bit for bit, or -1.
template <class T>
std::int64_t first_difference(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return static_cast<std::int64_t>(std::min(a.size(), b.size()));
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) return static_cast<std::int64_t>(i);
  }
  return -1;
}

// ---- The run for one key type -----------------------------------------------------------------

template <class T>
int run_typed(const app_options& o, const std::string& type, const std::string& format) {
  const int key_bits = 8 * static_cast<int>(sizeof(T));
  const int end_bit = o.end_bit < 0 ? key_bits : o.end_bit;
  if (o.begin_bit < 0 || o.begin_bit > end_bit || end_bit > key_bits) {
    fail("bit range [" + std::to_string(o.begin_bit) + ", " + std::to_string(o.end_bit) + ") is outside the " +
         type + " key's " + std::to_string(key_bits) + " bits");
  }
  scankit::sort_options options;
  options.order = o.descending ? scankit::sort_order::descending : scankit::sort_order::ascending;
  options.begin_bit = o.begin_bit;
  options.end_bit = o.end_bit;
  options.strategy = scankit::parse_sort_strategy(o.strategy);

  const key_column<T> d = o.input.empty() ? generate<T>(o.n, o.seed)
                          : format == "bin" ? load_bin<T>(o.input) : load_csv<T>(o.input, o.column);
  const auto n = static_cast<std::int64_t>(d.keys.size());
  const std::vector<std::int64_t> offsets = o.segments.empty() ? std::vector<std::int64_t>{} : load_offsets(o.segments, n);
  const std::string source = o.input.empty() ? "generated (seed " + std::to_string(o.seed) + ")"
                                             : o.input + " (" + format + ")";
  std::cout << "input: " << source << ", " << n << " " << type << " keys"
            << (format == "csv" ? ", column '" + d.name + "'" : "") << "\nsort: "
            << (o.descending ? "descending" : "ascending") << ", bits [" << o.begin_bit << ", " << end_bit << ")"
            << (o.argsort ? ", with the permutation (int64)" : "") << "\n";
  if (!offsets.empty()) {
    std::cout << "segments: " << offsets.size() - 1 << " from " << o.segments << ", each sorted on its own\n";
  }

  // The host reference: always (the oracle, and the result without a GPU).
  const bool gpu = scankit::cuda_device_available();
  if (!gpu) std::cout << "notice: no CUDA device found: running the host reference only (no GPU timing)\n";
  const auto host_start = std::chrono::steady_clock::now();
  std::vector<std::int64_t> order;
  std::vector<T> expected;
  if (offsets.empty()) {
    order = scankit::reference::argsort(d.keys, options);
    expected = scankit::reference::permute(d.keys, order);
  } else {  // each segment on its own; items outside every segment stay (their index -1)
    order.assign(d.keys.size(), -1);
    expected = d.keys;
    for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
      const std::vector<T> segment(d.keys.begin() + offsets[s], d.keys.begin() + offsets[s + 1]);
      const std::vector<std::int64_t> within = scankit::reference::argsort(segment, options);
      for (std::size_t i = 0; i < within.size(); ++i) {
        order[static_cast<std::size_t>(offsets[s]) + i] = offsets[s] + within[i];
        expected[static_cast<std::size_t>(offsets[s]) + i] = segment[static_cast<std::size_t>(within[i])];
      }
    }
  }
  const std::chrono::duration<double, std::milli> host_ms = std::chrono::steady_clock::now() - host_start;
  std::cout << "host reference: " << host_ms.count() << " ms\n";

  std::vector<T> sorted = expected;
  if (gpu) {
    const gpu_result<T> g = gpu_sort(d.keys, offsets, options, o.argsort, o.repeat);
    const bool resolved = options.strategy == scankit::sort_strategy::automatic;
    std::cout << "GPU ("
              << (offsets.empty() ? scankit::to_string(resolved ? scankit::sort_strategy::onesweep : options.strategy)
                                  : std::string("segmented sort"))
              << "): n " << n << ", " << g.sort_ms << " ms (median of " << o.repeat << "), "
              << (g.sort_ms > 0 ? static_cast<double>(n) / g.sort_ms * 1e-6 : 0.0) << " Gkeys/s\n"
              << "copy of the keys (device to device, " << n * static_cast<std::int64_t>(sizeof(T))
              << " bytes read and written): " << g.copy_ms << " ms; fraction of a copy (copy time / sort time): "
              << (g.sort_ms > 0 ? g.copy_ms / g.sort_ms : 0.0) << "\n";
    const std::int64_t bad_key = first_difference(g.keys, expected);
    const std::int64_t bad_index = o.argsort ? first_difference(g.indices, order) : -1;
    if (bad_key >= 0 || bad_index >= 0) {
      std::cout << "check: FAIL: the GPU " << (bad_key >= 0 ? "keys" : "permutation")
                << " differ from the host reference from position " << (bad_key >= 0 ? bad_key : bad_index) << "\n";
      return 1;
    }
    std::cout << "check: PASS (bit for bit equal to the host reference)\n";
    sorted = g.keys;
  }
  if (!o.output.empty()) {
    const std::string out_format = o.input.empty() ? format_of(o.format, o.output) : format;
    write_keys(d, sorted, o.output, out_format);
    std::cout << "wrote the sorted keys to " << o.output << " (" << out_format << ")\n";
  }
  return 0;
}

}  // namespace

int run_sort_app(int argc, char** argv) {
  app_options o;
  if (const int status = parse(argc, argv, o); status >= 0) return status;
  const std::string format = o.input.empty() ? "generated" : format_of(o.format, o.input);
  if (!o.column.empty() && format != "csv") fail("--column applies to CSV input only");
  const std::string type = !o.type.empty() ? o.type : (format == "csv" ? "f64" : "f32");
  if (type == "u32") return run_typed<std::uint32_t>(o, type, format);
  if (type == "i32") return run_typed<std::int32_t>(o, type, format);
  if (type == "u64") {
    if (!o.segments.empty()) fail("--segments sorts u32, i32, i64, f32 and f64 keys (u64: not precompiled)");
    return run_typed<std::uint64_t>(o, type, format);
  }
  if (type == "i64") return run_typed<std::int64_t>(o, type, format);
  if (type == "f32") return run_typed<float>(o, type, format);
  return run_typed<double>(o, type, format);
}
