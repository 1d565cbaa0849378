// `scankit topk`: the k largest (or smallest) keys of each row of a matrix, generated or read from a
// binary file of f32 rows, on the GPU with scankit::top_k. Every row is checked against the host
// (std::partial_sort, ties by index) and the time is reported next to the read floor (half a
// device-to-device copy of the keys). Without a CUDA device the host reference runs alone, with a
// notice. Plain C++ (g++): it uses only the precompiled host API; options are parsed by CLI11.
//
//   scankit topk                                        256 generated rows of 131072, k = 50
//   scankit topk --rows 4096 --cols 200000 --k 1024 --smallest
//   scankit topk --input scores.bin --cols 1000 --k 10 --output best.csv
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <cuda_runtime_api.h>

#include "scankit/error.hpp"
#include "scankit/reference/sort_reference.hpp"
#include "scankit/scan.hpp"  // cuda_device_available
#include "scankit/top_k.hpp"

namespace {

struct app_options {
  std::string input, output;
  std::int64_t rows = 256, cols = 131072, k = 50;
  bool smallest = false, unsorted = false;
  std::uint64_t seed = 7;
  int repeat = 5;
};

[[noreturn]] void fail(const std::string& message) { throw scankit::error("scankit topk: " + message); }

int parse(int argc, char** argv, app_options& o) {
  CLI::App app{"The k largest (or smallest) keys of each row of a matrix of f32 keys, generated or read from a\n"
               "binary file, on the GPU with top-k; checked row by row against the host (std::partial_sort)\n"
               "and timed next to a device copy. Without a CUDA device only the host reference runs.",
               "scankit topk"};
  auto* input = app.add_option("--input", o.input, "binary file of f32 keys, row after row (--cols per row)");
  auto* rows = app.add_option("--rows", o.rows, "generated rows (default 256)")->check(CLI::NonNegativeNumber);
  rows->excludes(input);
  app.add_option("--cols", o.cols, "keys per row (default 131072)")->check(CLI::PositiveNumber);
  app.add_option("--k", o.k, "keys kept per row (default 50)")->check(CLI::NonNegativeNumber);
  app.add_flag("--smallest", o.smallest, "the k smallest keys instead, smallest first");
  app.add_flag("--unsorted", o.unsorted, "select_k: the same keys in no particular order");
  app.add_option("--output", o.output, "write row, rank, index and key of every result as CSV there");
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

std::vector<float> load_keys(const std::string& path, std::int64_t cols, std::int64_t& rows) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) fail("cannot read " + path);
  const auto bytes = static_cast<std::int64_t>(in.tellg());
  const std::int64_t row_bytes = cols * static_cast<std::int64_t>(sizeof(float));
  if (bytes % row_bytes != 0) {
    fail(path + " holds " + std::to_string(bytes) + " bytes, not whole rows of " + std::to_string(cols) + " f32 keys");
  }
  rows = bytes / row_bytes;
  std::vector<float> keys(static_cast<std::size_t>(rows * cols));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(keys.data()), bytes);
  if (!in) fail("reading " + path + " failed");
  return keys;
}

std::vector<float> generate(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> logits(0.0f, 3.0f);  // a language model's logits, roughly
  std::vector<float> keys(static_cast<std::size_t>(rows * cols));
  for (float& key : keys) key = logits(rng);
  return keys;
}

// The host result: each row's first min(k, cols) indices in result order, then -1.
std::vector<std::int64_t> reference(const std::vector<float>& keys, std::int64_t rows, std::int64_t cols,
                                    std::int64_t k, bool smallest) {
  scankit::sort_options order;
  order.order = smallest ? scankit::sort_order::ascending : scankit::sort_order::descending;
  std::vector<std::int64_t> result(static_cast<std::size_t>(rows * k), -1);
  std::vector<std::uint64_t> ranks(static_cast<std::size_t>(cols));
  std::vector<std::int64_t> index(static_cast<std::size_t>(cols));
  const std::int64_t kept = std::min(k, cols);
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t i = 0; i < cols; ++i) ranks[i] = scankit::reference::sort_rank(keys[r * cols + i], order);
    std::iota(index.begin(), index.end(), std::int64_t{0});
    std::partial_sort(index.begin(), index.begin() + kept, index.end(), [&](std::int64_t a, std::int64_t b) {
      return ranks[a] != ranks[b] ? ranks[a] < ranks[b] : a < b;
    });
    std::copy(index.begin(), index.begin() + kept, result.begin() + r * k);
  }
  return result;
}

void check(cudaError_t code, const char* what) {
  if (code != cudaSuccess) throw scankit::cuda_error(code, what);
}

struct device_memory {
  void* ptr = nullptr;
  explicit device_memory(std::size_t bytes) { check(cudaMalloc(&ptr, std::max<std::size_t>(bytes, 1)), "cudaMalloc"); }
  ~device_memory() { cudaFree(ptr); }
  device_memory(const device_memory&) = delete;
  device_memory& operator=(const device_memory&) = delete;
};

