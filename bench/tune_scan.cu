// Tuning sweep for the single-pass scan: block size, items (or 16-byte chunks) per thread and
// look-back back-off of the decoupled look-back's register kernel and staged kernel, per value size, timed beside cudaMemcpy D2D and
// cub::DeviceScan::InclusiveSum on the same data. Each variant is checked against CUB first.
//
//   tune_scan [--json FILE] [--log2n 28] [--reps 20] [--caps-only | --prefetch-only |
//             --deterministic-only | --wide-only | --tiles-only |
//             --backoff-only | --deterministic-backoff-only | --trace PREFIX | --ncu-pair |
//             --isolation]
// Prints one line per variant (ms, fraction of copy bandwidth, speed-up over CUB).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include "median_time.hpp"
#include "sweep_result.hpp"

#include "scankit/device/scan.cuh"
#include "scankit/scan.hpp"

namespace {

using scankit::block_scan_algorithm;
using scankit::device_detail::scan_policy;

struct result_row {
  std::string type, variant;
  long long n;
  double ms, frac_copy, vs_cub;
  bool ok;
};

std::vector<result_row> rows;
int reps = 20;

double median_ms(const std::function<void()>& f) { return scankit_bench::median_ms(f, reps); }

// Diagnostics for the staged kernel: the same tile movement with nothing in between (a copy, with
// tile ids from blockIdx or from the ticket), to separate the cost of the I/O pattern from the
// scan and the look-back. Full tiles only (the sweep's n is a power of two).
template <class Staged, class T>
__global__ void __launch_bounds__(Staged::block_threads)
    staged_copy_kernel(const T* in, T* out, long long n, scankit::device_detail::single_pass_header* ticket,
                       std::uint32_t tiles) {
  using shape = scankit::device_detail::staged_shape<Staged, T>;
  using stage = scankit::device_detail::tile_stage<T, shape::tile_items, shape::block_threads>;
  __shared__ typename stage::storage s;
  __shared__ std::uint32_t id;
  if (threadIdx.x == 0) {
    const long long tile =
        ticket != nullptr ? scankit::device_detail::draw_tile_ticket(ticket, tiles).tile : blockIdx.x;
    id = static_cast<std::uint32_t>(tile);
    stage::issue(s, in, n, tile);
    if constexpr (Staged::prefetch_tiles_ahead > 0) stage::prefetch_l2(in, n, tile + Staged::prefetch_tiles_ahead);
  }
  __syncthreads();
  const long long tile = id;
  stage::complete(s, in, n, tile);
  int4* target = reinterpret_cast<int4*>(out + tile * shape::tile_items);
#pragma unroll
  for (int v = 0; v < Staged::chunks_per_thread; ++v) {
    target[v * Staged::block_threads + threadIdx.x] = s.chunks[v * Staged::block_threads + threadIdx.x];
  }
}

// Diagnostics for the look-back protocol alone: every block draws a ticket, publishes an
// aggregate, looks back and publishes its prefix; no data moves. The state slots can be spread
// out (Stride slots per tile) to see whether polling concentrated on a few L2 lines costs time.
template <int Stride>
struct strided_state {
  scankit::device_detail::tile_state<std::uint32_t> packed;
  __device__ __forceinline__ void publish(long long tile, scankit::device_detail::tile_flag flag, std::uint32_t v) const {
    packed.publish(tile * Stride, flag, v);
  }
  __device__ __forceinline__ scankit::device_detail::tile_flag read(long long tile, std::uint32_t& v) const {
    return packed.read(tile * Stride, v);
  }
};

template <int Stride, int BlockThreads>
__global__ void __launch_bounds__(BlockThreads)
    look_back_only_kernel(scankit::device_detail::single_pass_header* ticket, strided_state<Stride> state,
                          std::uint32_t tiles, std::uint32_t* sink) {
  using namespace scankit::device_detail;
  __shared__ tile_ticket drawn;
  if (threadIdx.x == 0) drawn = draw_tile_ticket(ticket, tiles);
  __syncthreads();
  const long long tile = drawn.tile;
  state.packed.epoch = drawn.epoch;
  if (threadIdx.x < 32) {
    if (tile == 0) {
      if (threadIdx.x == 0) state.publish(0, flag_prefix, 1u);
    } else {
      if (threadIdx.x == 0) state.publish(tile, flag_aggregate, 1u);
      const std::uint32_t before = decoupled_look_back<std::uint32_t>(state, tile, scankit::plus_op{}, look_back_backoff{32, 1024});
      if (threadIdx.x == 0) {
        state.publish(tile, flag_prefix, before + 1u);
        if (before != static_cast<std::uint32_t>(tile)) atomicAdd(sink, 1u);  // counts wrong prefixes
      }
    }
  }
  __syncthreads();
}

template <int Stride, int BlockThreads>
void time_look_back_only(std::uint32_t tiles) {
  std::uint64_t* slots = nullptr;
  scankit::device_detail::single_pass_header* ticket = nullptr;
  std::uint32_t* sink = nullptr;
  const std::size_t slot_count = static_cast<std::size_t>(tiles) * Stride;
  SCANKIT_CUDA_CHECK(cudaMalloc(&slots, slot_count * sizeof(std::uint64_t)));
  SCANKIT_CUDA_CHECK(cudaMalloc(&ticket, sizeof(*ticket)));
  SCANKIT_CUDA_CHECK(cudaMalloc(&sink, sizeof(std::uint32_t)));
  SCANKIT_CUDA_CHECK(cudaMemset(ticket, 0, sizeof(*ticket)));
  SCANKIT_CUDA_CHECK(cudaMemset(sink, 0, sizeof(std::uint32_t)));
  std::vector<float> times;
  cudaEvent_t a, b;
  SCANKIT_CUDA_CHECK(cudaEventCreate(&a));
  SCANKIT_CUDA_CHECK(cudaEventCreate(&b));
  for (int r = 0; r < reps + 1; ++r) {
    SCANKIT_CUDA_CHECK(cudaMemset(slots, 0, slot_count * sizeof(std::uint64_t)));
    SCANKIT_CUDA_CHECK(cudaMemset(ticket, 0, sizeof(*ticket)));
    strided_state<Stride> state{scankit::device_detail::make_tile_state<std::uint32_t>(slots, nullptr, slot_count)};
    SCANKIT_CUDA_CHECK(cudaEventRecord(a));
    look_back_only_kernel<Stride, BlockThreads><<<tiles, BlockThreads>>>(ticket, state, tiles, sink);
    SCANKIT_CUDA_CHECK(cudaEventRecord(b));
    SCANKIT_CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    SCANKIT_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    if (r > 0) times.push_back(ms);
  }
  std::uint32_t wrong = 0;
  SCANKIT_CUDA_CHECK(cudaMemcpy(&wrong, sink, sizeof(wrong), cudaMemcpyDeviceToHost));
  std::sort(times.begin(), times.end());
  const double ms = times[times.size() / 2];
  std::printf("look-back only: %u tiles, %d threads, state stride %d x 8 B: %.3f ms = %.1f tiles/us%s\n", tiles,
              BlockThreads, Stride, ms, tiles / (ms * 1000.0), wrong != 0 ? "  WRONG PREFIXES" : "");
  std::fflush(stdout);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaFree(slots);
  cudaFree(ticket);
  cudaFree(sink);
}

template <class T>
struct type_bench {
  const char* name;
  long long n;
  T* in = nullptr;
  T* out = nullptr;
  T* ref = nullptr;
  double copy_ms = 0, cub_ms = 0;
  scankit::workspace ws;

