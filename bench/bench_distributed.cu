// bench_distributed: weak and strong scaling of the distributed scan and sort, one process per
// GPU (started by scripts/launch_distributed.sh, which sets NCCL_NVLS_ENABLE=0), beside the
// single-GPU toolkit on the same GPU and the all-to-all bandwidth NCCL reaches on the machine.
// Plain main(); rank 0 prints one JSON object per row.
//
//   SCANKIT_RANK, SCANKIT_WORLD_SIZE   this process's rank and the number of processes
//   SCANKIT_ID_FILE                    a fresh path: rank 0 writes the NCCL unique id there
//   SCANKIT_DEVICE                     the CUDA device (default: the rank)
//   --keys-per-gpu N    weak scaling: N keys on every rank (default 2^30, as issue 20 asks)
//   --total N           strong scaling: N keys over all ranks instead
//   --reps R            timed repetitions after one warm-up (default 5); rows report medians
//   --what LIST         any of scan,sort,alltoall (default all three)
//
// Timing: every distributed call waits for its result, so a row is timed on the host from a
// barrier to the call's return, and the slowest rank's time counts (NCCL max-reduction). The
// single-GPU anchor (scankit::inclusive_scan / sort_keys) is timed with CUDA events before the
// distributed rows: for weak scaling every rank times its shard on its own GPU (the slowest
// counts), for strong scaling rank 0 times the whole array where it fits. Ratios: speedup =
// distributed keys per second / single-GPU keys per second, efficiency = speedup / P (issue 20
// aims at a sort speedup of 1.6 on 2 GPUs and 3 on 4). Each sort is checked (sorted on every
// rank, in order across ranks, even shards, every key counted); a failed check exits with 1.
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "median_time.hpp"
#include "scankit/distributed/communicator.hpp"
#include "scankit/distributed/scan.hpp"
#include "scankit/distributed/shard_plan.hpp"
#include "scankit/distributed/sort.hpp"
#include "scankit/distributed/unique_id.hpp"
#include "scankit/device/util/launch.cuh"
#include "scankit/sort.hpp"
#include "scankit/scan.hpp"

namespace {

namespace dist = scankit::distributed;

// Random keys from a hash of the global index: the same global array whatever the rank count.
__global__ void fill_keys(std::uint32_t* keys, std::int64_t n, std::int64_t first) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::uint64_t x = static_cast<std::uint64_t>(first + i) * 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 31)) * 0xbf58476d1ce4e5b9ull;
    keys[i] = static_cast<std::uint32_t>(x >> 32);
  }
}

// Adjacent pairs out of order (relaxed atomic: read only after the kernel).
__global__ void count_descents(const std::uint32_t* keys, std::int64_t n, unsigned long long* count) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i + 1 < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    if (keys[i] > keys[i + 1]) atomicAdd(count, 1ull);
  }
}

std::int64_t env_int(const char* name, std::int64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && v[0] != '\0' ? std::strtoll(v, nullptr, 10) : fallback;
}

struct settings {
  std::int64_t keys_per_gpu = std::int64_t{1} << 30;
  std::int64_t total = 0;  // > 0: strong scaling
  int reps = 5;
  std::string what = "scan,sort,alltoall";
};

settings parse(int argc, char** argv) {
  settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw scankit::error("bench_distributed: " + a + " needs a value");
      return argv[++i];
    };
    if (a == "--keys-per-gpu") s.keys_per_gpu = std::stoll(next());
    else if (a == "--total") s.total = std::stoll(next());
    else if (a == "--reps") s.reps = std::stoi(next());
    else if (a == "--what") s.what = next();
    else if (a == "--help") {
      std::puts("bench_distributed [--keys-per-gpu N | --total N] [--reps R] [--what scan,sort,alltoall]\n"
                "environment: SCANKIT_RANK, SCANKIT_WORLD_SIZE, SCANKIT_ID_FILE, SCANKIT_DEVICE");
      std::exit(0);
    } else {
      throw scankit::error("bench_distributed: unknown argument " + a);
    }
  }
  if (s.reps < 1 || s.keys_per_gpu < 1 || s.total < 0) throw scankit::error("bench_distributed: bad sizes or reps");
  return s;
}

