// Radix sort, the template API (nvcc): any key type with a bit-key, any trivially copyable value
// of 1 to 16 bytes, any digit-pass shape. The precompiled overloads for the standard types are in
// scankit/sort.hpp (callable from g++).
//
//   sort_keys(keys_in, keys_out, n)                       out of place: keys_in is only read
//   sort_keys(double_buffer<Key>& keys, n)                ping-pongs between the two buffers;
//                                                         temporary storage O(tiles), not O(n)
//   sort_pairs(keys_in, keys_out, values_in, values_out, n), and its double-buffer form
//   argsort(keys_in, keys_out, indices_out, n)            the permutation that sorts the keys
//                                                         (keys_out may be null: keys not wanted)
//
// Stable LSD radix sort: equal keys (equal in the bits sorted by) keep their input order, in both
// directions. The order is that of the keys' ordered bits (scankit/sort_key_order.hpp) restricted
// to [options.begin_bit, options.end_bit); a key type without a default_bit_key passes its own
// bit-key functor (the last argument). 64-bit counts (or a scankit::device_n, read when the sort runs:
// onesweep passes only); work is enqueued on `stream` without
// synchronising; bad arguments throw scankit::error before anything is enqueued; with ws ==
// nullptr temporary storage is taken and returned stream-ordered.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "scankit/detail/nvtx_range.hpp"
#include "scankit/detail/sort_arguments.hpp"
#include "scankit/device/sort/counting_sort.cuh"
#include "scankit/device/sort/radix_sort_dispatch.cuh"
#include "scankit/double_buffer.hpp"
#include "scankit/sort_key_order.hpp"
#include "scankit/sort_options.hpp"
#include "scankit/workspace.hpp"

namespace scankit::device_detail {
template <class Value>
constexpr std::size_t sort_value_bytes = sizeof(Value);
template <>
inline constexpr std::size_t sort_value_bytes<void> = 0;
}  // namespace scankit::device_detail

namespace scankit::device {

// The tuned pass shape for these key and value types (Value = void: keys only).
template <class Key, class Value = void>
using tuned_sort_policy = typename device_detail::radix_sort_tuning<sizeof(Key), device_detail::sort_value_bytes<Value>>::pass;

// A pass shape of one's own: BlockThreads x ItemsPerThread keys per tile, RadixBits per pass.
template <int BlockThreads, int ItemsPerThread, int RadixBits = 8>
using sort_policy = device_detail::radix_pass_policy<BlockThreads, ItemsPerThread, RadixBits>;

}  // namespace scankit::device