  type_bench(const char* type_name, long long count) : name(type_name), n(count) {
    SCANKIT_CUDA_CHECK(cudaMalloc(&in, n * sizeof(T)));
    SCANKIT_CUDA_CHECK(cudaMalloc(&out, n * sizeof(T)));
    SCANKIT_CUDA_CHECK(cudaMalloc(&ref, n * sizeof(T)));
    std::vector<T> host(static_cast<std::size_t>(n));
    std::uint64_t x = 88172645463325252ull;
    for (auto& v : host) {
      x ^= x << 13; x ^= x >> 7; x ^= x << 17;
      v = static_cast<T>(static_cast<int>(x % 17) - 8);
    }
    SCANKIT_CUDA_CHECK(cudaMemcpy(in, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    copy_ms = median_ms([&] { SCANKIT_CUDA_CHECK(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice)); });
    std::size_t temp_bytes = 0;
    SCANKIT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, in, ref, n));
    void* temp = nullptr;
    SCANKIT_CUDA_CHECK(cudaMalloc(&temp, temp_bytes));
    cub_ms = median_ms([&] { SCANKIT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, ref, n)); });
    SCANKIT_CUDA_CHECK(cudaFree(temp));
    rows.push_back({name, "copy", n, copy_ms, 1.0, cub_ms / copy_ms, true});
    rows.push_back({name, "cub", n, cub_ms, copy_ms / cub_ms, 1.0, true});
    print(rows[rows.size() - 2]);
    print(rows.back());
  }
  ~type_bench() {
    cudaFree(in);
    cudaFree(out);
    cudaFree(ref);
  }

  static void print(const result_row& r) {
    std::printf("%-7s n=2^%-2d %-34s %8.3f ms  %.3f of copy  %.2fx CUB  %s\n", r.type.c_str(),
                static_cast<int>(std::log2(static_cast<double>(r.n))), r.variant.c_str(), r.ms, r.frac_copy, r.vs_cub,
                r.ok ? "" : "MISMATCH");
    std::fflush(stdout);
  }

  // Policy: a register-kernel scan_policy or a staged_scan_policy, through the template API.
  template <class Policy>
  void variant(const std::string& label) {
    scankit::scan_options options;
    options.strategy = scankit::scan_strategy::decoupled_look_back;
    measure(label, [&] { scankit::device::inclusive_scan<Policy>(in, out, n, scankit::plus_op{}, nullptr, &ws, options); });
  }

  // Runs `launch` once, checks the output against CUB's, then times it.
  void measure(const std::string& label, const std::function<void()>& launch) {
    SCANKIT_CUDA_CHECK(cudaMemset(out, 0xA5, n * sizeof(T)));
    launch();
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<T> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
    SCANKIT_CUDA_CHECK(cudaMemcpy(a.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
    SCANKIT_CUDA_CHECK(cudaMemcpy(b.data(), ref, n * sizeof(T), cudaMemcpyDeviceToHost));
    const bool ok = std::memcmp(a.data(), b.data(), n * sizeof(T)) == 0;
    const double ms = median_ms(launch);
    rows.push_back({name, label, n, ms, copy_ms / ms, cub_ms / ms, ok});
    print(rows.back());
  }

  // The staged kernel with its residency capped at `blocks_per_sm` (unused dynamic shared memory
  // pads each block): fewer tiles in flight make a shallower memory queue, so predecessors'
  // aggregates arrive closer together and the look-back waits less. Checked against CUB.
  template <class Staged>
  void capped(int blocks_per_sm, const std::string& label) {
    using namespace scankit::device_detail;
    auto* kernel = scan_staged_tiles_kernel<Staged, tile_prefix_source::decoupled_look_back, T, const T*, scankit::plus_op>;
    cudaFuncAttributes attributes{};
    SCANKIT_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    int smem_per_sm = 0, reserved = 0;
    SCANKIT_CUDA_CHECK(cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0));
    SCANKIT_CUDA_CHECK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, 0));
    int pad = smem_per_sm / blocks_per_sm - static_cast<int>(attributes.sharedSizeBytes) - reserved;
    pad = pad < 0 ? 0 : pad / 128 * 128;
    SCANKIT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, pad));
    int active = 0;
    SCANKIT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, kernel, Staged::launch_threads, pad));
    measure(label + " cap " + std::to_string(active) + " blocks/SM",
            [&] { launch_staged<Staged, tile_prefix_source::decoupled_look_back>(pad); });
  }

  // A staged policy launched directly with the given prefix source (policies that the template
  // API does not take, e.g. derived structs overriding one tuning constant). Checked against CUB.
  template <class Staged, scankit::device_detail::tile_prefix_source Source>
  void direct(const std::string& label) {
    measure(label, [&] { launch_staged<Staged, Source>(0); });
  }

  // One launch of the staged kernel on the whole input, `pad` bytes of dynamic shared memory per block.
  template <class Staged, scankit::device_detail::tile_prefix_source Source,
            class Probe = scankit::device_detail::no_step_probe>
  void launch_staged(int pad) {
    using namespace scankit::device_detail;
    constexpr long long tile_items = staged_shape<Staged, T>::tile_items;
    const long long tiles = (n + tile_items - 1) / tile_items;
    const scankit::workspace_view view = ws.prepare(tile_state_slots<T>(static_cast<std::size_t>(tiles)),
                                                    tile_state_scratch_bytes<T>(static_cast<std::size_t>(tiles)), nullptr);
    auto args = scan_args<T>(static_cast<const T*>(in), out, n, tiles, false, T{});
    args.pass = make_single_pass_context<T>(view, tiles, staged_look_back_backoff<Staged, Source>(tiles));
    scan_staged_tiles_kernel<Staged, Source, T, const T*, scankit::plus_op, Probe>
        <<<static_cast<unsigned>(tiles), Staged::launch_threads, pad>>>(args, scankit::plus_op{});
  }

  // Timing only (no check): the staged kernel's tile movement alone, and its scan without the
  // look-back (each tile scanned on its own: wrong results, the cost of everything but the wait).
  template <class Staged>
  void diagnostics(const std::string& label) {
    using scankit::device_detail::staged_shape;
    constexpr long long tile_items = staged_shape<Staged, T>::tile_items;
    const long long tiles = (n + tile_items - 1) / tile_items;
    scankit::device_detail::single_pass_header* ticket = nullptr;
    SCANKIT_CUDA_CHECK(cudaMalloc(&ticket, sizeof(*ticket)));
    SCANKIT_CUDA_CHECK(cudaMemset(ticket, 0, sizeof(*ticket)));
    const auto grid = static_cast<unsigned>(tiles);
    const double copy_block_ms = median_ms([&] {
      staged_copy_kernel<Staged, T><<<grid, Staged::block_threads>>>(in, out, n, nullptr, static_cast<std::uint32_t>(tiles));
    });
    const double copy_ticket_ms = median_ms([&] {
      staged_copy_kernel<Staged, T><<<grid, Staged::block_threads>>>(in, out, n, ticket, static_cast<std::uint32_t>(tiles));
    });
    scankit::device_detail::scan_tiles_args<T> args{};
    args.in = in;
    args.out = out;
    args.n = n;
    args.tiles = tiles;
    const double local_ms = median_ms([&] {
      scankit::device_detail::scan_staged_tiles_kernel<Staged, scankit::device_detail::tile_prefix_source::independent>
          <<<grid, Staged::launch_threads>>>(args, scankit::plus_op{});
    });
    SCANKIT_CUDA_CHECK(cudaGetLastError());
    SCANKIT_CUDA_CHECK(cudaFree(ticket));
    for (const auto& [what, ms] : {std::pair<const char*, double>{"copy only", copy_block_ms},
                                   {"copy only, ticket", copy_ticket_ms},
                                   {"scan without look-back", local_ms}}) {
      rows.push_back({name, label + " " + what, n, ms, copy_ms / ms, cub_ms / ms, true});
      print(rows.back());
    }
  }
};