class bench {
 public:
  bench(dist::communicator& comm, cudaStream_t stream) : comm_(comm), stream_(stream) {
    SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&scalar_), sizeof(double)));
  }
  ~bench() { cudaFree(scalar_); }

  // The largest value over all ranks (an NCCL all-reduce through the communicator's timed wait).
  double max_over_ranks(double mine) {
    SCANKIT_CUDA_CHECK(cudaMemcpyAsync(scalar_, &mine, sizeof(double), cudaMemcpyHostToDevice, stream_));
    comm_.complete(ncclAllReduce(scalar_, scalar_, 1, ncclFloat64, ncclMax, comm_.native(), stream_), "max over ranks");
    comm_.wait(stream_, "max over ranks");
    double all = 0;
    SCANKIT_CUDA_CHECK(cudaMemcpy(&all, scalar_, sizeof(double), cudaMemcpyDeviceToHost));
    return all;
  }
  void barrier() { (void)max_over_ranks(0.0); }

  // Every rank's `mine` (the same count on all ranks), rank-major.
  std::vector<std::int64_t> gather(const std::vector<std::int64_t>& mine) {
    const std::size_t k = mine.size(), p = static_cast<std::size_t>(comm_.size());
    std::int64_t* d = nullptr;
    SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&d), (p + 1) * k * sizeof(std::int64_t)));
    SCANKIT_CUDA_CHECK(cudaMemcpy(d, mine.data(), k * sizeof(std::int64_t), cudaMemcpyHostToDevice));
    comm_.complete(ncclAllGather(d, d + k, k, ncclInt64, comm_.native(), stream_), "gather");
    comm_.wait(stream_, "gather");
    std::vector<std::int64_t> all(p * k);
    SCANKIT_CUDA_CHECK(cudaMemcpy(all.data(), d + k, all.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
    cudaFree(d);
    return all;
  }

  // Median over reps of the slowest rank's time of f(), in ms, after one warm-up.
  template <class F>
  double timed_ms(int reps, F&& f) {
    f();
    std::vector<double> times;
    for (int r = 0; r < reps; ++r) {
      barrier();
      const auto t0 = std::chrono::steady_clock::now();
      f();
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      times.push_back(max_over_ranks(ms));
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  }

 private:
  dist::communicator& comm_;
  cudaStream_t stream_;
  double* scalar_ = nullptr;
};

void row(int rank, const std::string& what, const std::string& scaling, int ranks, std::int64_t total, double ms,
         double single_ms, std::int64_t single_keys, double extra_gbps = 0) {
  if (rank != 0) return;
  const double keys_per_s = static_cast<double>(total) / (ms * 1e-3);
  const double single_keys_per_s = single_ms > 0 ? static_cast<double>(single_keys) / (single_ms * 1e-3) : 0;
  const double speedup = single_keys_per_s > 0 ? keys_per_s / single_keys_per_s : 0;
  std::printf("{\"what\": \"%s\", \"scaling\": \"%s\", \"ranks\": %d, \"keys\": %lld, \"ms\": %.4f, "
              "\"Gkeys_per_s\": %.3f, \"single_gpu_ms\": %.4f, \"single_gpu_keys\": %lld, \"speedup\": %.3f, "
              "\"efficiency\": %.3f, \"alltoall_GBps_per_gpu\": %.2f}\n",
              what.c_str(), scaling.c_str(), ranks, static_cast<long long>(total), ms, keys_per_s * 1e-9, single_ms,
              static_cast<long long>(single_keys), speedup, ranks > 0 ? speedup / ranks : 0, extra_gbps);
  std::fflush(stdout);
}

int run(int argc, char** argv) {
  const settings s = parse(argc, argv);
  const int rank = static_cast<int>(env_int("SCANKIT_RANK", 0));
  const int ranks = static_cast<int>(env_int("SCANKIT_WORLD_SIZE", 1));
  const int device = static_cast<int>(env_int("SCANKIT_DEVICE", rank));
  const char* id_file = std::getenv("SCANKIT_ID_FILE");
  if (ranks > 1 && (id_file == nullptr || id_file[0] == '\0')) {
    throw scankit::error("bench_distributed: SCANKIT_ID_FILE must name a fresh file when SCANKIT_WORLD_SIZE > 1");
  }
  SCANKIT_CUDA_CHECK(cudaSetDevice(device));
  const auto id = ranks > 1 ? dist::exchange_unique_id_file(id_file, rank, ranks, std::chrono::seconds(120))
                            : dist::create_unique_id();
  dist::communicator comm(id, rank, ranks, device);
  cudaStream_t stream;
  SCANKIT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  bench b(comm, stream);

  const bool strong = s.total > 0;
  const std::int64_t total = strong ? s.total : s.keys_per_gpu * ranks;
  const dist::item_range mine = dist::even_shard(total, ranks, rank);
  const std::int64_t n = mine.size();
  const std::string scaling = strong ? "strong" : "weak";
  const auto has = [&](const char* w) { return s.what.find(w) != std::string::npos; };

  std::uint32_t *keys = nullptr, *out = nullptr;
  const std::size_t room = static_cast<std::size_t>(total / ranks + 1);
  SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&keys), std::max<std::size_t>(1, static_cast<std::size_t>(n)) * 4));
  SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&out), room * 4));
  scankit::device_detail::launch_kernel("fill_keys", fill_keys, dim3(1024), dim3(256), stream, keys, n, mine.begin);
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
  scankit::workspace ws;
  // The single-GPU anchor: weak scaling, every rank times its own shard on its own GPU (the
  // slowest counts); strong scaling, rank 0 times the whole array where it fits (three copies of
  // it), else its shard. Rows compare throughputs (keys per second), so either is a fair anchor.
  std::int64_t single_keys = n;
  if (strong) {
    std::size_t free_bytes = 0, total_bytes = 0;
    SCANKIT_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (static_cast<double>(total) * 4 * 3 < static_cast<double>(free_bytes)) single_keys = total;
    if (rank != 0) single_keys = 0;
  }
  single_keys = static_cast<std::int64_t>(b.max_over_ranks(static_cast<double>(single_keys)));
  const auto single_gpu_ms = [&](bool sort) {
    if (strong && rank != 0) return 0.0;
    const std::int64_t count = strong ? single_keys : n;
    std::uint32_t *in = nullptr, *res = nullptr;
    SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&in), static_cast<std::size_t>(count) * 4 + 4));
    SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&res), static_cast<std::size_t>(count) * 4 + 4));
    scankit::device_detail::launch_kernel("fill_keys", fill_keys, dim3(1024), dim3(256), nullptr, in, count, std::int64_t{0});
    const double ms = sort ? scankit_bench::median_ms([&] { scankit::sort_keys(in, res, count, nullptr, &ws); }, s.reps)
                           : scankit_bench::median_ms([&] { scankit::inclusive_scan(in, res, count, scankit::scan_op::plus, nullptr, &ws); }, s.reps);
    cudaFree(in);
    cudaFree(res);
    return ms;
  };
  int bad = 0;
  if (has("scan")) {
    const double single = single_gpu_ms(false);
    const double ms = b.timed_ms(s.reps, [&] { dist::inclusive_scan(comm, keys, out, n, scankit::scan_op::plus, stream, &ws); });
    const double single_ms = b.max_over_ranks(single);
    row(rank, "scan_u32", scaling, ranks, total, ms, single_ms, single_keys);
    // In place the inclusive scan folds the prefix into the first item and runs the staged kernel;
    // out of place it scans from in + 1 (not 16-byte aligned: the register kernel). Both rows, so
    // the cost of that choice is measured (docs/distributed.md, Scan).
    std::uint32_t* scratch = nullptr;
    SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&scratch), std::max<std::size_t>(1, static_cast<std::size_t>(n)) * 4));
    SCANKIT_CUDA_CHECK(cudaMemcpy(scratch, keys, static_cast<std::size_t>(n) * 4, cudaMemcpyDeviceToDevice));
    const double in_place = b.timed_ms(s.reps, [&] {
      dist::inclusive_scan(comm, scratch, scratch, n, scankit::scan_op::plus, stream, &ws);
    });
    row(rank, "scan_u32_in_place", scaling, ranks, total, in_place, single_ms, single_keys);
    cudaFree(scratch);
  }
  if (has("sort")) {
    const double single = single_gpu_ms(true);
    dist::shard_info info{};
    const double ms = b.timed_ms(s.reps, [&] {
      info = dist::sort_keys(comm, keys, n, out, static_cast<std::int64_t>(room), stream, &ws);
    });
    row(rank, "sort_u32", scaling, ranks, total, ms, b.max_over_ranks(single), single_keys);
    // Check: sorted here, in order across ranks (first/last keys gathered), nothing lost.
    unsigned long long* descents = nullptr;
    SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&descents), sizeof(unsigned long long)));
    SCANKIT_CUDA_CHECK(cudaMemset(descents, 0, sizeof(unsigned long long)));
    scankit::device_detail::launch_kernel("count_descents", count_descents, dim3(1024), dim3(256), stream, out,
                                          info.count, descents);
    unsigned long long d = 0;
    SCANKIT_CUDA_CHECK(cudaMemcpyAsync(&d, descents, sizeof(d), cudaMemcpyDeviceToHost, stream));
    SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
    cudaFree(descents);
    std::uint32_t ends[2] = {0, 0};
    if (info.count > 0) {
      SCANKIT_CUDA_CHECK(cudaMemcpy(&ends[0], out, 4, cudaMemcpyDeviceToHost));
      SCANKIT_CUDA_CHECK(cudaMemcpy(&ends[1], out + info.count - 1, 4, cudaMemcpyDeviceToHost));
    }
    // In order across ranks: each non-empty shard starts at or above the last key before it.
    const auto all = b.gather({info.count, ends[0], ends[1]});
    std::int64_t last = -1;
    for (int r = 0; r < ranks; ++r) {
      if (all[3 * r] == 0) continue;
      if (all[3 * r + 1] < last) bad = 1;
      last = all[3 * r + 2];
    }
    if (d != 0 || info.count != dist::even_shard(total, ranks, rank).size() || info.global_count != total) bad = 1;
    if (bad != 0) {
      std::fprintf(stderr, "rank %d: sort check failed: %llu descents here, %lld items\n", rank, d,
                   static_cast<long long>(info.count));
    }
  }
  if (has("alltoall") && ranks > 1) {
    // Equal blocks to every rank: NCCL's own all-to-all on the shard's bytes.
    const std::size_t block = static_cast<std::size_t>(n) / static_cast<std::size_t>(ranks);
    const double ms = b.timed_ms(s.reps, [&] {
      comm.complete(ncclAlltoAll(keys, out, block, ncclUint32, comm.native(), stream), "ncclAlltoAll");
      comm.wait(stream, "ncclAlltoAll");
    });
    const double bytes_out = static_cast<double>(block) * 4.0 * (ranks - 1);  // what leaves each GPU
    row(rank, "alltoall_u32", scaling, ranks, static_cast<std::int64_t>(block) * ranks * ranks, ms, 0, 0,
        bytes_out / (ms * 1e-3) * 1e-9);
  }
  bad = static_cast<int>(b.max_over_ranks(bad));
  cudaFree(keys);
  cudaFree(out);
  cudaStreamDestroy(stream);
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_distributed: %s\n", e.what());
    return 2;
  }
}
