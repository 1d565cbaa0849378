// Shared by the per-type translation units of the scan lab's precompiled overloads: maps the
// run-time operator and options onto template instantiations of the lab dispatch
// (scan_textbook.cuh).
//
// What is precompiled, for each value type: every strategy; the staged look-back kernel (the
// default shape: no items_per_thread or block_algorithm given); every block algorithm for `plus`;
// the default block algorithm (warp-of-warps) for the other operators; the tuned coarsening,
// plus 1, 2, 4 and 8 items per thread for int32 and float sums (what the lab and the
// benchmarks sweep). Other shapes are one template instantiation away in scankit/device/scan_lab.cuh.
#pragma once

#include <string>
#include <type_traits>

#include "scankit/device/scan_lab.cuh"
#include "scankit/lab/scan_lab.hpp"

namespace scankit::precompiled {

using device_detail::scan_policy;
using device_detail::scan_tuning;

// The tuned coarsening with the warp-of-warps block scan is the production shape, launch bounds
// included; other shapes are lab shapes.
template <class T, int K, block_scan_algorithm Algorithm>
using lab_shape = std::conditional_t<K == scan_tuning<T>::items_per_thread &&
                                         Algorithm == block_scan_algorithm::warp_of_warps,
                                     device_detail::tuned_scan_policy<T>,
                                     scan_policy<scan_tuning<T>::block_threads, K, Algorithm>>;

template <class T, class Op, int K>
void run_with_algorithm(const char* function, const T* in, T* out, std::int64_t n, bool exclusive, const T& init,
                        Op op, cudaStream_t stream, workspace* ws, scan_options options, bool all_algorithms) {
  constexpr int B = scan_tuning<T>::block_threads;
  const block_scan_algorithm algorithm = options.block_algorithm;
  options.block_algorithm = block_scan_algorithm::automatic;
  options.items_per_thread = 0;
  if (algorithm == block_scan_algorithm::automatic || algorithm == block_scan_algorithm::warp_of_warps) {
    return device_detail::dispatch_lab_scan<lab_shape<T, K, block_scan_algorithm::warp_of_warps>>(
        function, in, out, n, exclusive, init, op, stream, ws, options);
  }
  if (!all_algorithms) {
    throw error(std::string(function) + ": block algorithm " + to_string(algorithm) +
                " is precompiled for the plus operator only; use scankit/device/scan_lab.cuh for other operators");
  }
  switch (algorithm) {
    case block_scan_algorithm::kogge_stone_double_buffer:
      return device_detail::dispatch_lab_scan<scan_policy<B, K, block_scan_algorithm::kogge_stone_double_buffer>>(
          function, in, out, n, exclusive, init, op, stream, ws, options);
    case block_scan_algorithm::kogge_stone_read_sync_write:
      return device_detail::dispatch_lab_scan<scan_policy<B, K, block_scan_algorithm::kogge_stone_read_sync_write>>(
          function, in, out, n, exclusive, init, op, stream, ws, options);
    default:
      return device_detail::dispatch_lab_scan<scan_policy<B, K, block_scan_algorithm::brent_kung>>(
          function, in, out, n, exclusive, init, op, stream, ws, options);
  }
}

template <class T>
constexpr bool has_coarsening_sweep = std::is_same_v<T, std::int32_t> || std::is_same_v<T, float>;

template <class T, class Op>
void run_with_shape(const char* function, const T* in, T* out, std::int64_t n, bool exclusive, const T& init, Op op,
                    cudaStream_t stream, workspace* ws, const scan_options& options, bool all_algorithms) {
  constexpr int tuned_k = scan_tuning<T>::items_per_thread;
  const int k = options.items_per_thread;
  if (k == 0 && options.block_algorithm == block_scan_algorithm::automatic) {
    // The default shape: the staged kernel for the look-back strategies.
    return device_detail::dispatch_lab_scan<device_detail::tuned_scan_policy<T>, T, Op,
                                        typename device_detail::staged_scan_tuning<T>::policy>(
        function, in, out, n, exclusive, init, op, stream, ws, options);
  }
  if (k == 0 || k == tuned_k) {
    return run_with_algorithm<T, Op, tuned_k>(function, in, out, n, exclusive, init, op, stream, ws, options,
                                              all_algorithms);
  }
  if constexpr (has_coarsening_sweep<T> && std::is_same_v<Op, plus_op>) {
    switch (k) {
      case 1: return run_with_algorithm<T, Op, 1>(function, in, out, n, exclusive, init, op, stream, ws, options, true);
      case 2: return run_with_algorithm<T, Op, 2>(function, in, out, n, exclusive, init, op, stream, ws, options, true);
      case 4: return run_with_algorithm<T, Op, 4>(function, in, out, n, exclusive, init, op, stream, ws, options, true);
      case 8: return run_with_algorithm<T, Op, 8>(function, in, out, n, exclusive, init, op, stream, ws, options, true);
      default: break;
    }
  }
  throw error(std::string(function) + ": options.items_per_thread = " + std::to_string(k) +
              " is not precompiled for this type and operator (tuned: " + std::to_string(tuned_k) +
              "; int32 and float sums also offer 1, 2, 4, 8); use scankit/device/scan_lab.cuh");
}

template <class T>
void run_lab_scan(const char* function, const T* in, T* out, std::int64_t n, bool exclusive, const T& init, scan_op op,
         cudaStream_t stream, workspace* ws, const scan_options& options) {
  if (!op_supported<T>(op)) {
    throw error(std::string(function) + ": operator " + to_string(op) + " needs an integral value type");
  }
  switch (op) {
    case scan_op::plus:
      return run_with_shape(function, in, out, n, exclusive, init, plus_op{}, stream, ws, options, true);
    case scan_op::maximum:
      return run_with_shape(function, in, out, n, exclusive, init, maximum_op{}, stream, ws, options, false);
    case scan_op::minimum:
      return run_with_shape(function, in, out, n, exclusive, init, minimum_op{}, stream, ws, options, false);
    default:
      break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case scan_op::bit_and:
        return run_with_shape(function, in, out, n, exclusive, init, bit_and_op{}, stream, ws, options, false);
      case scan_op::bit_or:
        return run_with_shape(function, in, out, n, exclusive, init, bit_or_op{}, stream, ws, options, false);
      default:
        return run_with_shape(function, in, out, n, exclusive, init, bit_xor_op{}, stream, ws, options, false);
    }
  }
}

