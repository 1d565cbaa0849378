// `scankit compact`: filters the records of a dataset file on the GPU with stream compaction.
//
// A record is kept when its value in the chosen column passes the filter (drop NaN, drop values
// outside [--min, --max]). The GPU keeps the record numbers with scankit::select_by_stencil (the
// column is the stencil, the precompiled keep_in_range predicate decides), the result is checked
// against the host reference, and the kept records can be written out in the input's format.
// Without a CUDA device the host reference runs alone, with a notice. Plain C++ (g++): it uses
// only the precompiled host API.
//
//   scankit compact                                   the default dataset, default filter
//   scankit compact --input readings.csv --column temperature_c --min -40 --max 60 --output kept.csv
//   scankit compact --input samples.bin --format bin --fields 4 --column 2 --drop-nan
//   scankit compact --generate data/readings.csv [--rows N] [--seed S]
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <cuda_runtime_api.h>

#include "scankit/compact.hpp"
#include "command_line.hpp"
#include "scankit/error.hpp"
#include "scankit/reference/compact_reference.hpp"
#include "scankit/scan.hpp"  // cuda_device_available

#ifndef SCANKIT_DATA_DIR
#define SCANKIT_DATA_DIR "data"
#endif

namespace {

constexpr const char* default_dataset = "readings.csv";
constexpr const char* default_column = "temperature_c";
constexpr double default_min = -40.0;  // the sensor's rated range, used when no filter is given
constexpr double default_max = 60.0;

struct app_options {
  std::string input;  // empty: the default dataset
  std::string format;  // csv | bin (empty: from the file name)
  std::string column;  // index or header name (empty: default)
  int fields = 1;      // bin: doubles per record
  bool drop_nan = false;
  bool has_min = false, has_max = false;
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  std::string output;
  scankit::compact_options compact;
  std::string generate;  // write a dataset here and stop
  std::int64_t rows = 20000;
  std::uint64_t seed = 5;
};

// The options, parsed by CLI11; false when --help was asked for (CLI11 printed it).
bool parse(int argc, char** argv, app_options& o) {
  CLI::App app{"Keeps the records whose value in one column passes the filter, on the GPU (stream\n"
               "compaction: scankit::select_by_stencil), checks the result against the host reference and\n"
               "reports kept and dropped counts. Without a CUDA device only the host reference runs.\n"
               "Also: scankit compact --generate FILE [--rows N] [--seed S] writes a dataset and stops.",
               "scankit compact"};
  app.add_option("--input", o.input,
                 std::string("dataset (default: data/") + default_dataset + ", generated sensor readings)");
  app.add_option("--format", o.format,
                 "csv (a header line, comma-separated numbers; 'nan' or an empty field is NaN) or bin (records of\n"
                 "--fields little-endian float64); default: from the file name")
      ->check(CLI::IsMember({"csv", "bin"}));
  app.add_option("--column", o.column,
                 std::string("the column to filter on: 0-based index or CSV header name (default: ") + default_column +
                     " for the default dataset, else 0)");
  app.add_option("--fields", o.fields, "bin: float64 fields per record (default 1)")->check(CLI::PositiveNumber);
  app.add_flag("--drop-nan", o.drop_nan, "drop records whose value is NaN");
  auto* min = app.add_option("--min", o.min, "drop records whose value is below X (NaN is in no range: dropped too)");
  auto* max = app.add_option("--max", o.max, "drop records whose value is above Y (NaN is in no range: dropped too)");
  app.add_option("--output", o.output, "write the kept records there, in the input's format");
  std::string strategy;
  app.add_option("--strategy", strategy, "single_pass (default) or three_step (flags, exclusive scan, scatter)");
  app.add_option("--generate", o.generate, "write a generated dataset (CSV, or bin with --format bin) and stop");
  app.add_option("--rows", o.rows, "rows of the generated dataset (default 20000)")->check(CLI::NonNegativeNumber);
  app.add_option("--seed", o.seed, "seed of the generated dataset (default 5)");
  std::ostringstream footer;
  footer << "No filter given: --drop-nan, plus --min " << default_min << " --max " << default_max
         << " on the default dataset.";
  app.footer(footer.str());
  if (!scankit::apps::parse_command_line(app, argc, argv)) return false;
  o.has_min = min->count() > 0;
  o.has_max = max->count() > 0;
  if (!strategy.empty()) o.compact.strategy = scankit::parse_compact_strategy(strategy);
  if (o.has_min && o.has_max && o.max < o.min) throw scankit::error("scankit compact: --max is below --min");
  return true;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool file_exists(const std::string& path) { return std::ifstream(path).good(); }

// ---- The dataset ------------------------------------------------------------------------------

struct dataset {
  std::string format;
  std::string header;               // csv
  std::vector<std::string> lines;   // csv: the records as read (written back unchanged)
  std::vector<double> raw;          // bin: every field of every record
  int fields = 1;
  std::vector<double> column;       // the filter column, one value per record
  std::string column_name;
};

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) out.push_back(field);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

std::string trim(std::string s) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

double parse_field(const std::string& raw_field, const std::string& where) {
  const std::string f = trim(raw_field);
  if (f.empty()) return std::numeric_limits<double>::quiet_NaN();
  char* end = nullptr;
  const double v = std::strtod(f.c_str(), &end);  // also reads nan, NaN, inf
  if (end == f.c_str() || *end != '\0') throw scankit::error("scankit compact: " + where + ": '" + f + "' is not a number");
  return v;
}

int resolve_column(const std::string& wanted, const std::vector<std::string>& names, int fields) {
  if (!wanted.empty() && std::all_of(wanted.begin(), wanted.end(), [](unsigned char c) { return std::isdigit(c); })) {
    const int index = std::stoi(wanted);
    if (index >= fields) {
      throw scankit::error("scankit compact: --column " + wanted + " but records have " + std::to_string(fields) +
                           " fields");
    }
    return index;
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (trim(names[i]) == wanted) return static_cast<int>(i);
  }
  throw scankit::error("scankit compact: no column named '" + wanted + "'");
}

dataset load_csv(const std::string& path, const std::string& column) {
  std::ifstream in(path);
  if (!in) throw scankit::error("scankit compact: cannot open " + path);
  dataset d;
  d.format = "csv";
  std::string line;
  if (!std::getline(in, d.header)) throw scankit::error("scankit compact: " + path + " is empty");
  if (!d.header.empty() && d.header.back() == '\r') d.header.pop_back();
  const std::vector<std::string> names = split_csv(d.header);
  d.fields = static_cast<int>(names.size());
  const int c = resolve_column(column.empty() ? "0" : column, names, d.fields);
  d.column_name = trim(names[static_cast<std::size_t>(c)]);
  std::int64_t number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty()) continue;
    const std::vector<std::string> fields = split_csv(line);
    const std::string where = path + ":" + std::to_string(number);
    if (static_cast<int>(fields.size()) <= c) throw scankit::error("scankit compact: " + where + ": too few fields");
    d.column.push_back(parse_field(fields[static_cast<std::size_t>(c)], where));
    d.lines.push_back(line);
  }
  return d;
}