template <int B, int K, unsigned First = 32, unsigned Max = 1024>
using p = scan_policy<B, K, block_scan_algorithm::warp_of_warps, First, Max>;

std::string label(int b, int k, unsigned first = 32, unsigned max = 1024) {
  return "decoupled b" + std::to_string(b) + " k" + std::to_string(k) + " backoff " + std::to_string(first) + "-" +
         std::to_string(max);
}

template <int B, int V, int MinBlocks = 1, int Lanes = 1, unsigned First = 32, unsigned Max = 1024>
using staged = scankit::device_detail::staged_scan_policy<B, V, MinBlocks, Lanes, First, Max>;

std::string staged_label(int b, int v, int min_blocks = 1, int lanes = 1, unsigned first = 32, unsigned max = 1024) {
  return "staged b" + std::to_string(b) + " v" + std::to_string(v) + " minb" + std::to_string(min_blocks) + " lb" +
         std::to_string(lanes) + " backoff " + std::to_string(first) + "-" + std::to_string(max);
}

template <int B, int V, int Ahead, unsigned First = 32, unsigned Max = 1024, int Lanes = 1>
using prefetching = scankit::device_detail::staged_scan_policy<B, V, 1, Lanes, First, Max, Ahead>;

std::string prefetch_label(int b, int v, int ahead, unsigned first = 32, unsigned max = 1024, int lanes = 1) {
  return staged_label(b, v, 1, lanes, first, max) + " L2 prefetch " + std::to_string(ahead) + " tiles ahead";
}

// The staged kernel with a look-back warp beside BlockThreads scanning threads (4 MiB prefetch).
template <int B, int V, int MinBlocks = 1>
using look_back_warp = scankit::device_detail::staged_scan_policy<B, V, MinBlocks, 1, 32, 1024,
                                                                  (4 << 20) / (B * V * 16), true>;