template <class T>
std::size_t lab_workspace_bytes(std::int64_t n, const scan_options& options) {
  // The workspace depends on the tile size only through the tile count; the smallest tile offered
  // needs the most, so answer for the shape actually requested.
  const int k = options.items_per_thread == 0 ? scan_tuning<T>::items_per_thread : options.items_per_thread;
  scan_options plain = options;
  plain.items_per_thread = 0;
  plain.block_algorithm = block_scan_algorithm::automatic;
  constexpr int B = scan_tuning<T>::block_threads;
  if (options.items_per_thread == 0 && options.block_algorithm == block_scan_algorithm::automatic) {
    return device_detail::lab_workspace_bytes<scan_policy<B, scan_tuning<T>::items_per_thread>,
                                              typename device_detail::staged_scan_tuning<T>::policy, T>(
        "scankit::lab::scan_workspace_bytes", n, plain);
  }
  switch (k) {
    case 1: return device_detail::lab_workspace_bytes<scan_policy<B, 1>, device_detail::no_staging, T>("scankit::lab::scan_workspace_bytes", n, plain);
    case 2: return device_detail::lab_workspace_bytes<scan_policy<B, 2>, device_detail::no_staging, T>("scankit::lab::scan_workspace_bytes", n, plain);
    case 4: return device_detail::lab_workspace_bytes<scan_policy<B, 4>, device_detail::no_staging, T>("scankit::lab::scan_workspace_bytes", n, plain);
    case 8: return device_detail::lab_workspace_bytes<scan_policy<B, 8>, device_detail::no_staging, T>("scankit::lab::scan_workspace_bytes", n, plain);
    default:
      return device_detail::lab_workspace_bytes<scan_policy<B, scan_tuning<T>::items_per_thread>,
                                                device_detail::no_staging, T>("scankit::lab::scan_workspace_bytes", n, plain);
  }
}

