// `scankit sample`: draws from a discrete distribution on the GPU (a sampling table: double CDF,
// guide table, Philox draws) and prints a histogram of the draws beside the expected counts with
// the chi-square goodness-of-fit statistic; --plot also writes the histogram as CSV and a PNG
// (scripts/plot_sample.py, matplotlib). The weights come from a text file (one non-negative number
// per line or separated by spaces) or a generated Zipf distribution. Without a CUDA device the host
// reference draws the same numbers, with a notice. Plain C++ (g++): the precompiled host API only.
//
//   scankit sample                                   Zipf(1.1) over 2^20 bins, 10^7 draws
//   scankit sample --weights w.txt --draws 1000000 --plot hist.png
//   scankit sample --zipf-bins 1000 --zipf-s 0.8 --groups 20 --seed 3
//   scankit sample --rows 256 ...                  a language model's next-token step (token_sample_app.cpp)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <cuda_runtime_api.h>

#include "command_line.hpp"
#include "scankit/error.hpp"
#include "scankit/reference/sampling_reference.hpp"
#include "scankit/sampling.hpp"
#include "scankit/scan.hpp"  // cuda_device_available

namespace {

struct app_options {
  std::string weights, plot;
  std::int64_t zipf_bins = std::int64_t{1} << 20;
  double zipf_s = 1.1;
  std::int64_t draws = 10'000'000;
  std::uint64_t seed = 7, offset = 0;
  std::int64_t groups = 16;
};

[[noreturn]] void fail(const std::string& message) { throw scankit::error("scankit sample: " + message); }

int parse(int argc, char** argv, app_options& o) {
  CLI::App app{"Draws from a discrete distribution on the GPU (inverse CDF with a guide table, Philox\n"
               "random numbers) and prints a histogram of the draws beside the expected counts, with the\n"
               "chi-square goodness-of-fit statistic. Without a CUDA device the host reference draws.",
               "scankit sample"};
  auto* file = app.add_option("--weights", o.weights, "text file of non-negative weights (whitespace separated)");
  app.add_option("--zipf-bins", o.zipf_bins, "bins of the generated Zipf distribution without --weights (2^20)")
      ->check(CLI::PositiveNumber)->excludes(file);
  app.add_option("--zipf-s", o.zipf_s, "exponent s of the generated weights 1 / (i + 1)^s (1.1)")->excludes(file);
  app.add_option("--draws", o.draws, "number of draws (10^7)")->check(CLI::PositiveNumber);
  app.add_option("--seed", o.seed, "Philox seed (7)");
  app.add_option("--offset", o.offset, "Philox counter of the first draw (0)");
  app.add_option("--groups", o.groups, "histogram rows: bins are grouped into this many runs of equal length (16)")
      ->check(CLI::PositiveNumber);
  app.add_option("--plot", o.plot, "write the histogram as PATH.csv and a PNG plot at PATH (needs python3 with matplotlib)");
  return scankit::apps::parse_command_line(app, argc, argv) ? -1 : 0;
}

std::vector<double> read_weights(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail("cannot open " + path);
  std::vector<double> w;
  std::string token;
  while (in >> token) {
    char* end = nullptr;
    const double v = std::strtod(token.c_str(), &end);
    if (end == token.c_str() || *end != '\0') fail(path + ": '" + token + "' is not a number (weight " + std::to_string(w.size()) + ")");
    w.push_back(v);
  }
  if (w.empty()) fail(path + " holds no weights");
  return w;
}

// The draws: on the GPU when there is one, else by the host reference (the same numbers, up to
// targets within rounding distance of a bin boundary).
std::vector<std::int32_t> draw(const std::vector<double>& w, const app_options& o) {
  const auto n = static_cast<std::int64_t>(w.size());
  if (!scankit::cuda_device_available()) {
    std::cout << "notice: no CUDA device found: the host reference draws (no GPU timing)\n";
    if (scankit::reference::sampling_check(w.data(), n) != scankit::sampling_status::ok)
      fail(std::string("bad weights: ") + scankit::to_string(scankit::reference::sampling_check(w.data(), n)));
    return scankit::reference::sample_table(w.data(), n, scankit::reference::table_unit_exponent(w.data(), n), o.draws,
                                            o.seed, o.offset);
  }
  double* d_w = nullptr;
  std::int32_t* d_out = nullptr;
  SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&d_w), sizeof(double) * w.size()));
  SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&d_out), sizeof(std::int32_t) * o.draws));
  std::vector<std::int32_t> out(static_cast<std::size_t>(o.draws));
  try {
    SCANKIT_CUDA_CHECK(cudaMemcpy(d_w, w.data(), sizeof(double) * w.size(), cudaMemcpyHostToDevice));
    scankit::sampling_table table;
    cudaEvent_t e[3];
    for (auto& ev : e) SCANKIT_CUDA_CHECK(cudaEventCreate(&ev));
    SCANKIT_CUDA_CHECK(cudaEventRecord(e[0]));
    scankit::build_sampling_table(d_w, n, table);
    SCANKIT_CUDA_CHECK(cudaEventRecord(e[1]));
    scankit::sample(table, d_out, o.draws, o.seed, o.offset);
    SCANKIT_CUDA_CHECK(cudaEventRecord(e[2]));
    table.check_host();
    float build_ms = 0, draw_ms = 0;
    SCANKIT_CUDA_CHECK(cudaEventElapsedTime(&build_ms, e[0], e[1]));
    SCANKIT_CUDA_CHECK(cudaEventElapsedTime(&draw_ms, e[1], e[2]));
    for (auto& ev : e) SCANKIT_CUDA_CHECK(cudaEventDestroy(ev));
    std::cout << "GPU: table of " << n << " bins " << build_ms << " ms (first call, includes allocation); "
              << o.draws << " draws " << draw_ms << " ms (" << double(o.draws) / (draw_ms * 1e-3) / 1e9 << " G draws/s)\n";
    SCANKIT_CUDA_CHECK(cudaMemcpy(out.data(), d_out, sizeof(std::int32_t) * o.draws, cudaMemcpyDeviceToHost));
  } catch (...) {
    (void)cudaFree(d_w);
    (void)cudaFree(d_out);
    throw;
  }
  SCANKIT_CUDA_CHECK(cudaFree(d_w));
  SCANKIT_CUDA_CHECK(cudaFree(d_out));
  return out;
}