// " (R regs, L B local, K blocks/SM)" of a staged policy's kernel.
template <class T, class Staged,
          scankit::device_detail::tile_prefix_source Source = scankit::device_detail::tile_prefix_source::decoupled_look_back>
std::string residency() {
  using namespace scankit::device_detail;
  auto* kernel = scan_staged_tiles_kernel<Staged, Source, T, const T*, scankit::plus_op>;
  cudaFuncAttributes attributes{};
  SCANKIT_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  int per_sm = 0;
  SCANKIT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, Staged::launch_threads, 0));
  return " (" + std::to_string(attributes.numRegs) + " regs, " + std::to_string(attributes.localSizeBytes) +
         " B local, " + std::to_string(per_sm) + " blocks/SM)";
}

template <class T, int B, int V, int MinBlocks = 1>
std::string look_back_warp_label() {
  return "staged b" + std::to_string(B) + "+32 v" + std::to_string(V) + " minb" + std::to_string(MinBlocks) +
         " look-back warp, L2 4 MiB" + residency<T, look_back_warp<B, V, MinBlocks>>();
}

// The staged kernel with the L2 prefetch, then with a look-back warp in several shapes.
template <class T>
void prefetch_sweep(const char* name, long long n) {
  type_bench<T> t(name, n);
  t.template variant<staged<256, 8, 1, 1, 32, 1024>>(staged_label(256, 8) + " no prefetch");
  t.template variant<prefetching<256, 8, 128>>(prefetch_label(256, 8, 128));
  t.template variant<look_back_warp<256, 8>>(look_back_warp_label<T, 256, 8>());
  t.template variant<look_back_warp<256, 8, 5>>(look_back_warp_label<T, 256, 8, 5>());
  t.template variant<look_back_warp<256, 8, 6>>(look_back_warp_label<T, 256, 8, 6>());
  t.template variant<look_back_warp<224, 8>>(look_back_warp_label<T, 224, 8>());
  t.template variant<look_back_warp<224, 8, 6>>(look_back_warp_label<T, 224, 8, 6>());
  t.template variant<look_back_warp<128, 16>>(look_back_warp_label<T, 128, 16>());
  t.template variant<look_back_warp<96, 16>>(look_back_warp_label<T, 96, 16>());
  t.template variant<look_back_warp<480, 4>>(look_back_warp_label<T, 480, 4>());
  t.template variant<look_back_warp<128, 8>>(look_back_warp_label<T, 128, 8>());
}

// The deterministic look-back (group sizes 64, 128 and 256) beside the plain look-back (32- and
// 64-tile windows) on the tuned staged shape, twice in alternation. For integers the
// deterministic association gives the same result, so it is a look-back like any other there.
template <class Tuned, int Group>
struct with_group : Tuned {
  static constexpr int deterministic_group_tiles = Group;
};

template <class Tuned, int TilesPerLane>
struct with_window : Tuned {
  static constexpr int look_back_tiles_per_lane = TilesPerLane;
};

template <class T>
void deterministic_sweep(const char* name, long long n) {
  using namespace scankit::device_detail;
  using tuned = typename staged_scan_tuning<T>::policy;
  type_bench<T> t(name, n);
  for (int round = 0; round < 2; ++round) {
    t.template direct<tuned, tile_prefix_source::decoupled_look_back>("tuned staged, decoupled look-back" +
                                                                       residency<T, tuned>());
    t.template direct<with_window<tuned, 2>, tile_prefix_source::decoupled_look_back>(
        "tuned staged, decoupled look-back, 64-tile window" + residency<T, with_window<tuned, 2>>());
    t.template direct<with_group<tuned, 64>, tile_prefix_source::deterministic_look_back>(
        "tuned staged, deterministic, groups of 64" +
        residency<T, with_group<tuned, 64>, tile_prefix_source::deterministic_look_back>());
    t.template direct<with_group<tuned, 128>, tile_prefix_source::deterministic_look_back>(
        "tuned staged, deterministic, groups of 128" +
        residency<T, with_group<tuned, 128>, tile_prefix_source::deterministic_look_back>());
    t.template direct<with_group<tuned, 256>, tile_prefix_source::deterministic_look_back>(
        "tuned staged, deterministic, groups of 256" +
        residency<T, with_group<tuned, 256>, tile_prefix_source::deterministic_look_back>());
  }
}

// One staged shape with the decoupled look-back, labelled with its tile size and residency.
template <class T, class Policy>
void tile_variant(type_bench<T>& t, const std::string& what) {
  t.template direct<Policy, scankit::device_detail::tile_prefix_source::decoupled_look_back>(
      what + " " + std::to_string(Policy::tile_bytes / 1024) + " KiB tiles" + residency<T, Policy>());
}

// 8-byte values: the tuned shape (224+32 threads x 8 chunks; double 3 blocks/SM at 77 registers,
// int64 4 at 64) beside shapes whose registers fit 4 blocks/SM without spilling for double too
// (ptxas: 224 x 7 at 62 registers, 256 x 6 at 54, 224 x 6 at 60; 224 x 8 capped at 4 blocks
// spills 92 B). The earlier form of this sweep (look-back warp shapes with the 32 ns - 1 us
// back-off) found nothing, but every 4- and 5-block double shape in it spilled. The tuned shape
// runs first and last.
template <class T>
void wide_residency_sweep(const char* name, long long n) {
  using namespace scankit::device_detail;
  type_bench<T> t(name, n);
  tile_variant<T, typename staged_scan_tuning<T>::policy>(t, "tuned");
  tile_variant<T, prefetching_staged_policy<224, 7, 4, true>>(t, "b224+32 v7 minb4");
  tile_variant<T, prefetching_staged_policy<256, 6, 4, true>>(t, "b256+32 v6 minb4");
  tile_variant<T, prefetching_staged_policy<224, 6, 4, true>>(t, "b224+32 v6 minb4");
  tile_variant<T, prefetching_staged_policy<224, 7, 4, true>>(t, "b224+32 v7 minb4");
  tile_variant<T, prefetching_staged_policy<256, 6, 4, true>>(t, "b256+32 v6 minb4");
  tile_variant<T, typename staged_scan_tuning<T>::policy>(t, "tuned");
}

