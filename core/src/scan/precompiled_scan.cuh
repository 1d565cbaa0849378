// Shared by the per-type translation units of the precompiled scan overloads: maps the run-time
// operator onto template instantiations of the production scan (scan_dispatch.cuh): the staged
// kernel, the register kernel of the tuned shape, and the one-tile launch, per operator (and the
// deterministic look-back for floating-point values). Options that ask for a textbook strategy,
// a block algorithm or a coarsening factor are the lab's (scankit/lab/scan_lab.hpp).
#pragma once

#include <string>

#include "scankit/device/dispatch/offsets_sum.cuh"
#include "scankit/device/scan.cuh"
#include "scankit/device/util/device_count.cuh"
#include "scankit/scan.hpp"

namespace scankit::precompiled {

using device_detail::scan_tuning;

template <class T>
using production_policy = device_detail::tuned_scan_policy<T>;
template <class T>
using production_staged = typename device_detail::staged_scan_tuning<T>::policy;

inline void check_production_shape(const char* function, const scan_options& options) {
  if (options.items_per_thread != 0 || options.block_algorithm != block_scan_algorithm::automatic) {
    throw error(std::string(function) +
                ": options.items_per_thread and options.block_algorithm choose the scan lab's shapes: call "
                "scankit::lab:: (library scankit::lab)");
  }
}

// Calls fn(op) with the functor of a built-in operator.
template <class T, class Fn>
void with_operator(const char* function, scan_op op, Fn&& fn) {
  if (!op_supported<T>(op)) {
    throw error(std::string(function) + ": operator " + to_string(op) + " needs an integral value type");
  }
  switch (op) {
    case scan_op::plus: return fn(plus_op{});
    case scan_op::maximum: return fn(maximum_op{});
    case scan_op::minimum: return fn(minimum_op{});
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case scan_op::bit_and: return fn(bit_and_op{});
      case scan_op::bit_or: return fn(bit_or_op{});
      default: return fn(bit_xor_op{});
    }
  }
}

template <class T>
void run(const char* function, const T* in, T* out, std::int64_t n, bool exclusive, const T& init, scan_op op,
         cudaStream_t stream, workspace* ws, const scan_options& options, const std::int64_t* n_device = nullptr) {
  device_detail::check_production_options(function, options);
  check_production_shape(function, options);
  with_operator<T>(function, op, [&](auto functor) {
    device_detail::dispatch_scan<production_policy<T>, T, decltype(functor), production_staged<T>>(
        function, in, out, n, exclusive, init, functor, stream, ws, options, n_device);
  });
}

template <class T>
void run(const char* function, const T* in, T* out, device_n n, bool exclusive, const T& init, scan_op op,
         cudaStream_t stream, workspace* ws, const scan_options& options) {
  detail::check_device_n(function, n);
  run<T>(function, in, out, n.bound, exclusive, init, op, stream, ws, options, n.count);
}

template <class T>
std::size_t workspace_bytes(std::int64_t n, const scan_options& options) {
  check_production_shape("scankit::scan_workspace_bytes", options);
  return device_detail::scan_workspace_bytes_for<production_policy<T>, T, plus_op, production_staged<T>>(
      "scankit::scan_workspace_bytes", n, options);
}

}  // namespace scankit::precompiled

namespace scankit::device_detail {

// The offsets sum (scankit/device/dispatch/offsets_sum.cuh): the same instantiation as the
// precompiled exclusive sum of T, so it adds no kernel.
template <class T>
void exclusive_offsets_sum(T* offsets, long long n, cudaStream_t stream, workspace* ws) {
  dispatch_scan<precompiled::production_policy<T>, T, plus_op, precompiled::production_staged<T>>(
      "scankit offsets sum", static_cast<const T*>(offsets), offsets, n, true, T{0}, plus_op{}, stream, ws,
      scan_options{});
}

template <class T>
std::size_t exclusive_offsets_sum_workspace_bytes(long long n) {
  return scan_workspace_bytes_for<precompiled::production_policy<T>, T, plus_op, precompiled::production_staged<T>>(
      "scankit offsets sum", n, scan_options{});
}

}  // namespace scankit::device_detail

#define SCANKIT_DEFINE_OFFSETS_SUM(T)                                                                          \
  template void scankit::device_detail::exclusive_offsets_sum<T>(T*, long long, cudaStream_t,                  \
                                                                  scankit::workspace*);                        \
  template std::size_t scankit::device_detail::exclusive_offsets_sum_workspace_bytes<T>(long long);

#define SCANKIT_DEFINE_PRECOMPILED_SCAN(T)                                                                     \
  namespace scankit {                                                                                          \
  void inclusive_scan(const T* in, T* out, std::int64_t n, scan_op op, cudaStream_t stream, workspace* ws,     \
                      const scan_options& options) {                                                           \
    precompiled::run<T>("scankit::inclusive_scan", in, out, n, false, T{}, op, stream, ws, options);           \
  }                                                                                                            \
  void exclusive_scan(const T* in, T* out, std::int64_t n, T init, scan_op op, cudaStream_t stream,            \
                      workspace* ws, const scan_options& options) {                                            \
    precompiled::run<T>("scankit::exclusive_scan", in, out, n, true, init, op, stream, ws, options);           \
  }                                                                                                            \
  std::size_t scan_workspace_bytes(const T*, std::int64_t n, const scan_options& options) {                    \
    return precompiled::workspace_bytes<T>(n, options);                                                        \
  }                                                                                                            \
  void inclusive_scan(const T* in, T* out, device_n n, scan_op op, cudaStream_t stream, workspace* ws,         \
                      const scan_options& options) {                                                           \
    precompiled::run<T>("scankit::inclusive_scan", in, out, n, false, T{}, op, stream, ws, options);           \
  }                                                                                                            \
  void exclusive_scan(const T* in, T* out, device_n n, T init, scan_op op, cudaStream_t stream,                \
                      workspace* ws, const scan_options& options) {                                            \
    precompiled::run<T>("scankit::exclusive_scan", in, out, n, true, init, op, stream, ws, options);           \
  }                                                                                                            \
  }