namespace scankit::device_detail {

// The same call, sorting by another bit-key.
template <class Other, class Policy, class Key, class Value, class BitKey>
device_detail::radix_sort_call<Policy, Key, Value, Other> with_bit_key(
    const device_detail::radix_sort_call<Policy, Key, Value, BitKey>& call) {
  return {call.keys_in,        call.keys_out,         call.values_in,     call.values_out,
          call.keys_alternate, call.values_alternate, call.double_buffered};
}

template <class Key, class BitKey>
constexpr int key_bits = 8 * static_cast<int>(sizeof(bit_key_result_t<BitKey, Key>));

template <class Key, class Value, class BitKey>
void check_types() {
  static_assert(std::is_trivially_copyable_v<Key>, "keys must be trivially copyable");
  if constexpr (!std::is_same_v<Value, device_detail::radix_no_values>) {
    static_assert(std::is_trivially_copyable_v<Value> && sizeof(Value) <= 16,
                  "values must be trivially copyable, 1 to 16 bytes");
  }
  using bits = bit_key_result_t<BitKey, Key>;
  static_assert(std::is_integral_v<bits> && std::is_unsigned_v<bits> && sizeof(bits) <= 8,
                "the bit-key must return an unsigned integer of at most 64 bits");
}

// Whether the call is a counting sort (counting_sort.cuh): keys only, out of place, 8- or 16-bit
// keys in a one-to-one order over every bit, enough of them, and the automatic strategy (an
// explicit strategy always runs the radix sort).
template <class Key, class Value, class BitKey>
bool counting_sort_applies(bool double_buffered, bool keys_wanted, std::int64_t n, int begin_bit, int end_bit,
                           const sort_options& options) {
  if constexpr (!std::is_same_v<Value, radix_no_values> || sizeof(Key) > 2) {
    return false;
  } else {
    if (double_buffered || !keys_wanted || options.strategy != sort_strategy::automatic ||
        n < counting_sort_min_keys || begin_bit != 0 || end_bit != 8 * static_cast<int>(sizeof(Key))) {
      return false;
    }
    if constexpr (std::is_same_v<BitKey, default_bit_key<Key>> && scankit::detail::is_sort_float_v<Key>) {
      return options.floats == float_order::raw_bits;
    } else {
      return counting_sort_key_v<Key, BitKey>;
    }
  }
}

template <class Key, class Value, class BitKey>
void run_counting_sort_call(const Key* keys_in, Key* keys_out, std::int64_t n, bool descending, const BitKey& bit_key,
                            cudaStream_t stream, workspace* ws) {
  if constexpr (std::is_same_v<Value, radix_no_values> && sizeof(Key) <= 2) {
    const detail::workspace_lease lease(ws, 0, counting_sort_scratch_bytes<Key>(), stream);
    int device = 0;
    SCANKIT_CUDA_CHECK(cudaGetDevice(&device));
    if constexpr (std::is_same_v<BitKey, default_bit_key<Key>> && scankit::detail::is_sort_float_v<Key>) {
      run_counting_sort(keys_in, keys_out, n, descending, float_bit_key<Key, float_order::raw_bits>{},
                        lease.view().scratch, device, stream);
    } else if constexpr (counting_sort_key_v<Key, BitKey>) {
      run_counting_sort(keys_in, keys_out, n, descending, bit_key, lease.view().scratch, device, stream);
    }
  }
}

// Returns the number of digit passes (a double-buffered caller's selector flips that often).
// A count in device memory (n.device) takes the radix sort with onesweep passes: the counting sort
// and the reduce-then-scan strategy size their launches by the count on the host.
template <class Policy, class Key, class Value, class BitKey>
int run_sort_call(const char* function, const device_detail::radix_sort_call<Policy, Key, Value, BitKey>& call,
                  item_count n, cudaStream_t stream, workspace* ws, const sort_options& options,
                  const BitKey& bit_key) {
  const ::scankit::detail::nvtx_range nvtx(function);
  check_types<Key, Value, BitKey>();
  int begin_bit = 0, end_bit = 0;
  detail::resolve_bit_range(function, options, key_bits<Key, BitKey>, begin_bit, end_bit);
  const bool descending = options.order == sort_order::descending;
  if (n.device != nullptr && options.strategy == sort_strategy::reduce_then_scan) {
    throw error(std::string(function) + ": sort_strategy::reduce_then_scan does not take a device_n count (its scan "
                                        "is sized on the host); use automatic or onesweep");
  }
  if (n.device == nullptr &&
      counting_sort_applies<Key, Value, BitKey>(call.double_buffered, call.keys_out != nullptr, n, begin_bit, end_bit,
                                                options)) {
    run_counting_sort_call<Key, Value>(call.keys_in, call.keys_out, n, descending, bit_key, stream, ws);
    return 1;  // one write of the keys (never double-buffered)
  }
  const bool reduce_then_scan = options.strategy == sort_strategy::reduce_then_scan;
  if constexpr (std::is_same_v<BitKey, default_bit_key<Key>> && scankit::detail::is_sort_float_v<Key>) {
    // Floating-point keys sort with the order as a type: each order gets kernels without a
    // per-key test of it.
    const auto sort_by = [&](auto fixed_order) {
      device_detail::run_radix_sort(with_bit_key<decltype(fixed_order)>(call), n, begin_bit, end_bit, descending,
                                    reduce_then_scan, fixed_order, stream, ws);
    };
    if (options.floats == float_order::raw_bits) {
      sort_by(float_bit_key<Key, float_order::raw_bits>{});
    } else {
      sort_by(float_bit_key<Key, float_order::total>{});
    }
  } else {
    device_detail::run_radix_sort(call, n, begin_bit, end_bit, descending, reduce_then_scan, bit_key, stream, ws);
  }
  return n > 0 ? device_detail::radix_passes{begin_bit, end_bit, Policy::radix_bits}.count() : 0;
}

template <class Policy, class Key, class Value, class BitKey>
std::size_t sort_workspace_bytes_for(const char* function, const device_detail::radix_sort_call<Policy, Key, Value, BitKey>& call,
                            std::int64_t n, const sort_options& options) {
  check_types<Key, Value, BitKey>();
  detail::check_sort_count(function, n);
  int begin_bit = 0, end_bit = 0;
  detail::resolve_bit_range(function, options, key_bits<Key, BitKey>, begin_bit, end_bit);
  const bool reduce_then_scan = options.strategy == sort_strategy::reduce_then_scan;
  const auto plan = device_detail::plan_for(call, n, begin_bit, end_bit, reduce_then_scan);
  std::size_t radix_bytes = device_detail::radix_sort_workspace_bytes<Policy, Key, Value>(plan);
  if constexpr (device_detail::radix_call_tuning<Policy, Key, Value>::lean_differs) {
    // Whichever pass the GPU that runs the call prefers (radix_pass_choice.cuh).
    using lean = typename device_detail::radix_call_tuning<Policy, Key, Value>::type::lean_pass;
    const auto lean_plan =
        device_detail::plan_for(device_detail::with_pass_policy<lean>(call), n, begin_bit, end_bit, reduce_then_scan);
    radix_bytes = std::max(radix_bytes, device_detail::radix_sort_workspace_bytes<lean, Key, Value>(lean_plan));
  }
  if (counting_sort_applies<Key, Value, BitKey>(call.double_buffered, call.keys_out != nullptr, n, begin_bit, end_bit,
                                                options)) {
    return std::max(radix_bytes, workspace::bytes_needed(0, counting_sort_scratch_bytes<Key>()));
  }
  return radix_bytes;
}

inline detail::array_extent sort_array(const char* name, const void* data, std::int64_t n, std::size_t bytes) {
  return detail::extent(name, data, n, bytes);
}

}  // namespace scankit::device_detail

