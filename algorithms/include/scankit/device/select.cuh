// Stream compaction, template API for nvcc users: keep the items a predicate, a flag array or a
// stencil selects, in input order (stable), in one pass over the input.
//
//   scankit::device::select_if(d_in, d_out, d_count, n, pred, stream, &ws);
//   scankit::device::select_flagged(d_in, d_flags, d_out, d_count, n, stream);       // flags[i] != 0
//   scankit::device::select_by_stencil(d_in, d_stencil, d_out, d_count, n, pred, stream);  // pred(stencil[i])
//   std::int64_t kept = scankit::device::select_if_count_host(d_in, d_out, n, pred, stream);  // synchronises
//
//   scankit::device::select_if(thrust::counting_iterator<int>(0), d_out, d_count, n, pred, stream);  // indices
//   scankit::device::select_flagged(d_in, thrust::make_transform_iterator(d_w, above), d_out, d_count, n);
//   scankit::device::select_if(d_in, thrust::make_discard_iterator(), d_count, n, pred);  // count only
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
//
// Iterators (scankit/device/iterators.cuh). in, flags, stencil: input iterators (raw and
// thrust::device_ptr pointers, thrust::device_vector iterators, counting and transform iterators,
// ...); the items are the input's value_type T. out: an output iterator that accepts T (an array,
// a transform_output_iterator, a discard_iterator, ...). What runs:
//   arrays of T (in, out)     what the pointer API runs: the staged kernel for select_if and unique,
//                             the register kernel with 16-byte vector loads otherwise; in place
//   another input iterator    the register kernel, which reads it item by item (thread t of a tile
//                             at `base` reads in[base + t*K + k]); a transform of an array reads
//                             the array through the transform
//   another output iterator   the register kernel, which writes out[i] = item item by item
// Only arrays are checked for null and overlap, and only arrays can be in place. Both strategies
// take iterators (the three-step one reads the input more than once, and so evaluates a
// transform more than once per item).
// A staged_compact shape needs arrays of T for in and out (a compile-time error otherwise).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "scankit/compact_options.hpp"
#include "scankit/device/compact/compact_dispatch.cuh"
#include "scankit/device/compact/compact_policy.cuh"
#include "scankit/device/iterators.cuh"

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

}  // namespace scankit::device

namespace scankit::device_detail {

// What the kernels get for an iterator (iterators.cuh): arrays as raw pointers (const for
// inputs), a transform of an array as a staged_input, anything else as it is.
template <class In>
using input_view_t = decltype(device_detail::input_view(std::declval<const In&>()));
template <class Out>
using output_view_t = decltype(device_detail::output_view(std::declval<const Out&>()));

// Whether a call reads an array of T and writes one: the pointer API's kernels, in place allowed.
template <class T, class In, class Out>
constexpr bool arrays_of = std::is_same_v<In, const T*> && std::is_same_v<Out, T*>;
template <class In, class Out>
constexpr bool arrays_of_one_type =
    std::is_pointer_v<In> && arrays_of<std::remove_const_t<std::remove_pointer_t<In>>, In, Out>;

template <class Policy, class = void>
constexpr bool is_staged_shape = device_detail::is_staged_compact_policy<Policy>;
template <class Policy>
constexpr bool is_staged_shape<Policy, std::void_t<typename Policy::template policy<4>>> = true;

// The register kernel's policy (`tuned`: the tuned one for the widest per-item array).
template <class Policy, std::size_t WidestBytes, int BufferedArrays = 1>
struct register_plan_of {
  static_assert(!is_staged_shape<Policy>,
                "a staged_compact shape serves select_if and unique on arrays of the item type (in and out); "
                "use compact_policy for iterators, partition_if and the stencil forms");
  using type = device_detail::resolved_compact_policy<Policy, WidestBytes, BufferedArrays>;
};

// select_if and unique: the staged kernel by default on arrays (compact_policy.cuh,
// resolved_selection_policy); the register kernel for other iterators.
template <class Policy, class T, class In = const T*, class Out = T*>
using select_if_plan =
    typename std::conditional_t<arrays_of<T, In, Out>,
                                device_detail::selection_policy_of<Policy, sizeof(T)>,
                                register_plan_of<Policy, sizeof(T)>>::type;

// partition_if: the register kernel (the staged one cannot move rejected items up the tile).
template <class Policy, class T>
using partition_plan = typename register_plan_of<Policy, sizeof(T)>::type;

template <class Policy, class T, class S>
using stencil_plan =  // the stencil tile is buffered in shared memory beside the items
    typename register_plan_of<Policy, (sizeof(T) > sizeof(S) ? sizeof(T) : sizeof(S)), 2>::type;

// Argument checks look at arrays only: an iterator that is not an array is never null and
// overlaps nothing the call could see.
template <class It>
scankit::detail::array_extent extent_of(const char* name, const It& it, std::int64_t n) {
  if constexpr (std::is_pointer_v<It>) {
    return scankit::detail::extent(name, it, n, sizeof(*it));
  } else {
    return {name, nullptr, 0};
  }
}

template <class It>
void check_array(const char* function, const char* name, const It& it, std::int64_t n) {
  if constexpr (std::is_pointer_v<It>) scankit::detail::check_pointer(function, name, it, n);
}

// out may be in itself (in place) when both are arrays of one type; otherwise they are disjoint.
template <class In, class Out>
void check_in_place_or_disjoint(const char* function, const In& in, const Out& out, std::int64_t n) {
  if constexpr (arrays_of_one_type<In, Out>) {
    scankit::detail::check_in_place_or_disjoint(function, extent_of("in", in, n), extent_of("out", out, n));
  } else {
    scankit::detail::check_disjoint(function, extent_of("in", in, n), extent_of("out", out, n));
  }
}

template <class In, class Out>
bool is_in_place(const In& in, const Out& out) {
  if constexpr (arrays_of_one_type<In, Out>) {
    return in == out;
  } else {
    return false;
  }
}

template <class P, class In, class Out>
void check_select_if(const char* function, const In& in, const Out& out, std::int64_t n,
                     const compact_options& options) {
  device_detail::check_compact_common<P>(function, n, options);
  check_array(function, "in", in, n);
  check_array(function, "out", out, n);
  check_in_place_or_disjoint(function, in, out, n);
}

template <class P, class In, class S, class Out>
void check_stencil(const char* function, const char* stencil_name, const In& in, const S& stencil, const Out& out,
                   std::int64_t n, const compact_options& options) {
  check_select_if<P>(function, in, out, n, options);
  check_array(function, stencil_name, stencil, n);
  scankit::detail::check_disjoint(function, extent_of(stencil_name, stencil, n), extent_of("out", out, n));
}

}  // namespace scankit::device_detail