// Larger tiles: more bytes of tiles resident per SM (shared memory holds 6 x 32 KiB of the tuned
// 4-byte shape, 4 x 28 KiB of the 8-byte one) and fewer tiles, so fewer look-backs per byte. The
// tuned shape runs first and last, so drift between the two shows the run-to-run spread.
template <class T>
void tile_size_sweep(const char* name, long long n) {
  using tuned = typename scankit::device_detail::staged_scan_tuning<T>::policy;
  type_bench<T> t(name, n);
  tile_variant<T, tuned>(t, "tuned");
  if constexpr (sizeof(T) == 8) {
    tile_variant<T, look_back_warp<224, 10, 4>>(t, "b224+32 v10 minb4");
    tile_variant<T, look_back_warp<224, 12, 4>>(t, "b224+32 v12 minb4");
    tile_variant<T, look_back_warp<192, 14, 4>>(t, "b192+32 v14 minb4");
    tile_variant<T, look_back_warp<256, 11, 3>>(t, "b256+32 v11 minb3");
    tile_variant<T, look_back_warp<160, 16, 5>>(t, "b160+32 v16 minb5");
    tile_variant<T, look_back_warp<128, 20, 5>>(t, "b128+32 v20 minb5");
  } else {
    tile_variant<T, look_back_warp<256, 9, 6>>(t, "b256+32 v9 minb6");
    tile_variant<T, look_back_warp<288, 8, 6>>(t, "b288+32 v8 minb6");
    tile_variant<T, look_back_warp<224, 10, 6>>(t, "b224+32 v10 minb6");
    tile_variant<T, look_back_warp<192, 12, 6>>(t, "b192+32 v12 minb6");
    tile_variant<T, look_back_warp<128, 18, 6>>(t, "b128+32 v18 minb6");
    tile_variant<T, look_back_warp<256, 10, 5>>(t, "b256+32 v10 minb5");
    tile_variant<T, look_back_warp<256, 11, 5>>(t, "b256+32 v11 minb5");
  }
  tile_variant<T, tuned>(t, "tuned");
}

// The look-back's back-off on the tuned shapes. With a look-back warp the look-back starts while
// the tile is still loading, so its first polls find predecessors unpublished and the sleep grows
// to its maximum: a predecessor that publishes just after a poll is seen up to max_ns later.
template <class Tuned, unsigned FirstNs, unsigned MaxNs>
struct with_backoff : Tuned {
  static constexpr scankit::device_detail::look_back_backoff backoff{FirstNs, MaxNs};
  static constexpr scankit::device_detail::look_back_backoff deterministic_backoff{FirstNs, MaxNs};
};

template <class T, unsigned FirstNs, unsigned MaxNs>
void backoff_variant(type_bench<T>& t) {
  using namespace scankit::device_detail;
  t.template direct<with_backoff<typename staged_scan_tuning<T>::policy, FirstNs, MaxNs>,
                    tile_prefix_source::decoupled_look_back>("tuned, back-off " + std::to_string(FirstNs) + "-" +
                                                             std::to_string(MaxNs) + " ns");
}

template <class T>
void backoff_sweep(const char* name, long long n) {
  type_bench<T> t(name, n);
  for (int round = 0; round < 2; ++round) {
    backoff_variant<T, 32, 1024>(t);  // the in-block look-back's (the look-back warp's until 7ce1962)
    backoff_variant<T, 128, 256>(t);
    backoff_variant<T, 128, 512>(t);
    backoff_variant<T, 192, 384>(t);
    backoff_variant<T, 256, 256>(t);
    backoff_variant<T, 256, 512>(t);
    backoff_variant<T, 384, 384>(t);
    backoff_variant<T, 512, 512>(t);
  }
}

// The deterministic look-back with the look-back warp's back-off and with others, beside the
// plain look-back, twice in alternation.
template <class T, unsigned FirstNs, unsigned MaxNs>
void deterministic_backoff_variant(type_bench<T>& t) {
  using namespace scankit::device_detail;
  using policy = with_backoff<typename staged_scan_tuning<T>::policy, FirstNs, MaxNs>;
  t.template direct<policy, tile_prefix_source::deterministic_look_back>(
      "tuned, deterministic, back-off " + std::to_string(FirstNs) + "-" + std::to_string(MaxNs) + " ns");
}

template <class T>
void deterministic_backoff_sweep(const char* name, long long n) {
  using namespace scankit::device_detail;
  type_bench<T> t(name, n);
  for (int round = 0; round < 2; ++round) {
    t.template direct<typename staged_scan_tuning<T>::policy, tile_prefix_source::decoupled_look_back>(
        "tuned, decoupled look-back");
    deterministic_backoff_variant<T, look_back_warp_backoff_ns, look_back_warp_backoff_ns>(t);
    deterministic_backoff_variant<T, 32, 1024>(t);
    deterministic_backoff_variant<T, 128, 512>(t);
    deterministic_backoff_variant<T, 256, 512>(t);
    deterministic_backoff_variant<T, 64, 1024>(t);
  }
}

// The timeline of every tile (`--trace PREFIX`): the global timer (ns) when the tile drew its
// ticket, was loaded, published its aggregate, ended its look-back, passed the hand-over and had
// stored its results, one unused word, and the SM it ran on; 8 words per tile, written raw to
// PREFIX-<variant>.bin (scripts/analyze_trace.py reads them).
__device__ unsigned long long* step_times;

