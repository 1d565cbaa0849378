// Tile layer: the published state of each tile in a single-pass scan.
//
// Every tile publishes, as soon as it knows them, first its own aggregate (flag_aggregate) and
// later its inclusive prefix (flag_prefix, the combination of everything up to and including the
// tile). Successors read these to build their exclusive prefix (see look_back.cuh).
//
// Each tile owns an 8-byte slot in the workspace. The low 4 bytes hold the status
// (epoch << 2 | flag). A status from an earlier launch carries another epoch and reads as "not yet
// published", so the slots need no clearing between launches (workspace.hpp).
//
// Two representations, chosen by the aggregate's size:
//  * packed (aggregate <= 4 bytes): status and value share the slot and travel as one 64-bit word.
//    Memory order: relaxed loads and stores at device scope suffice. The reader needs nothing but
//    the word itself, and a 64-bit atomic access is single-copy atomic, so a reader that sees this
//    launch's status sees the value stored with it. No other memory is communicated.
//  * split (larger aggregates, e.g. 8-byte values or user structs): the value goes to a payload
//    array (one for aggregates, one for prefixes, so the aggregate -> prefix upgrade never
//    overwrites a payload a reader may be reading), then the status is stored with release
//    semantics. A reader loads the status with acquire semantics and only then the payload:
//    release/acquire at device scope makes the payload store happen-before the payload load.
#pragma once

#include <cstdint>
#include <cstring>

#include <cuda/atomic>

namespace scankit::device_detail {

enum tile_flag : std::uint32_t { flag_none = 0, flag_aggregate = 1, flag_prefix = 2 };

template <class T>
constexpr bool packs_into_tile_slot = sizeof(T) <= 4;

template <class T, bool Packed = packs_into_tile_slot<T>>
struct tile_state;

template <class T>
struct tile_state<T, true> {
  std::uint64_t* slots;
  std::uint32_t epoch;

  __device__ __forceinline__ void publish(long long tile, tile_flag flag, const T& value) const {
    std::uint32_t bits = 0;
    memcpy(&bits, &value, sizeof(T));
    const std::uint64_t word = (static_cast<std::uint64_t>(bits) << 32) | ((epoch << 2) | flag);
    cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(slots[tile]).store(word, cuda::memory_order_relaxed);
  }

  // Returns the tile's flag in this launch (flag_none if it has published nothing yet) and, when
  // published, its value.
  __device__ __forceinline__ tile_flag read(long long tile, T& value) const {
    const std::uint64_t word =
        cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(slots[tile]).load(cuda::memory_order_relaxed);
    const auto status = static_cast<std::uint32_t>(word);
    if ((status >> 2) != epoch) return flag_none;
    const auto bits = static_cast<std::uint32_t>(word >> 32);
    memcpy(&value, &bits, sizeof(T));
    return static_cast<tile_flag>(status & 3u);
  }
};

template <class T>
struct tile_state<T, false> {
  std::uint64_t* slots;
  T* aggregates;  // scratch, one per tile
  T* prefixes;    // scratch, one per tile
  std::uint32_t epoch;

  __device__ __forceinline__ std::uint32_t& status(long long tile) const {
    return reinterpret_cast<std::uint32_t*>(slots + tile)[0];  // the low half of the slot
  }

  __device__ __forceinline__ void publish(long long tile, tile_flag flag, const T& value) const {
    (flag == flag_prefix ? prefixes : aggregates)[tile] = value;
    cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>(status(tile))
        .store((epoch << 2) | flag, cuda::memory_order_release);
  }

  __device__ __forceinline__ tile_flag read(long long tile, T& value) const {
    const std::uint32_t s =
        cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>(status(tile)).load(cuda::memory_order_acquire);
    if ((s >> 2) != epoch) return flag_none;
    const auto flag = static_cast<tile_flag>(s & 3u);
    value = (flag == flag_prefix ? prefixes : aggregates)[tile];
    return flag;
  }
};

// Scratch bytes the split representation needs for `tiles` tiles (payload arrays).
template <class T>
constexpr std::size_t tile_state_scratch_bytes(std::size_t tiles) {
  if constexpr (packs_into_tile_slot<T>) {
    return 0;
  } else {
    return 2 * ((tiles * sizeof(T) + 255) / 256 * 256);
  }
}

template <class T>
__host__ __device__ inline tile_state<T> make_tile_state(std::uint64_t* slots, void* scratch, std::size_t tiles,
                                                         std::uint32_t epoch) {
  tile_state<T> state{};
  state.slots = slots;
  state.epoch = epoch;
  if constexpr (!packs_into_tile_slot<T>) {
    auto* base = static_cast<unsigned char*>(scratch);
    state.aggregates = reinterpret_cast<T*>(base);
    state.prefixes = reinterpret_cast<T*>(base + (tiles * sizeof(T) + 255) / 256 * 256);
  }
  return state;
}

}  // namespace scankit::device_detail