namespace scankit::device {

// out[0 .. count) = the items with pred(item) true, in input order; *d_count = count.
template <class Policy = tuned, class In, class Out, class Pred>
void select_if(In in, Out out, std::int64_t* d_count, device_detail::item_count n, Pred pred,
               cudaStream_t stream = nullptr,
               workspace* ws = nullptr, const compact_options& options = {}) {
  const char* function = "scankit::select_if";
  using T = device_detail::iterator_item_t<In>;
  using InView = device_detail::input_view_t<In>;
  using OutView = device_detail::output_view_t<Out>;
  using P = device_detail::select_if_plan<Policy, T, InView, OutView>;
  const InView in_view = device_detail::input_view(in);
  const OutView out_view = device_detail::output_view(out);
  device_detail::check_select_if<P>(function, in_view, out_view, n, options);
  device_detail::check_count_target(function, d_count,
                                    {device_detail::extent_of("in", in_view, n),
                                     device_detail::extent_of("out", out_view, n)});
  device_detail::run_compaction<P>(function, device_detail::predicate_source_for<T, Pred, InView>{in_view, pred},
                                   device_detail::select_sink_for<T, OutView>{out_view, nullptr}, n, d_count,
                                   device_detail::is_in_place(in_view, out_view), stream, ws, options);
}

}  // namespace scankit::device

namespace scankit::device_detail {

// select_by_stencil and select_flagged: keeps in[i] where pred(stencil[i]).
template <class Policy, class Pred, class In, class Stencil, class Out>
void select_by_stencil_of(const char* function, const char* stencil_name, In in, Stencil stencil, Out out,
                          std::int64_t* d_count, item_count n, Pred pred, cudaStream_t stream, workspace* ws,
                          const compact_options& options) {
  using T = device_detail::iterator_item_t<In>;
  using S = device_detail::iterator_item_t<Stencil>;
  using InView = input_view_t<In>;
  using StencilView = input_view_t<Stencil>;
  using OutView = output_view_t<Out>;
  using P = stencil_plan<Policy, T, S>;
  const InView in_view = device_detail::input_view(in);
  const StencilView stencil_view = device_detail::input_view(stencil);
  const OutView out_view = device_detail::output_view(out);
  check_stencil<P>(function, stencil_name, in_view, stencil_view, out_view, n, options);
  device_detail::check_count_target(function, d_count,
                                    {extent_of("in", in_view, n), extent_of(stencil_name, stencil_view, n),
                                     extent_of("out", out_view, n)});
  device_detail::run_compaction<P>(
      function, device_detail::stencil_source_for<T, S, Pred, InView, StencilView>{in_view, stencil_view, pred},
      device_detail::select_sink_for<T, OutView>{out_view, nullptr}, n, d_count, is_in_place(in_view, out_view),
      stream, ws, options);
}

}  // namespace scankit::device_detail