dataset load_bin(const std::string& path, const std::string& column, int fields) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw scankit::error("scankit compact: cannot open " + path);
  in.seekg(0, std::ios::end);
  const auto bytes = static_cast<std::size_t>(in.tellg());
  in.seekg(0);
  const std::size_t record = static_cast<std::size_t>(fields) * sizeof(double);
  if (bytes % record != 0) {
    throw scankit::error("scankit compact: " + path + " holds " + std::to_string(bytes) +
                         " bytes, not a whole number of " + std::to_string(fields) + "-field float64 records");
  }
  dataset d;
  d.format = "bin";
  d.fields = fields;
  d.raw.resize(bytes / sizeof(double));
  in.read(reinterpret_cast<char*>(d.raw.data()), static_cast<std::streamsize>(bytes));
  const int c = resolve_column(column.empty() ? "0" : column, {}, fields);
  d.column_name = "field " + std::to_string(c);
  const std::size_t records = bytes / record;
  d.column.resize(records);
  for (std::size_t r = 0; r < records; ++r) d.column[r] = d.raw[r * static_cast<std::size_t>(fields) + c];
  return d;
}

void write_kept(const dataset& d, const std::vector<std::int64_t>& kept, const std::string& path) {
  if (d.format == "csv") {
    std::ofstream out(path);
    if (!out) throw scankit::error("scankit compact: cannot write " + path);
    out << d.header << '\n';
    for (const std::int64_t r : kept) out << d.lines[static_cast<std::size_t>(r)] << '\n';
    if (!out) throw scankit::error("scankit compact: writing " + path + " failed");
  } else {
    std::ofstream out(path, std::ios::binary);
    if (!out) throw scankit::error("scankit compact: cannot write " + path);
    for (const std::int64_t r : kept) {
      out.write(reinterpret_cast<const char*>(&d.raw[static_cast<std::size_t>(r) * d.fields]),
                static_cast<std::streamsize>(d.fields * sizeof(double)));
    }
    if (!out) throw scankit::error("scankit compact: writing " + path + " failed");
  }
}

// ---- The generator ----------------------------------------------------------------------------

// splitmix64: the same stream on every platform (std:: distributions are not portable).
struct random_stream {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
};

