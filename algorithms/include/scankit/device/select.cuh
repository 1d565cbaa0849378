// Stream compaction, template API for nvcc users: keep the items a predicate, a flag array or a
// stencil selects, in input order (stable), in one pass over the input.
//
//   scankit::device::select_if(d_in, d_out, d_count, n, pred, stream, &ws);
//   scankit::device::select_flagged(d_in, d_flags, d_out, d_count, n, stream);       // flags[i] != 0
//   scankit::device::select_by_stencil(d_in, d_stencil, d_out, d_count, n, pred, stream);  // pred(stencil[i])
//   std::int64_t kept = scankit::device::select_if_count_host(d_in, d_out, n, pred, stream);  // synchronises
//
// Items: any trivially copyable type (1, 2, 4, 8, 16 bytes and beyond). Predicates: functors with
// `bool operator()(const T&) const` callable on the device (extended lambdas work too).
// d_count (device memory) receives the number of selected items; out must hold that many (n at
// most). Work is enqueued on `stream`; nothing synchronises except the *_count_host calls, which
// copy the count to the host and wait for the stream. out == in (in place) is allowed; any other
// overlap between the arrays (and d_count) is rejected. Bad arguments throw scankit::error before
// anything is enqueued. `Policy` picks the tile shape (default: tuned per item size), e.g.
// scankit::device::compact_policy<128, 8>. options.strategy picks the single pass (default) or
// the textbook three-step version.
#pragma once

#include <cstddef>
#include <cstdint>

#include "scankit/compact_options.hpp"
#include "scankit/device/compact/compact_dispatch.cuh"
#include "scankit/device/compact/compact_policy.cuh"