// Upper tail of chi-square with k degrees of freedom (Wilson-Hilferty: about 1% for k >= 10).
double chi_square_p_value(double chi2, double k) {
  const double a = 2.0 / (9.0 * k);
  const double z = (std::cbrt(chi2 / k) - (1.0 - a)) / std::sqrt(a);
  return 0.5 * std::erfc(z / std::sqrt(2.0));
}

struct histogram_row {
  std::int64_t first, last;  // bins first .. last
  std::int64_t observed;
  double expected;
};

void write_plot(const std::string& png, const std::vector<histogram_row>& rows) {
  const std::string csv = png + ".csv";
  {
    std::ofstream out(csv);
    if (!out) fail("cannot write " + csv);
    out << "first_bin,last_bin,observed,expected\n" << std::setprecision(17);
    for (const auto& r : rows) out << r.first << ',' << r.last << ',' << r.observed << ',' << r.expected << '\n';
  }
  std::cout << "histogram: " << csv << '\n';
  const char* script_env = std::getenv("SCANKIT_PLOT_SAMPLE_SCRIPT");
  const char* python_env = std::getenv("SCANKIT_PYTHON");
  const std::string script = script_env != nullptr ? script_env : std::string(SCANKIT_SOURCE_DIR) + "/scripts/plot_sample.py";
  const std::string python = python_env != nullptr ? python_env : "python3";
  if (!std::ifstream(script)) {
    std::cout << "plot: " << script << " not found (set SCANKIT_PLOT_SAMPLE_SCRIPT): no PNG\n";
    return;
  }
  const std::string command = python + " '" + script + "' '" + csv + "' '" + png + "'";
  const int status = std::system(command.c_str());
  if (status != 0) std::cout << "plot: '" << command << "' failed (status " << status << ", matplotlib missing?): no PNG\n";
  else std::cout << "plot: " << png << '\n';
}

}  // namespace

int run_token_sample_app(int argc, char** argv);  // token_sample_app.cpp

int run_sample_app(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--rows") return run_token_sample_app(argc, argv);
  }
  app_options o;
  if (const int status = parse(argc, argv, o); status >= 0) return status;
  const std::vector<double> w = o.weights.empty() ? scankit::reference::zipf_weights(o.zipf_bins, o.zipf_s)
                                                  : read_weights(o.weights);
  const auto n = static_cast<std::int64_t>(w.size());
  if (n > 0x7fffffff) fail("more than 2^31 - 1 weights");
  const std::vector<std::int32_t> draws = draw(w, o);
  double total = 0.0;
  for (double x : w) total += x;
  // Groups of equal runs of bins; chi-square over the groups with at least 5 expected draws.
  const std::int64_t groups = std::min(o.groups, n), per_group = (n + groups - 1) / groups;
  std::vector<histogram_row> rows;
  for (std::int64_t first = 0; first < n; first += per_group) {
    histogram_row r{first, std::min(n, first + per_group) - 1, 0, 0.0};
    for (std::int64_t i = r.first; i <= r.last; ++i) r.expected += w[i] / total * double(o.draws);
    rows.push_back(r);
  }
  for (std::int32_t d : draws) {
    if (d < 0 || d >= n) fail("draw " + std::to_string(d) + " is not a bin (internal error)");
    ++rows[d / per_group].observed;
  }
  std::cout << "\n" << std::setw(24) << "bins" << std::setw(14) << "observed" << std::setw(16) << "expected\n";
  double chi2 = 0.0;
  int counted = 0;
  for (const auto& r : rows) {
    std::cout << std::setw(11) << r.first << " .. " << std::setw(9) << r.last << std::setw(14) << r.observed
              << std::setw(16) << std::fixed << std::setprecision(1) << r.expected << '\n';
    if (r.expected >= 5.0) {
      chi2 += (double(r.observed) - r.expected) * (double(r.observed) - r.expected) / r.expected, ++counted;
    } else if (r.observed > 0 && r.expected == 0.0) {
      fail("bins " + std::to_string(r.first) + ".." + std::to_string(r.last) + " have zero weight but were drawn");
    }
  }
  std::cout << std::defaultfloat << std::setprecision(6);
  if (counted > 1) {
    const double df = counted - 1;
    std::cout << "\nchi-square " << chi2 << " over " << counted << " groups (" << df << " degrees of freedom), p = "
              << chi_square_p_value(chi2, df) << '\n';
  } else {
    std::cout << "\nchi-square: fewer than two groups expect 5 draws (use more --draws or fewer --groups)\n";
  }
  if (!o.plot.empty()) write_plot(o.plot, rows);
  return 0;
}
