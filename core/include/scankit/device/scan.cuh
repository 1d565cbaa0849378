// The template scan API for nvcc users: any trivially copyable accumulator type, any associative
// operator (a functor with `T operator()(const T&, const T&) const` callable on the device; never
// assumed commutative), input and output iterators, and an optional compile-time shape.
//
//   scankit::device::inclusive_scan(d_in, d_out, n, op, stream, &ws, options);
//   scankit::device::exclusive_scan(d_in, d_out, n, init, op, stream);
//   scankit::device::inclusive_scan(thrust::make_transform_iterator(d_w, f), d_out, n, op, stream);
//   scankit::device::inclusive_scan<scankit::device::policy<128, 8, scankit::block_scan_algorithm::brent_kung>>(...);
//
// Iterators (iterators.cuh): contiguous arrays and transforms of them keep the staged kernel
// (tile in shared memory through the bulk copy, sm_90 and later); other iterators run the
// register kernel. The accumulator type is what `op` returns (for exclusive_scan: on (init, input
// value)), as in CUB; with scankit's built-in operators, which take two values of one type, an
// exclusive scan accumulates in the type of `init`. Name it explicitly as the second template
// argument if needed. Results are converted to the output's value type on store.
//
// It runs one pass with the decoupled look-back (options.deterministic: the look-back with a fixed
// association, for floating-point sums that give the same bits on every run). The textbook
// strategies are in scankit/device/scan_lab.cuh. The shape: the tuned one (`tuned`), a staged
// shape `staged<BlockThreads, ChunksPerThread>`, or a register shape `policy<...>` (which always
// runs the register kernel); options that ask for another shape are rejected with scankit::error.
#pragma once

#include <cstddef>
#include <cstdint>

#include "scankit/device/dispatch/scan_dispatch.cuh"
#include "scankit/device/iterators.cuh"
#include "scankit/device/util/device_count.cuh"
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

}  // namespace scankit::device

namespace scankit::device_detail {
template <class Given, class Deduced>
using pick_t = std::conditional_t<std::is_void_v<Given>, Deduced, Given>;
template <class In, class Op>
using inclusive_accumulator_t =
    device_detail::accumulator_t<Op, device_detail::iterator_item_t<In>, device_detail::iterator_item_t<In>>;
template <class In, class Init, class Op>
using exclusive_accumulator_t = device_detail::accumulator_t<Op, Init, device_detail::iterator_item_t<In>>;
}  // namespace scankit::device_detail

namespace scankit::device {

template <class Policy = tuned, class AccT = void, class In, class Out, class Op>
void inclusive_scan(In in, Out out, std::int64_t n, Op op, cudaStream_t stream = nullptr, workspace* ws = nullptr,
                    const scan_options& options = {}) {
  using T = device_detail::pick_t<AccT, device_detail::inclusive_accumulator_t<In, Op>>;
  device_detail::dispatch_scan<resolved_policy<Policy, T>, T, Op, resolved_staged_policy<Policy, T>>(
      "scankit::inclusive_scan", device_detail::input_view(in), device_detail::output_view(out), n, false, T{}, op,
      stream, ws, options);
}

template <class Policy = tuned, class AccT = void, class In, class Out, class Init, class Op>
void exclusive_scan(In in, Out out, std::int64_t n, Init init, Op op, cudaStream_t stream = nullptr,
                    workspace* ws = nullptr, const scan_options& options = {}) {
  using T = device_detail::pick_t<AccT, device_detail::exclusive_accumulator_t<In, Init, Op>>;
  device_detail::dispatch_scan<resolved_policy<Policy, T>, T, Op, resolved_staged_policy<Policy, T>>(
      "scankit::exclusive_scan", device_detail::input_view(in), device_detail::output_view(out), n, true,
      static_cast<T>(init), op, stream, ws, options);
}

// The same with the count in device memory (scankit::device_n: read when the scan runs, clamped to
// [0, bound]; the arrays hold `bound` items).
template <class Policy = tuned, class AccT = void, class In, class Out, class Op>
void inclusive_scan(In in, Out out, device_n n, Op op, cudaStream_t stream = nullptr, workspace* ws = nullptr,
                    const scan_options& options = {}) {
  using T = device_detail::pick_t<AccT, device_detail::inclusive_accumulator_t<In, Op>>;
  detail::check_device_n("scankit::inclusive_scan", n);
  device_detail::dispatch_scan<resolved_policy<Policy, T>, T, Op, resolved_staged_policy<Policy, T>>(
      "scankit::inclusive_scan", device_detail::input_view(in), device_detail::output_view(out), n.bound, false, T{},
      op, stream, ws, options, n.count);
}

template <class Policy = tuned, class AccT = void, class In, class Out, class Init, class Op>
void exclusive_scan(In in, Out out, device_n n, Init init, Op op, cudaStream_t stream = nullptr,
                    workspace* ws = nullptr, const scan_options& options = {}) {
  using T = device_detail::pick_t<AccT, device_detail::exclusive_accumulator_t<In, Init, Op>>;
  detail::check_device_n("scankit::exclusive_scan", n);
  device_detail::dispatch_scan<resolved_policy<Policy, T>, T, Op, resolved_staged_policy<Policy, T>>(
      "scankit::exclusive_scan", device_detail::input_view(in), device_detail::output_view(out), n.bound, true,
      static_cast<T>(init), op, stream, ws, options, n.count);
}

// Bytes of workspace a scan of n values of accumulator type T needs (0 when it needs none); the
// same for every iterator.
template <class T, class Op, class Policy = tuned>
std::size_t scan_workspace_bytes(std::int64_t n, const scan_options& options = {}) {
  return device_detail::scan_workspace_bytes_for<resolved_policy<Policy, T>, T, Op, resolved_staged_policy<Policy, T>>(
      "scankit::scan_workspace_bytes", n, options);
}

}  // namespace scankit::device