// Kernel facts for the lab: the tile kernel of the requested strategy and shape.
template <class T, int K, block_scan_algorithm Algorithm>
scan_kernel_info describe_shape(const scan_options& options) {
  constexpr int B = scan_tuning<T>::block_threads;
  using policy_t = lab_shape<T, K, Algorithm>;
  using device_detail::tile_prefix_source;
  const void* kernel = nullptr;
  switch (options.strategy == scan_strategy::automatic ? scan_strategy::decoupled_look_back : options.strategy) {
    case scan_strategy::chained:
      kernel = reinterpret_cast<const void*>(
          &device_detail::scan_tiles_kernel<policy_t, tile_prefix_source::chained, T, const T*, T*, plus_op>);
      break;
    case scan_strategy::decoupled_look_back:
      kernel = options.deterministic && !std::is_integral_v<T>
                   ? reinterpret_cast<const void*>(
                         &device_detail::scan_tiles_kernel<policy_t, tile_prefix_source::deterministic_look_back, T,
                                                           const T*, T*, plus_op>)
                   : reinterpret_cast<const void*>(
                         &device_detail::scan_tiles_kernel<policy_t, tile_prefix_source::decoupled_look_back, T,
                                                           const T*, T*, plus_op>);
      break;
    default:
      kernel = reinterpret_cast<const void*>(
          &device_detail::scan_tiles_kernel<policy_t, tile_prefix_source::independent, T, const T*, T*, plus_op>);
      break;
  }
  cudaFuncAttributes attributes{};
  SCANKIT_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  int blocks = 0;
  SCANKIT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, B, 0));
  int device = 0;
  SCANKIT_CUDA_CHECK(cudaGetDevice(&device));
  int max_threads = 0;
  SCANKIT_CUDA_CHECK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  using block_scan = device_detail::block_scan_t<Algorithm, T, B>;
  scan_kernel_info info;
  info.block_threads = B;
  info.items_per_thread = K;
  info.registers_per_thread = attributes.numRegs;
  info.static_shared_bytes = static_cast<int>(attributes.sharedSizeBytes);
  info.max_blocks_per_sm = blocks;
  info.occupancy = static_cast<double>(blocks * B) / max_threads;
  info.block_barriers = block_scan::barriers;
  info.block_scan_operations = block_scan::operations;
  return info;
}

template <class T, int K>
scan_kernel_info describe_algorithm(const scan_options& options) {
  switch (options.block_algorithm) {
    case block_scan_algorithm::kogge_stone_double_buffer:
      return describe_shape<T, K, block_scan_algorithm::kogge_stone_double_buffer>(options);
    case block_scan_algorithm::kogge_stone_read_sync_write:
      return describe_shape<T, K, block_scan_algorithm::kogge_stone_read_sync_write>(options);
    case block_scan_algorithm::brent_kung:
      return describe_shape<T, K, block_scan_algorithm::brent_kung>(options);
    default:
      return describe_shape<T, K, block_scan_algorithm::warp_of_warps>(options);
  }
}

template <class T>
scan_kernel_info describe_lab_scan(const scan_options& options) {
  switch (options.items_per_thread) {
    case 0:
    case scan_tuning<T>::items_per_thread: return describe_algorithm<T, scan_tuning<T>::items_per_thread>(options);
    case 1: return describe_algorithm<T, 1>(options);
    case 2: return describe_algorithm<T, 2>(options);
    case 4: return describe_algorithm<T, 4>(options);
    case 8: return describe_algorithm<T, 8>(options);
    default:
      throw error("scankit::describe_scan_kernel: options.items_per_thread = " +
                  std::to_string(options.items_per_thread) + " is not precompiled (0, 1, 2, 4, 8 and the tuned value)");
  }
}

}  // namespace scankit::precompiled

#define SCANKIT_DEFINE_LAB_SCAN(T)                                                                             \
  namespace scankit::lab {                                                                                     \
  void inclusive_scan(const T* in, T* out, std::int64_t n, scan_op op, cudaStream_t stream, workspace* ws,     \
                      const scan_options& options) {                                                           \
    precompiled::run_lab_scan<T>("scankit::lab::inclusive_scan", in, out, n, false, T{}, op, stream, ws, options);           \
  }                                                                                                            \
  void exclusive_scan(const T* in, T* out, std::int64_t n, T init, scan_op op, cudaStream_t stream,            \
                      workspace* ws, const scan_options& options) {                                            \
    precompiled::run_lab_scan<T>("scankit::lab::exclusive_scan", in, out, n, true, init, op, stream, ws, options);           \
  }                                                                                                            \
  std::size_t scan_workspace_bytes(const T*, std::int64_t n, const scan_options& options) {                    \
    return precompiled::lab_workspace_bytes<T>(n, options);                                                        \
  }                                                                                                            \
  }