struct timeline_probe {
  __device__ __forceinline__ static void mark(long long tile, scankit::device_detail::staged_step step) {
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)::"memory");
    step_times[tile * 8 + static_cast<int>(step)] = now;
    if (step == scankit::device_detail::staged_step::ticket) {
      unsigned sm;
      asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
      step_times[tile * 8 + 7] = sm;
    }
  }
};

// Lifetime sensitivity: thread 0 of every tile sleeps DelayNs after the hand-over, so each tile
// holds its block that much longer. How much throughput drops says how much a shorter wait
// would buy.
template <unsigned DelayNs>
struct delay_probe {
  __device__ __forceinline__ static void mark(long long, scankit::device_detail::staged_step step) {
    if (step == scankit::device_detail::staged_step::handed_over) __nanosleep(DelayNs);
  }
};

template <class T, class Policy>
void trace_policy(type_bench<T>& t, long long n, const std::string& label, const std::string& file) {
  using namespace scankit::device_detail;
  const long long tiles = (n + staged_shape<Policy, T>::tile_items - 1) / staged_shape<Policy, T>::tile_items;
  unsigned long long* times = nullptr;
  SCANKIT_CUDA_CHECK(cudaMalloc(&times, static_cast<std::size_t>(tiles) * 8 * sizeof(unsigned long long)));
  SCANKIT_CUDA_CHECK(cudaMemset(times, 0, static_cast<std::size_t>(tiles) * 8 * sizeof(unsigned long long)));
  SCANKIT_CUDA_CHECK(cudaMemcpyToSymbol(step_times, &times, sizeof(times)));
  t.template direct<Policy, tile_prefix_source::decoupled_look_back>(label);
  t.measure(label + ", traced",
            [&] { t.template launch_staged<Policy, tile_prefix_source::decoupled_look_back, timeline_probe>(0); });
  std::vector<unsigned long long> host(static_cast<std::size_t>(tiles) * 8);
  SCANKIT_CUDA_CHECK(cudaMemcpy(host.data(), times, host.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  SCANKIT_CUDA_CHECK(cudaFree(times));
  if (FILE* f = std::fopen(file.c_str(), "wb")) {
    std::fwrite(host.data(), sizeof(unsigned long long), host.size(), f);
    std::fclose(f);
  }
}

template <class T, unsigned DelayNs>
void delayed_variant(type_bench<T>& t) {
  using namespace scankit::device_detail;
  using tuned = typename staged_scan_tuning<T>::policy;
  t.measure("tuned, +" + std::to_string(DelayNs) + " ns per tile after the hand-over",
            [&] { t.template launch_staged<tuned, tile_prefix_source::decoupled_look_back, delay_probe<DelayNs>>(0); });
}

// Timelines of the tuned int32 scan (its own back-off, and 128-512 ns) to `prefix`-*.bin, then
// the lifetime sensitivity.
void trace_sweep(long long n, const std::string& prefix) {
  using namespace scankit::device_detail;
  using tuned = staged_scan_tuning<std::int32_t>::policy;
  type_bench<std::int32_t> t("int32", n);
  trace_policy<std::int32_t, tuned>(t, n, "tuned", prefix + "-tuned.bin");
  trace_policy<std::int32_t, with_backoff<tuned, 128, 512>>(t, n, "tuned, back-off 128-512 ns",
                                                            prefix + "-backoff128-512.bin");
  delayed_variant<std::int32_t, 0>(t);
  delayed_variant<std::int32_t, 500>(t);
  delayed_variant<std::int32_t, 1000>(t);
  delayed_variant<std::int32_t, 2000>(t);
  delayed_variant<std::int32_t, 4000>(t);
  delayed_variant<std::int32_t, 0>(t);
}

// For ncu (`--ncu-pair`): one launch of the tuned int32 scan, then one of the same kernel
// without the look-back (each tile scanned on its own, blockIdx tile ids: the "scan without
// look-back" of diagnostics()), then the same two for float, nothing else, so that a profiler
// can compare them.
template <class T>
void ncu_pair(const char* type_name, long long n) {
  using namespace scankit::device_detail;
  using tuned = typename staged_scan_tuning<T>::policy;
  type_bench<T> t(type_name, n);
  t.template launch_staged<tuned, tile_prefix_source::decoupled_look_back>(0);
  t.template launch_staged<tuned, tile_prefix_source::independent>(0);
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
}

// `--isolation`: copy, CUB, the default scan (template API) and the tuned kernel without its look-back, each
// timed three ways, to tell a kernel's own speed from the state the GPU is in while it runs:
//   back-to-back  the median of single launches, one after another (tune_scan's usual timing);
//   sustained     the mean over about a second of launches queued without a pause, bracketed by
//                 wall-clock stamps so that clocks and power sampled outside (nvidia-smi) line up;
//   isolated      the median of single launches, each after 100 ms of idle GPU.
// Each row's fraction of copy is against the copy timed the same way.
template <class T>
void isolation_sweep(const char* type_name, long long n) {
  using namespace scankit::device_detail;
  using tuned = typename staged_scan_tuning<T>::policy;
  type_bench<T> t(type_name, n);
  std::size_t temp_bytes = 0;
  SCANKIT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, t.in, t.ref, n));
  void* temp = nullptr;
  SCANKIT_CUDA_CHECK(cudaMalloc(&temp, temp_bytes));
  const std::vector<std::pair<const char*, std::function<void()>>> launches = {
      {"copy", [&] { SCANKIT_CUDA_CHECK(cudaMemcpyAsync(t.out, t.in, n * sizeof(T), cudaMemcpyDeviceToDevice)); }},
      {"cub", [&] { SCANKIT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, t.in, t.ref, n)); }},
      {"scan", [&] { scankit::device::inclusive_scan(t.in, t.out, n, scankit::plus_op{}, nullptr, &t.ws); }},
      {"scan without look-back", [&] { t.template launch_staged<tuned, tile_prefix_source::independent>(0); }},
  };
  const auto wall_ms = [] {
    return std::chrono::duration<double, std::milli>(std::chrono::system_clock::now().time_since_epoch()).count();
  };
  cudaEvent_t a, b;
  SCANKIT_CUDA_CHECK(cudaEventCreate(&a));
  SCANKIT_CUDA_CHECK(cudaEventCreate(&b));
  double copy_ms[3] = {0, 0, 0};
  for (const auto& entry : launches) {
    const char* what = entry.first;
    const std::function<void()>& launch = entry.second;  // (a lambda may not capture a structured binding in C++17)
    double ms[3];
    ms[0] = median_ms(launch);
    const int count = static_cast<int>(1000.0 / ms[0]) + 1;
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    const double start = wall_ms();
    ms[1] = scankit_bench::event_timed_ms(a, b, [&] {
              for (int i = 0; i < count; ++i) launch();
            }) / count;
    const double end = wall_ms();
    std::vector<float> alone;
    for (int r = 0; r < 15; ++r) {
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      alone.push_back(scankit_bench::event_timed_ms(a, b, launch));
    }
    std::sort(alone.begin(), alone.end());
    ms[2] = alone[alone.size() / 2];
    if (std::strcmp(what, "copy") == 0) std::copy(ms, ms + 3, copy_ms);
    std::printf("%s %s: sustained from %.3f to %.3f (unix ms), %d launches\n", type_name, what, start, end, count);
    const char* modes[3] = {"back-to-back", "sustained", "isolated"};
    for (int m = 0; m < 3; ++m) {
      rows.push_back({type_name, std::string(what) + ", " + modes[m], n, ms[m], copy_ms[m] / ms[m], 0.0, true});
      t.print(rows.back());
    }
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  SCANKIT_CUDA_CHECK(cudaFree(temp));
}

