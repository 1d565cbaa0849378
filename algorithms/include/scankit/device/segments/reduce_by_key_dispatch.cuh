// Device layer: reduce-by-key, host side. One tile: one block, no workspace; more: one
// single-pass launch of reduce_by_key_kernel.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include "scankit/detail/check_arguments.hpp"
#include "scankit/detail/nvtx_range.hpp"
#include "scankit/device/segments/reduce_by_key_kernel.cuh"
#include "scankit/device/dispatch/single_pass_setup.cuh"
#include "scankit/device/util/device_count.cuh"
#include "scankit/device/util/launch.cuh"
#include "scankit/error.hpp"
#include "scankit/workspace.hpp"

namespace scankit::device_detail {

// Run numbers are counted in 32 bits (the look-back's word holds a 4-byte value beside them).
constexpr long long reduce_by_key_max_items = (1LL << 32) - 1;

template <class Policy, class T>
std::size_t reduce_by_key_workspace_bytes(long long n) {
  if (n <= Policy::tile_items) return 0;
  const auto tiles = static_cast<std::size_t>(tiles_of<Policy::tile_items>(n));
  return workspace::bytes_needed(tile_state_slots<segment_item<T>>(tiles), tile_state_scratch_bytes<segment_item<T>>(tiles));
}

template <class Policy, class T, class KeysIn, class ValuesIn, class KeysOut, class ValuesOut, class Eq, class Op>
void run_reduce_by_key(const char* function, KeysIn keys, ValuesIn values, KeysOut unique_keys, ValuesOut aggregates,
                       std::int64_t* runs, item_count count, Eq key_equal, Op op, cudaStream_t stream, workspace* ws) {
  const ::scankit::detail::nvtx_range nvtx(function);
  static_assert(std::is_trivially_copyable_v<T>, "reduce-by-key values must be trivially copyable");
  const long long n = count.bound;  // with a device count, everything below is sized for its bound
  detail::check_count(function, n);
  if (count.device != nullptr) detail::check_count_not_written(function, device_n{count.device, n}, runs);
  if (n > reduce_by_key_max_items) {
    throw error(std::string(function) + ": n = " + std::to_string(n) + " is above the 2^32 - 1 items it supports");
  }
  if constexpr (std::is_pointer_v<KeysIn>) detail::check_pointer(function, "keys", keys, n);
  if constexpr (std::is_pointer_v<ValuesIn>) detail::check_pointer(function, "values", values, n);
  if constexpr (std::is_pointer_v<KeysOut>) detail::check_pointer(function, "unique_keys", unique_keys, n);
  if constexpr (std::is_pointer_v<ValuesOut>) detail::check_pointer(function, "aggregates", aggregates, n);
  detail::check_pointer(function, "runs", runs, 1);
  // The outputs are written while other tiles still read their input: no output may reach an input
  // (an output is checked over n items, all it could receive). Between the outputs only the run
  // count r decides what is written, and r is known on the device only: their first items (always
  // written when n > 0) are checked, so outputs sized for r may sit side by side.
  const auto disjoint = [&](const char* a_name, const void* a, std::size_t a_bytes, const char* b_name, const void* b,
                            std::size_t b_bytes) {
    const auto* x = static_cast<const char*>(a);
    const auto* y = static_cast<const char*>(b);
    if (a_bytes > 0 && b_bytes > 0 && x < y + b_bytes && y < x + a_bytes) {
      throw error(std::string(function) + ": " + a_name + " overlaps " + b_name);
    }
  };
  if constexpr (std::is_pointer_v<KeysIn> && std::is_pointer_v<ValuesIn> && std::is_pointer_v<KeysOut> &&
                std::is_pointer_v<ValuesOut>) {
    const std::size_t count = static_cast<std::size_t>(n);
    const std::size_t kb = count * sizeof(*keys), vb = count * sizeof(*values);
    const std::size_t ukb = count * sizeof(*unique_keys), ab = count * sizeof(*aggregates);
    disjoint("unique_keys", unique_keys, ukb, "keys", keys, kb);
    disjoint("unique_keys", unique_keys, ukb, "values", values, vb);
    disjoint("aggregates", aggregates, ab, "keys", keys, kb);
    disjoint("aggregates", aggregates, ab, "values", values, vb);
    const std::size_t uk1 = count > 0 ? sizeof(*unique_keys) : 0, ag1 = count > 0 ? sizeof(*aggregates) : 0;
    disjoint("aggregates", aggregates, ag1, "unique_keys", unique_keys, uk1);
    disjoint("runs", runs, sizeof(*runs), "unique_keys", unique_keys, uk1);
    disjoint("runs", runs, sizeof(*runs), "aggregates", aggregates, ag1);
  }
  if (n == 0) {
    SCANKIT_CUDA_CHECK(cudaMemsetAsync(runs, 0, sizeof(*runs), stream));
    return;
  }
  using heads_t = key_change_source<KeysIn, Eq, Policy::items_per_thread, Policy::block_threads>;
  reduce_by_key_args<T, ValuesIn, heads_t, KeysOut, ValuesOut> args{};
  args.values = values;
  args.heads = heads_t{keys, n, key_equal};
  args.unique_keys = unique_keys;
  args.aggregates = aggregates;
  args.runs = runs;
  args.n = n;
  args.n_device = count.device;
  const auto kernel = reduce_by_key_kernel<Policy, T, ValuesIn, heads_t, KeysOut, ValuesOut, Op>;
  if (n <= Policy::tile_items) {
    launch_kernel("reduce_by_key_kernel (single tile)", kernel, 1, Policy::block_threads, stream, args, op);
    return;
  }
  using item_t = segment_item<T>;
  const long long tiles = tiles_of<Policy::tile_items>(n);
  const detail::workspace_lease lease(ws, tile_state_slots<item_t>(static_cast<std::size_t>(tiles)),
                                      tile_state_scratch_bytes<item_t>(static_cast<std::size_t>(tiles)), stream);
  args.pass = make_single_pass_context<item_t>(lease.view(), tiles, Policy::backoff);
  launch_kernel("reduce_by_key_kernel (decoupled look-back)", kernel, static_cast<unsigned>(tiles), Policy::block_threads,
                stream, args, op);
}

}  // namespace scankit::device_detail