struct gpu_result {
  std::vector<std::int64_t> indices;
  double ms = 0, copy_ms = 0;
};

gpu_result run_gpu(const std::vector<float>& keys, std::int64_t rows, std::int64_t cols, std::int64_t k,
                   const scankit::top_k_options& options, int repeat) {
  const std::size_t bytes = keys.size() * sizeof(float);
  device_memory d_keys(bytes), d_copy(bytes), d_values(static_cast<std::size_t>(rows * k) * sizeof(float)),
      d_indices(static_cast<std::size_t>(rows * k) * sizeof(std::int64_t));
  check(cudaMemcpy(d_keys.ptr, keys.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  gpu_result r;
  {
    scankit::workspace ws;  // grown by the warm-up call; freed before the stream goes
    const auto median_ms = [&](auto&& work) {
      work();
      std::vector<double> times;
      for (int i = 0; i < repeat; ++i) {
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
    };
    r.copy_ms = median_ms([&] {
      check(cudaMemcpyAsync(d_copy.ptr, d_keys.ptr, bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
    });
    r.ms = median_ms([&] {
      scankit::top_k(static_cast<const float*>(d_keys.ptr), rows, cols, k, static_cast<float*>(d_values.ptr),
                     static_cast<std::int64_t*>(d_indices.ptr), stream, &ws, options);
    });
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  }
  r.indices.resize(static_cast<std::size_t>(rows * k));
  check(cudaMemcpy(r.indices.data(), d_indices.ptr, r.indices.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost),
        "cudaMemcpy");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(stream);
  return r;
}

}  // namespace

int run_topk_app(int argc, char** argv) {
  app_options o;
  if (const int status = parse(argc, argv, o); status >= 0) return status;
  std::int64_t rows = o.rows;
  const std::vector<float> keys = o.input.empty() ? generate(rows, o.cols, o.seed) : load_keys(o.input, o.cols, rows);
  std::cout << "input: " << (o.input.empty() ? "generated N(0, 3^2) logits (seed " + std::to_string(o.seed) + ")" : o.input)
            << ", " << rows << " rows x " << o.cols << " f32 keys\ntop-k: k " << o.k << ", "
            << (o.smallest ? "smallest" : "largest") << (o.unsorted ? ", unsorted (select_k)" : ", sorted") << "\n";

  const auto host_start = std::chrono::steady_clock::now();
  std::vector<std::int64_t> result = reference(keys, rows, o.cols, o.k, o.smallest);
  const std::chrono::duration<double, std::milli> host_ms = std::chrono::steady_clock::now() - host_start;
  std::cout << "host reference (std::partial_sort): " << host_ms.count() << " ms\n";

  if (!scankit::cuda_device_available()) {
    std::cout << "notice: no CUDA device found: running the host reference only (no GPU timing)\n";
  } else {
    scankit::top_k_options options;
    options.largest = !o.smallest;
    options.sorted = !o.unsorted;
    gpu_result g = run_gpu(keys, rows, o.cols, o.k, options, o.repeat);
    const double n = static_cast<double>(rows * o.cols);
    std::cout << "GPU: " << g.ms << " ms (median of " << o.repeat << "), " << (g.ms > 0 ? n / g.ms * 1e-6 : 0.0)
              << " Gkeys/s; the read floor (half a device copy of the keys): " << g.copy_ms / 2
              << " ms, so a fraction " << (g.ms > 0 ? g.copy_ms / 2 / g.ms : 0.0) << " of it\n";
    if (o.unsorted) {  // the same set: compare row by row in index order
      for (std::int64_t r = 0; r < rows; ++r) {
        std::sort(g.indices.begin() + r * o.k, g.indices.begin() + (r + 1) * o.k);
        std::sort(result.begin() + r * o.k, result.begin() + (r + 1) * o.k);
      }
    }
    const auto mismatch = std::mismatch(result.begin(), result.end(), g.indices.begin());
    if (mismatch.first != result.end()) {
      const auto slot = mismatch.first - result.begin();
      std::cout << "check: FAIL: row " << slot / std::max<std::int64_t>(o.k, 1) << ", rank "
                << slot % std::max<std::int64_t>(o.k, 1) << ": GPU index " << *mismatch.second << ", host "
                << *mismatch.first << "\n";
      return 1;
    }
    std::cout << "check: PASS (every row equal to the host reference)\n";
    result = g.indices;
  }
  if (!o.output.empty()) {
    std::ofstream out(o.output);
    if (!out) fail("cannot write " + o.output);
    out << "row,rank,index,key\n";
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t j = 0; j < o.k; ++j) {
        const std::int64_t index = result[r * o.k + j];
        out << r << ',' << j << ',' << index << ',';
        if (index >= 0) out << keys[r * o.cols + index];
        out << '\n';
      }
    }
    if (!out) fail("writing " + o.output + " failed");
    std::cout << "wrote " << rows * o.k << " results to " << o.output << "\n";
  }
  return 0;
}