// Sensor readings: time, sensor id, temperature (a daily cycle per sensor plus noise) and
// humidity. About 2 % of the temperatures are missing (NaN), about 1.5 % are glitches far
// outside the sensor's range (-999 sentinels, spikes above 100).
void generate(const app_options& o) {
  const bool bin = o.format == "bin" || (o.format.empty() && ends_with(o.generate, ".bin"));
  random_stream rng{o.seed};
  std::ofstream out(o.generate, bin ? std::ios::binary : std::ios::out);
  if (!out) throw scankit::error("scankit compact: cannot write " + o.generate);
  if (!bin) out << "time_s,sensor_id,temperature_c,humidity_pct\n";
  std::int64_t missing = 0, glitches = 0;
  for (std::int64_t i = 0; i < o.rows; ++i) {
    const double time = 30.0 * static_cast<double>(i / 8);
    const int sensor = static_cast<int>(i % 8);
    const double day = 2.0 * 3.14159265358979 * time / 86400.0;
    double temperature = 18.0 + 2.0 * sensor + 6.0 * std::sin(day) + 1.5 * (rng.uniform() - 0.5);
    double humidity = 55.0 - 10.0 * std::sin(day) + 4.0 * (rng.uniform() - 0.5);
    const double u = rng.uniform();
    if (u < 0.02) {
      temperature = std::numeric_limits<double>::quiet_NaN();
      ++missing;
    } else if (u < 0.03) {
      temperature = -999.0;
      ++glitches;
    } else if (u < 0.035) {
      temperature = 100.0 + 50.0 * rng.uniform();
      ++glitches;
    }
    if (rng.uniform() < 0.01) humidity = std::numeric_limits<double>::quiet_NaN();
    if (bin) {
      const double record[4] = {time, static_cast<double>(sensor), temperature, humidity};
      out.write(reinterpret_cast<const char*>(record), sizeof(record));
    } else {
      char line[128];
      auto number = [](double v, char* buf, std::size_t size) {
        if (std::isnan(v)) {
          std::snprintf(buf, size, "nan");
        } else {
          std::snprintf(buf, size, "%.2f", v);
        }
      };
      char t[32], h[32];
      number(temperature, t, sizeof t);
      number(humidity, h, sizeof h);
      std::snprintf(line, sizeof line, "%.0f,%d,%s,%s\n", time, sensor, t, h);
      out << line;
    }
  }
  if (!out) throw scankit::error("scankit compact: writing " + o.generate + " failed");
  std::cout << "wrote " << o.rows << " records to " << o.generate << (bin ? " (4 float64 fields per record)" : "")
            << ": " << missing << " missing temperatures (NaN), " << glitches << " out-of-range glitches\n";
}

// ---- The GPU run ------------------------------------------------------------------------------

void check(cudaError_t code, const char* what) {
  if (code != cudaSuccess) throw scankit::cuda_error(code, what);
}