namespace scankit::device {

// PrefetchBytesAhead: how far ahead (in bytes of the widest array) the L2 prefetch runs; 0 for none.
// LookBackWarp: a warp beside the BlockThreads threads that looks back while they work.
template <int BlockThreads, int ItemsPerThread, int PrefetchBytesAhead = 4 << 20, bool LookBackWarp = false>
using compact_policy =
    device_detail::compact_policy<BlockThreads, ItemsPerThread, 32, 1024, PrefetchBytesAhead, LookBackWarp>;

// The staged kernel's shape for select_if and unique (compact_staged_kernel.cuh): BlockThreads
// threads (+ a look-back warp), each owning one 16-byte chunk of each of ChunksPerThread stripes;
// MinBlocksPerSm for __launch_bounds__. The item size comes from the call.
template <int BlockThreads, int ChunksPerThread, int MinBlocksPerSm = 1, bool LookBackWarp = false,
          int PrefetchBytesAhead = 4 << 20>
using staged_compact =
    device_detail::staged_compact_shape<BlockThreads, ChunksPerThread, MinBlocksPerSm, LookBackWarp, PrefetchBytesAhead>;

namespace compact_detail {

// select_if and unique: the staged kernel by default (compact_policy.cuh, resolved_selection_policy).
template <class Policy, class T, class Pred>
using select_if_plan = device_detail::resolved_selection_policy<Policy, sizeof(T)>;

// partition_if: the register kernel (the staged one cannot move rejected items up the tile).
template <class Policy, class T, class Pred>
using partition_plan = device_detail::resolved_compact_policy<Policy, sizeof(T)>;

template <class Policy, class T, class S>
using stencil_plan =  // the stencil tile is buffered in shared memory beside the items
    device_detail::resolved_compact_policy<Policy, (sizeof(T) > sizeof(S) ? sizeof(T) : sizeof(S)), 2>;

template <class P, class T>
void check_select_if(const char* function, const T* in, const T* out, std::int64_t n, const compact_options& options) {
  device_detail::check_compact_common<P>(function, n, options);
  detail::check_pointer(function, "in", in, n);
  detail::check_pointer(function, "out", out, n);
  detail::check_in_place_or_disjoint(function, detail::extent("in", in, n, sizeof(T)),
                                     detail::extent("out", out, n, sizeof(T)));
}

template <class P, class T, class S>
void check_stencil(const char* function, const char* stencil_name, const T* in, const S* stencil, const T* out,
                   std::int64_t n, const compact_options& options) {
  check_select_if<P>(function, in, out, n, options);
  detail::check_pointer(function, stencil_name, stencil, n);
  detail::check_disjoint(function, detail::extent(stencil_name, stencil, n, sizeof(S)),
                         detail::extent("out", out, n, sizeof(T)));
}

}  // namespace compact_detail

// out[0 .. count) = the items with pred(item) true, in input order; *d_count = count.
template <class Policy = tuned, class T, class Pred>
void select_if(const T* in, T* out, std::int64_t* d_count, std::int64_t n, Pred pred, cudaStream_t stream = nullptr,
               workspace* ws = nullptr, const compact_options& options = {}) {
  const char* function = "scankit::select_if";
  using P = compact_detail::select_if_plan<Policy, T, Pred>;
  compact_detail::check_select_if<P>(function, in, out, n, options);
  device_detail::check_count_target(function, d_count,
                                    {detail::extent("in", in, n, sizeof(T)), detail::extent("out", out, n, sizeof(T))});
  device_detail::run_compaction<P>(device_detail::predicate_source<T, Pred>{in, pred},
                                   device_detail::select_sink<T>{out, nullptr}, n, d_count, in == out, stream, ws,
                                   options);
}

// Keeps in[i] where pred(stencil[i]) is true.
template <class Policy = tuned, class T, class S, class Pred>
void select_by_stencil(const T* in, const S* stencil, T* out, std::int64_t* d_count, std::int64_t n, Pred pred,
                       cudaStream_t stream = nullptr, workspace* ws = nullptr, const compact_options& options = {}) {
  const char* function = "scankit::select_by_stencil";
  using P = compact_detail::stencil_plan<Policy, T, S>;
  compact_detail::check_stencil<P>(function, "stencil", in, stencil, out, n, options);
  device_detail::check_count_target(function, d_count,
                                    {detail::extent("in", in, n, sizeof(T)), detail::extent("stencil", stencil, n, sizeof(S)),
                                     detail::extent("out", out, n, sizeof(T))});
  device_detail::run_compaction<P>(device_detail::stencil_source<T, S, Pred>{in, stencil, pred},
                                   device_detail::select_sink<T>{out, nullptr}, n, d_count, in == out, stream, ws,
                                   options);
}

// Keeps in[i] where flags[i] converts to true (any flag type: bool, uint8_t, int, ...).
template <class Policy = tuned, class T, class F>
void select_flagged(const T* in, const F* flags, T* out, std::int64_t* d_count, std::int64_t n,
                    cudaStream_t stream = nullptr, workspace* ws = nullptr, const compact_options& options = {}) {
  const char* function = "scankit::select_flagged";
  using P = compact_detail::stencil_plan<Policy, T, F>;
  compact_detail::check_stencil<P>(function, "flags", in, flags, out, n, options);
  device_detail::check_count_target(function, d_count,
                                    {detail::extent("in", in, n, sizeof(T)), detail::extent("flags", flags, n, sizeof(F)),
                                     detail::extent("out", out, n, sizeof(T))});
  device_detail::run_compaction<P>(device_detail::stencil_source<T, F, flag_is_set>{in, flags, flag_is_set{}},
                                   device_detail::select_sink<T>{out, nullptr}, n, d_count, in == out, stream, ws,
                                   options);
}

// The same, returning the count to the host. These synchronise: they wait for `stream`.
template <class Policy = tuned, class T, class Pred>
std::int64_t select_if_count_host(const T* in, T* out, std::int64_t n, Pred pred, cudaStream_t stream = nullptr,
                                  workspace* ws = nullptr, const compact_options& options = {}) {
  compact_detail::check_select_if<compact_detail::select_if_plan<Policy, T, Pred>>("scankit::select_if_count_host", in,
                                                                                   out, n, options);
  return detail::count_to_host(stream, [&](std::int64_t* d_count) {
    select_if<Policy>(in, out, d_count, n, pred, stream, ws, options);
  });
}

template <class Policy = tuned, class T, class S, class Pred>
std::int64_t select_by_stencil_count_host(const T* in, const S* stencil, T* out, std::int64_t n, Pred pred,
                                          cudaStream_t stream = nullptr, workspace* ws = nullptr,
                                          const compact_options& options = {}) {
  compact_detail::check_stencil<compact_detail::stencil_plan<Policy, T, S>>("scankit::select_by_stencil_count_host",
                                                                            "stencil", in, stencil, out, n, options);
  return detail::count_to_host(stream, [&](std::int64_t* d_count) {
    select_by_stencil<Policy>(in, stencil, out, d_count, n, pred, stream, ws, options);
  });
}

template <class Policy = tuned, class T, class F>
std::int64_t select_flagged_count_host(const T* in, const F* flags, T* out, std::int64_t n,
                                       cudaStream_t stream = nullptr, workspace* ws = nullptr,
                                       const compact_options& options = {}) {
  compact_detail::check_stencil<compact_detail::stencil_plan<Policy, T, F>>("scankit::select_flagged_count_host",
                                                                            "flags", in, flags, out, n, options);
  return detail::count_to_host(stream, [&](std::int64_t* d_count) {
    select_flagged<Policy>(in, flags, out, d_count, n, stream, ws, options);
  });
}

// Bytes of workspace a compaction of n items of `T` needs (0: none), for callers who allocate it
// themselves (scankit::workspace(ptr, bytes)). `Extra` is the stencil, flag or value type if the
// call has one; the answer covers in-place calls.
template <class T, class Extra = device_detail::no_values, class Policy = tuned>
std::size_t compact_workspace_bytes(std::int64_t n, const compact_options& options = {}) {
  constexpr std::size_t extra = std::is_same_v<Extra, device_detail::no_values> ? 0 : sizeof(Extra);
  constexpr std::size_t widest = sizeof(T) > extra ? sizeof(T) : extra;
  // With a second array the tuned tile may be halved (two buffered arrays): answer for that one,
  // which has the most tiles.
  using P = device_detail::resolved_compact_policy<Policy, widest, extra == 0 ? 1 : 2>;
  if constexpr (extra == 0) {
    // `tuned` differs between select_if/unique (staged) and partition_if (register kernel): the
    // larger of the two. Any other policy serves them all alike.
    using source = device_detail::predicate_source<T, flag_is_set>;
    using selection = device_detail::resolved_selection_policy<Policy, widest>;
    const std::size_t selecting = device_detail::compact_workspace_bytes_for<selection, source>(n, options, true);
    if constexpr (std::is_same_v<Policy, tuned>) {
      const std::size_t partitioning = device_detail::compact_workspace_bytes_for<P, source>(n, options, true);
      return selecting > partitioning ? selecting : partitioning;
    } else {
      return selecting;
    }
  } else {
    return device_detail::compact_workspace_bytes_for<P, device_detail::unique_source<T, equal_to, Extra>>(n, options,
                                                                                                          true);
  }
}

}  // namespace scankit::device