namespace scankit::device {

// ---- keys ---------------------------------------------------------------------------------------

template <class Policy = void, class Key, class BitKey = default_bit_key<Key>>
void sort_keys(const Key* keys_in, Key* keys_out, device_detail::item_count n, cudaStream_t stream = nullptr,
               workspace* ws = nullptr, const sort_options& options = {}, BitKey bit_key = {}) {
  constexpr const char* function = "scankit::sort_keys";
  using P = std::conditional_t<std::is_void_v<Policy>, tuned_sort_policy<Key>, Policy>;
  detail::check_sort_count(function, n);
  detail::check_sort_arrays(function, n, {device_detail::sort_array("keys_in", keys_in, n, sizeof(Key)),
                                          device_detail::sort_array("keys_out", keys_out, n, sizeof(Key))});
  device_detail::radix_sort_call<P, Key, device_detail::radix_no_values, BitKey> call{keys_in, keys_out, nullptr, nullptr};
  device_detail::run_sort_call(function, call, n, stream, ws, options, bit_key);
}

// On return keys.current() holds the sorted keys (the selector flips once per digit pass).
template <class Policy = void, class Key, class BitKey = default_bit_key<Key>>
void sort_keys(double_buffer<Key>& keys, device_detail::item_count n, cudaStream_t stream = nullptr,
               workspace* ws = nullptr,
               const sort_options& options = {}, BitKey bit_key = {}) {
  constexpr const char* function = "scankit::sort_keys (double buffer)";
  using P = std::conditional_t<std::is_void_v<Policy>, tuned_sort_policy<Key>, Policy>;
  detail::check_sort_count(function, n);
  detail::check_sort_arrays(function, n, {device_detail::sort_array("keys.current()", keys.current(), n, sizeof(Key)),
                                          device_detail::sort_array("keys.alternate()", keys.alternate(), n, sizeof(Key))});
  device_detail::radix_sort_call<P, Key, device_detail::radix_no_values, BitKey> call{
      keys.current(), keys.alternate(), nullptr, nullptr, keys.alternate(), nullptr, true};
  if (device_detail::run_sort_call(function, call, n, stream, ws, options, bit_key) % 2 == 1) keys.flip();
}

// ---- pairs --------------------------------------------------------------------------------------

template <class Policy = void, class Key, class Value, class BitKey = default_bit_key<Key>>
void sort_pairs(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out,
                device_detail::item_count n,
                cudaStream_t stream = nullptr, workspace* ws = nullptr, const sort_options& options = {},
                BitKey bit_key = {}) {
  constexpr const char* function = "scankit::sort_pairs";
  using P = std::conditional_t<std::is_void_v<Policy>, tuned_sort_policy<Key, Value>, Policy>;
  detail::check_sort_count(function, n);
  detail::check_sort_arrays(function, n, {device_detail::sort_array("keys_in", keys_in, n, sizeof(Key)),
                                          device_detail::sort_array("keys_out", keys_out, n, sizeof(Key)),
                                          device_detail::sort_array("values_in", values_in, n, sizeof(Value)),
                                          device_detail::sort_array("values_out", values_out, n, sizeof(Value))});
  device_detail::radix_sort_call<P, Key, Value, BitKey> call{keys_in, keys_out, values_in, values_out};
  device_detail::run_sort_call(function, call, n, stream, ws, options, bit_key);
}

template <class Policy = void, class Key, class Value, class BitKey = default_bit_key<Key>>
void sort_pairs(double_buffer<Key>& keys, double_buffer<Value>& values, device_detail::item_count n,
                cudaStream_t stream = nullptr,
                workspace* ws = nullptr, const sort_options& options = {}, BitKey bit_key = {}) {
  constexpr const char* function = "scankit::sort_pairs (double buffer)";
  using P = std::conditional_t<std::is_void_v<Policy>, tuned_sort_policy<Key, Value>, Policy>;
  detail::check_sort_count(function, n);
  detail::check_sort_arrays(function, n,
                            {device_detail::sort_array("keys.current()", keys.current(), n, sizeof(Key)),
                             device_detail::sort_array("keys.alternate()", keys.alternate(), n, sizeof(Key)),
                             device_detail::sort_array("values.current()", values.current(), n, sizeof(Value)),
                             device_detail::sort_array("values.alternate()", values.alternate(), n, sizeof(Value))});
  device_detail::radix_sort_call<P, Key, Value, BitKey> call{keys.current(),   keys.alternate(),   values.current(),
                                                             values.alternate(), keys.alternate(), values.alternate(),
                                                             true};
  if (device_detail::run_sort_call(function, call, n, stream, ws, options, bit_key) % 2 == 1) {
    keys.flip();
    values.flip();
  }
}

// ---- argsort ------------------------------------------------------------------------------------

// indices_out[i] = the input position of the i-th smallest key (Index: int32_t or int64_t; int32_t
// needs n <= 2^31 - 1). keys_out receives the sorted keys, or may be null.
template <class Policy = void, class Key, class Index, class BitKey = default_bit_key<Key>>
void argsort(const Key* keys_in, Key* keys_out, Index* indices_out, device_detail::item_count n,
             cudaStream_t stream = nullptr,
             workspace* ws = nullptr, const sort_options& options = {}, BitKey bit_key = {}) {
  constexpr const char* function = "scankit::argsort";
  static_assert(std::is_integral_v<Index> && sizeof(Index) >= 4, "indices are 32- or 64-bit integers");
  using P = std::conditional_t<std::is_void_v<Policy>, tuned_sort_policy<Key, Index>, Policy>;
  detail::check_sort_count(function, n);
  if (n > 0 && static_cast<std::uint64_t>(n - 1) > static_cast<std::uint64_t>(std::numeric_limits<Index>::max())) {
    throw error(std::string(function) + ": n = " + std::to_string(n) + " does not fit the index type");
  }
  if (keys_out != nullptr) {
    detail::check_sort_arrays(function, n, {device_detail::sort_array("keys_in", keys_in, n, sizeof(Key)),
                                            device_detail::sort_array("keys_out", keys_out, n, sizeof(Key)),
                                            device_detail::sort_array("indices_out", indices_out, n, sizeof(Index))});
  } else {
    detail::check_sort_arrays(function, n, {device_detail::sort_array("keys_in", keys_in, n, sizeof(Key)),
                                            device_detail::sort_array("indices_out", indices_out, n, sizeof(Index))});
  }
  device_detail::radix_sort_call<P, Key, Index, BitKey> call{keys_in, keys_out, nullptr, indices_out};
  device_detail::run_sort_call(function, call, n, stream, ws, options, bit_key);
}

// ---- workspace sizes ----------------------------------------------------------------------------
// Bytes of workspace a call needs (0: none). Out-of-place calls include O(n) scratch for the
// second buffer; double-buffer calls need O(tiles) only.

template <class Key, class Value = void, class Policy = void, class BitKey = default_bit_key<Key>>
std::size_t sort_workspace_bytes(std::int64_t n, bool double_buffered, const sort_options& options = {},
                                 bool keys_wanted = true) {
  using V = std::conditional_t<std::is_void_v<Value>, device_detail::radix_no_values, Value>;
  using P = std::conditional_t<std::is_void_v<Policy>, tuned_sort_policy<Key, Value>, Policy>;
  Key* dummy = reinterpret_cast<Key*>(alignof(Key));
  V* values = std::is_void_v<Value> ? nullptr : reinterpret_cast<V*>(alignof(V));
  device_detail::radix_sort_call<P, Key, V, BitKey> call{dummy, keys_wanted ? dummy : nullptr, nullptr, values};
  call.double_buffered = double_buffered;
  return device_detail::sort_workspace_bytes_for("scankit::sort_workspace_bytes", call, n, options);
}

}  // namespace scankit::device