// Record numbers kept by the GPU (select_by_stencil of 0..n-1 with the column as stencil).
std::vector<std::int64_t> gpu_filter(const std::vector<double>& column, scankit::keep_in_range<double> pred,
                                     const scankit::compact_options& options, double& milliseconds) {
  const auto n = static_cast<std::int64_t>(column.size());
  std::vector<std::int64_t> records(column.size());
  for (std::int64_t i = 0; i < n; ++i) records[static_cast<std::size_t>(i)] = i;
  double* d_column = nullptr;
  std::int64_t* d_records = nullptr;
  std::int64_t* d_kept = nullptr;
  std::int64_t* d_count = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  auto release = [&] {
    if (d_column) cudaFree(d_column);
    if (d_records) cudaFree(d_records);
    if (d_kept) cudaFree(d_kept);
    if (d_count) cudaFree(d_count);
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    if (stream) cudaStreamDestroy(stream);
  };
  try {
    const std::size_t bytes = std::max<std::size_t>(column.size(), 1) * 8;
    check(cudaStreamCreate(&stream), "cudaStreamCreate");
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    check(cudaMalloc(reinterpret_cast<void**>(&d_column), bytes), "cudaMalloc");
    check(cudaMalloc(reinterpret_cast<void**>(&d_records), bytes), "cudaMalloc");
    check(cudaMalloc(reinterpret_cast<void**>(&d_kept), bytes), "cudaMalloc");
    check(cudaMalloc(reinterpret_cast<void**>(&d_count), sizeof(std::int64_t)), "cudaMalloc");
    check(cudaMemcpy(d_column, column.data(), column.size() * 8, cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(d_records, records.data(), records.size() * 8, cudaMemcpyHostToDevice), "cudaMemcpy");
    scankit::workspace ws;
    // One call to warm up (and grow the workspace), one timed.
    scankit::select_by_stencil(d_records, d_column, d_kept, d_count, n, pred, stream, &ws, options);
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    scankit::select_by_stencil(d_records, d_column, d_kept, d_count, n, pred, stream, &ws, options);
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    std::int64_t count = 0;
    check(cudaMemcpyAsync(&count, d_count, sizeof count, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    milliseconds = ms;
    if (count < 0 || count > n) throw scankit::error("scankit compact: the GPU returned count " + std::to_string(count));
    std::vector<std::int64_t> kept(static_cast<std::size_t>(count));
    check(cudaMemcpy(kept.data(), d_kept, kept.size() * 8, cudaMemcpyDeviceToHost), "cudaMemcpy");
    ws.release();  // its memory goes back on `stream`, which release() destroys
    release();
    return kept;
  } catch (...) {
    release();
    throw;
  }
}

}  // namespace

int run_compact_app(int argc, char** argv) {
  app_options o;
  if (!parse(argc, argv, o)) return 0;
  if (!o.generate.empty()) {
    generate(o);
    return 0;
  }

  // The input and the filter.
  const bool default_input = o.input.empty();
  if (default_input) {
    const std::string local = std::string("data/") + default_dataset;
    o.input = file_exists(local) ? local : std::string(SCANKIT_DATA_DIR) + "/" + default_dataset;
    if (!file_exists(o.input)) {
      throw scankit::error("scankit compact: the default dataset is missing (" + o.input +
                           "); make one with `scankit compact --generate " + local + "`");
    }
    if (o.column.empty()) o.column = default_column;
  }
  const std::string format = !o.format.empty() ? o.format : (ends_with(o.input, ".bin") ? "bin" : "csv");
  if (!o.drop_nan && !o.has_min && !o.has_max) {
    o.drop_nan = true;
    if (default_input) {
      o.min = default_min;
      o.max = default_max;
      o.has_min = o.has_max = true;
    }
    std::cout << "no filter given: using --drop-nan";
    if (default_input) std::cout << " --min " << default_min << " --max " << default_max;
    std::cout << "\n";
  }
  const scankit::keep_in_range<double> pred{o.min, o.max};  // NaN fails every comparison: dropped

  const auto read_start = std::chrono::steady_clock::now();
  const dataset d = format == "bin" ? load_bin(o.input, o.column, o.fields) : load_csv(o.input, o.column);
  const double read_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - read_start).count();
  const auto n = static_cast<std::int64_t>(d.column.size());
  std::int64_t nans = 0, below = 0, above = 0;
  for (const double v : d.column) {
    if (std::isnan(v)) {
      ++nans;
    } else if (v < o.min) {
      ++below;
    } else if (v > o.max) {
      ++above;
    }
  }
  std::cout << "input: " << o.input << " (" << format << ", " << n << " records, " << read_s << " s to read), column '"
            << d.column_name << "'\nfilter: keep " << o.min << " <= value <= " << o.max << ", NaN dropped\n";

  // The host reference: always (the oracle, and the result without a GPU).
  std::vector<std::int64_t> records(d.column.size());
  for (std::int64_t i = 0; i < n; ++i) records[static_cast<std::size_t>(i)] = i;
  std::vector<std::int64_t> reference_kept(d.column.size());
  const std::int64_t reference_count =
      scankit::reference::select_by_stencil(records.data(), d.column.data(), reference_kept.data(), n, pred);
  reference_kept.resize(static_cast<std::size_t>(reference_count));

  std::vector<std::int64_t> kept;
  if (scankit::cuda_device_available()) {
    double ms = 0;
    kept = gpu_filter(d.column, pred, o.compact, ms);
    const bool same = kept == reference_kept;
    std::cout << "GPU (" << scankit::to_string(o.compact.strategy == scankit::compact_strategy::automatic
                                                   ? scankit::compact_strategy::single_pass
                                                   : o.compact.strategy)
              << "): kept " << kept.size() << " of " << n << " records in " << ms << " ms; "
              << (same ? "matches the host reference" : "DIFFERS from the host reference") << "\n";
    if (!same) {
      std::cerr << "scankit compact: GPU kept " << kept.size() << " records, the host reference "
                << reference_kept.size() << "\n";
      return 1;
    }
  } else {
    std::cout << "notice: no CUDA device: running the host reference only\n";
    kept = reference_kept;
  }
  std::cout << "kept " << kept.size() << ", dropped " << (n - static_cast<std::int64_t>(kept.size())) << " (" << nans
            << " NaN, " << below << " below the minimum, " << above << " above the maximum)\n";
  if (!o.output.empty()) {
    write_kept(d, kept, o.output);
    std::cout << "wrote the kept records to " << o.output << "\n";
  }
  return 0;
}