// One sweep over several value types in turn: `sweep` is called with a type_tag<T> per type.
template <class T>
struct type_tag {
  using type = T;
  const char* name;
};

template <class T>
constexpr const char* type_label() {
  if constexpr (std::is_same_v<T, std::int8_t>) return "int8";
  else if constexpr (std::is_same_v<T, std::int16_t>) return "int16";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else return "double";
}

template <class... Types, class Sweep>
void for_types(Sweep sweep) {
  (sweep(type_tag<Types>{type_label<Types>()}), ...);
}

// Writes the rows as JSON (if asked) and returns the exit status: 1 if any variant mismatched.
int write_json(const char* json) {
  cudaDeviceProp prop{};
  SCANKIT_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  const std::string head = scankit_bench::format("\"gpu\": \"%s\"", prop.name);
  return scankit_bench::finish_sweep(json, head, rows, [](const auto& r) {
    return scankit_bench::format(
        "\"type\": \"%s\", \"variant\": \"%s\", \"n\": %lld, \"ms\": %.5f, \"frac_copy\": %.4f, \"vs_cub\": %.4f",
        r.type.c_str(), r.variant.c_str(), r.n, r.ms, r.frac_copy, r.vs_cub);
  });
}

}  // namespace

int main(int argc, char** argv) {
  int log2n = 28;
  const char* json = nullptr;
  bool caps_only = false;  // only the residency-cap experiment
  bool prefetch_only = false;  // only the L2-prefetch sweep
  bool deterministic_only = false;  // only the deterministic look-back's group sizes
  bool wide_only = false;           // only the 8-byte residency shapes
  bool tiles_only = false;          // only the larger-tile shapes
  bool backoff_only = false;        // only the look-back back-off
  const char* trace = nullptr;      // only the tile timelines of the tuned int32 scan, to PREFIX-*.bin
  bool ncu_only = false;            // one launch with and one without the look-back, for ncu
  bool deterministic_backoff_only = false;  // only the deterministic look-back's back-off
  bool isolation_only = false;      // back-to-back, sustained and isolated timings of the same launches
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
    else if (!std::strcmp(argv[i], "--log2n") && i + 1 < argc) log2n = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--caps-only")) caps_only = true;
    else if (!std::strcmp(argv[i], "--prefetch-only")) prefetch_only = true;
    else if (!std::strcmp(argv[i], "--deterministic-only")) deterministic_only = true;
    else if (!std::strcmp(argv[i], "--wide-only")) wide_only = true;
    else if (!std::strcmp(argv[i], "--tiles-only")) tiles_only = true;
    else if (!std::strcmp(argv[i], "--backoff-only")) backoff_only = true;
    else if (!std::strcmp(argv[i], "--trace") && i + 1 < argc) trace = argv[++i];
    else if (!std::strcmp(argv[i], "--ncu-pair")) ncu_only = true;
    else if (!std::strcmp(argv[i], "--deterministic-backoff-only")) deterministic_backoff_only = true;
    else if (!std::strcmp(argv[i], "--isolation")) isolation_only = true;
  }
  if (!scankit::cuda_device_available()) {
    std::puts("tune_scan: no CUDA device");
    return 3;
  }
  const long long n = 1ll << log2n;
  if (prefetch_only) {
    for_types<std::int32_t, std::int64_t, std::int8_t, std::int16_t>(
        [n](auto tag) { prefetch_sweep<typename decltype(tag)::type>(tag.name, n); });
    return write_json(json);
  }
  if (deterministic_backoff_only) {
    for_types<float, double>(
        [n](auto tag) { deterministic_backoff_sweep<typename decltype(tag)::type>(tag.name, n); });
    return write_json(json);
  }
  if (isolation_only) {
    for_types<std::int32_t, std::int64_t, float>(
        [n](auto tag) { isolation_sweep<typename decltype(tag)::type>(tag.name, n); });
    return write_json(json);
  }
  if (ncu_only) {
    for_types<std::int32_t, float>(
        [n](auto tag) { ncu_pair<typename decltype(tag)::type>(tag.name, n); });
    return 0;
  }
  if (trace != nullptr) {
    trace_sweep(n, trace);
    return write_json(json);
  }
  if (backoff_only) {
    for_types<std::int32_t, float, std::int64_t, double, std::int8_t>(
        [n](auto tag) { backoff_sweep<typename decltype(tag)::type>(tag.name, n); });
    return write_json(json);
  }
  if (tiles_only) {
    for_types<std::int32_t, float, std::int64_t, double>(
        [n](auto tag) { tile_size_sweep<typename decltype(tag)::type>(tag.name, n); });
    return write_json(json);
  }
  if (wide_only) {
    for_types<double, std::int64_t>(
        [n](auto tag) { wide_residency_sweep<typename decltype(tag)::type>(tag.name, n); });
    return write_json(json);
  }
  if (deterministic_only) {
    for_types<float, double, std::int64_t, std::int32_t, std::int8_t, std::int16_t>(
        [n](auto tag) { deterministic_sweep<typename decltype(tag)::type>(tag.name, n); });
    return write_json(json);
  }
  if (caps_only) {
    {
      type_bench<std::int32_t> t("int32", n);
      for (int cap : {2, 3, 4, 5, 6}) t.capped<staged<256, 8>>(cap, staged_label(256, 8));
      for (int cap : {3, 4, 6, 8, 10, 12}) t.capped<staged<128, 8>>(cap, staged_label(128, 8));
      for (int cap : {3, 4, 6}) t.capped<staged<128, 16>>(cap, staged_label(128, 16));
    }
    {
      type_bench<std::int64_t> t("int64", n);
      for (int cap : {2, 3, 4}) t.capped<staged<256, 8>>(cap, staged_label(256, 8));
    }
    return write_json(json);
  }
  time_look_back_only<1, 128>(65536);
  time_look_back_only<4, 128>(65536);
  time_look_back_only<16, 128>(65536);
  time_look_back_only<1, 256>(65536);
  time_look_back_only<1, 128>(262144);
  time_look_back_only<16, 128>(262144);
  {
    type_bench<std::int32_t> t("int32", n);
    t.diagnostics<staged<128, 8>>(staged_label(128, 8));
    t.diagnostics<staged<256, 8>>(staged_label(256, 8));
    t.variant<staged<128, 8>>(staged_label(128, 8));
    t.variant<staged<256, 4>>(staged_label(256, 4));
    t.variant<staged<128, 4>>(staged_label(128, 4));
    t.variant<staged<64, 8>>(staged_label(64, 8));
    t.variant<staged<128, 16>>(staged_label(128, 16));
    t.variant<staged<256, 8>>(staged_label(256, 8));
    t.variant<staged<64, 16>>(staged_label(64, 16));
    t.variant<staged<256, 2>>(staged_label(256, 2));
    t.variant<staged<128, 8, 1, 1, 0, 0>>(staged_label(128, 8, 1, 1, 0, 0));
    t.variant<staged<128, 8, 1, 2>>(staged_label(128, 8, 1, 2));
    t.variant<staged<128, 8, 1, 4>>(staged_label(128, 8, 1, 4));
    t.variant<staged<256, 8, 1, 2>>(staged_label(256, 8, 1, 2));
    t.variant<staged<256, 8, 1, 4>>(staged_label(256, 8, 1, 4));
    t.variant<staged<128, 8, 12>>(staged_label(128, 8, 12));
    t.variant<staged<128, 16, 1, 2>>(staged_label(128, 16, 1, 2));
    t.variant<p<256, 16>>(label(256, 16));
    t.variant<p<128, 32>>(label(128, 32));
    t.variant<p<256, 24>>(label(256, 24));
  }
  {
    type_bench<std::int64_t> t("int64", n);
    t.diagnostics<staged<128, 8>>(staged_label(128, 8));
    t.variant<staged<128, 8>>(staged_label(128, 8));
    t.variant<staged<256, 4>>(staged_label(256, 4));
    t.variant<staged<128, 16>>(staged_label(128, 16));
    t.variant<staged<64, 16>>(staged_label(64, 16));
    t.variant<staged<128, 8, 1, 4>>(staged_label(128, 8, 1, 4));
    t.variant<staged<256, 8>>(staged_label(256, 8));
    t.variant<p<256, 8>>(label(256, 8));
    t.variant<p<128, 16>>(label(128, 16));
    t.variant<p<512, 4>>(label(512, 4));
    t.variant<p<256, 4>>(label(256, 4));
  }
  {
    type_bench<std::int8_t> t("int8", n);
    t.variant<staged<128, 8>>(staged_label(128, 8));
    t.variant<staged<256, 4>>(staged_label(256, 4));
    t.variant<staged<128, 4>>(staged_label(128, 4));
    t.variant<staged<256, 8>>(staged_label(256, 8));
    t.variant<p<256, 64>>(label(256, 64));
    t.variant<p<512, 32>>(label(512, 32));
    t.variant<p<256, 32>>(label(256, 32));
  }
  {
    type_bench<std::int16_t> t("int16", n);
    t.variant<staged<128, 8>>(staged_label(128, 8));
    t.variant<staged<256, 4>>(staged_label(256, 4));
    t.variant<staged<128, 4>>(staged_label(128, 4));
    t.variant<p<256, 32>>(label(256, 32));
    t.variant<p<512, 16>>(label(512, 16));
    t.variant<p<128, 64>>(label(128, 64));
  }
  return write_json(json);
}