namespace scankit::device {

// Keeps in[i] where pred(stencil[i]) is true.
template <class Policy = tuned, class In, class Stencil, class Out, class Pred>
void select_by_stencil(In in, Stencil stencil, Out out, std::int64_t* d_count, device_detail::item_count n, Pred pred,
                       cudaStream_t stream = nullptr, workspace* ws = nullptr, const compact_options& options = {}) {
  device_detail::select_by_stencil_of<Policy>("scankit::select_by_stencil", "stencil", in, stencil, out, d_count, n,
                                               pred, stream, ws, options);
}

// Keeps in[i] where flags[i] converts to true (any flag type: bool, uint8_t, int, ...).
template <class Policy = tuned, class In, class Flags, class Out>
void select_flagged(In in, Flags flags, Out out, std::int64_t* d_count, device_detail::item_count n,
                    cudaStream_t stream = nullptr, workspace* ws = nullptr, const compact_options& options = {}) {
  device_detail::select_by_stencil_of<Policy>("scankit::select_flagged", "flags", in, flags, out, d_count, n,
                                               flag_is_set{}, stream, ws, options);
}

// The same, returning the count to the host. These synchronise: they wait for `stream`.
template <class Policy = tuned, class In, class Out, class Pred>
std::int64_t select_if_count_host(In in, Out out, std::int64_t n, Pred pred, cudaStream_t stream = nullptr,
                                  workspace* ws = nullptr, const compact_options& options = {}) {
  using T = device_detail::iterator_item_t<In>;
  using InView = device_detail::input_view_t<In>;
  using OutView = device_detail::output_view_t<Out>;
  device_detail::check_select_if<device_detail::select_if_plan<Policy, T, InView, OutView>>(
      "scankit::select_if_count_host", device_detail::input_view(in), device_detail::output_view(out), n, options);
  return scankit::detail::count_to_host(stream, [&](std::int64_t* d_count) {
    select_if<Policy>(in, out, d_count, n, pred, stream, ws, options);
  });
}

template <class Policy = tuned, class In, class Stencil, class Out, class Pred>
std::int64_t select_by_stencil_count_host(In in, Stencil stencil, Out out, std::int64_t n, Pred pred,
                                          cudaStream_t stream = nullptr, workspace* ws = nullptr,
                                          const compact_options& options = {}) {
  using P = device_detail::stencil_plan<Policy, device_detail::iterator_item_t<In>,
                                         device_detail::iterator_item_t<Stencil>>;
  device_detail::check_stencil<P>("scankit::select_by_stencil_count_host", "stencil", device_detail::input_view(in),
                                   device_detail::input_view(stencil), device_detail::output_view(out), n, options);
  return scankit::detail::count_to_host(stream, [&](std::int64_t* d_count) {
    select_by_stencil<Policy>(in, stencil, out, d_count, n, pred, stream, ws, options);
  });
}

template <class Policy = tuned, class In, class Flags, class Out>
std::int64_t select_flagged_count_host(In in, Flags flags, Out out, std::int64_t n, cudaStream_t stream = nullptr,
                                       workspace* ws = nullptr, const compact_options& options = {}) {
  using P = device_detail::stencil_plan<Policy, device_detail::iterator_item_t<In>,
                                         device_detail::iterator_item_t<Flags>>;
  device_detail::check_stencil<P>("scankit::select_flagged_count_host", "flags", device_detail::input_view(in),
                                   device_detail::input_view(flags), device_detail::output_view(out), n, options);
  return scankit::detail::count_to_host(stream, [&](std::int64_t* d_count) {
    select_flagged<Policy>(in, flags, out, d_count, n, stream, ws, options);
  });
}

// Bytes of workspace a compaction of n items of `T` needs (0: none), for callers who allocate it
// themselves (scankit::workspace(ptr, bytes)). `Extra` is the stencil, flag or value type if the
// call has one; the answer covers in-place calls, and calls with iterators (the register kernel's
// tile, which `tuned` answers for too).
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
