// The template scan API for nvcc users: any trivially copyable value type, any associative
// operator (a functor with `T operator()(const T&, const T&) const` callable on the device;
// never assumed commutative), and an optional compile-time shape.
//
//   scankit::device::inclusive_scan(d_in, d_out, n, op, stream, &ws, options);
//   scankit::device::exclusive_scan(d_in, d_out, n, init, op, stream);
//   scankit::device::inclusive_scan<scankit::device::policy<128, 8, scankit::block_scan_algorithm::brent_kung>>(...);
//
// The strategy is chosen at run time by options.strategy; the block algorithm and coarsening
// come from the policy (the default one is tuned per value size), and options that ask for
// another shape are rejected with scankit::error.
//
// With the default (`tuned`) policy, the look-back strategies run the staged kernel (tile in
// shared memory through the bulk-copy engine) for value sizes 1, 2, 4, 8 and 16 bytes on
// 16-byte-aligned arrays; `staged<BlockThreads, ChunksPerThread>` picks its shape. An explicit
// `policy<...>` always runs the register kernel of that shape.
#pragma once

#include <cstddef>
#include <cstdint>

#include "scankit/device/device/scan_dispatch.cuh"
#include "scankit/operators.hpp"

namespace scankit::device {

// The tuned shape for the value type.
struct tuned {};

template <int BlockThreads, int ItemsPerThread, block_scan_algorithm Algorithm = block_scan_algorithm::warp_of_warps>
using policy = device_detail::scan_policy<BlockThreads, ItemsPerThread, Algorithm>;

// The staged kernel's shape; it prefetches into L2 as far ahead as the tuned shape does (4 MiB).
// LookBackWarp adds a warp that looks back while the BlockThreads threads scan the tile.
template <int BlockThreads, int ChunksPerThread, int MinBlocksPerSm = 1, int LookBackTilesPerLane = 1,
          bool LookBackWarp = false>
using staged = device_detail::prefetching_staged_policy<BlockThreads, ChunksPerThread, MinBlocksPerSm, LookBackWarp,
                                                        LookBackTilesPerLane>;

template <class Policy>
constexpr bool is_staged_policy = false;
template <int B, int V, int M, int L, unsigned F, unsigned X, int A, bool W, int G>
constexpr bool is_staged_policy<device_detail::staged_scan_policy<B, V, M, L, F, X, A, W, G>> = true;

// The register-kernel policy (also used by the multi-launch strategies and small inputs).
template <class Policy, class T>
using resolved_policy = std::conditional_t<std::is_same_v<Policy, tuned> || is_staged_policy<Policy>,
                                           device_detail::tuned_scan_policy<T>, Policy>;

// The staged-kernel policy, or no_staging.
template <class Policy, class T>
using resolved_staged_policy = std::conditional_t<
    is_staged_policy<Policy>, Policy,
    std::conditional_t<std::is_same_v<Policy, tuned> && device_detail::stageable<T>,
                       typename device_detail::staged_scan_tuning<T>::policy, device_detail::no_staging>>;

template <class Policy = tuned, class T, class Op>
void inclusive_scan(const T* in, T* out, std::int64_t n, Op op, cudaStream_t stream = nullptr, workspace* ws = nullptr,
                    const scan_options& options = {}) {
  device_detail::dispatch_scan<resolved_policy<Policy, T>, T, Op, resolved_staged_policy<Policy, T>>(
      "scankit::inclusive_scan", in, out, n, false, T{}, op, stream,
                                                           ws, options);
}

template <class Policy = tuned, class T, class Op>
void exclusive_scan(const T* in, T* out, std::int64_t n, T init, Op op, cudaStream_t stream = nullptr,
                    workspace* ws = nullptr, const scan_options& options = {}) {
  device_detail::dispatch_scan<resolved_policy<Policy, T>, T, Op, resolved_staged_policy<Policy, T>>(
      "scankit::exclusive_scan", in, out, n, true, init, op, stream,
                                                           ws, options);
}

// Bytes of workspace a scan of n items needs (0 when it needs none).
template <class T, class Op, class Policy = tuned>
std::size_t scan_workspace_bytes(std::int64_t n, const scan_options& options = {}) {
  return device_detail::scan_workspace_bytes_for<resolved_policy<Policy, T>, T, Op, resolved_staged_policy<Policy, T>>(
      "scankit::scan_workspace_bytes", n, options);
}

}  // namespace scankit::device
