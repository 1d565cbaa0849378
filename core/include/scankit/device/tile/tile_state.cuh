// Tile layer: the published state of each tile in a single-pass scan.
//
// Every tile publishes, as soon as it knows them, first its own aggregate (flag_aggregate) and
// later its inclusive prefix (flag_prefix, the combination of everything up to and including the
// tile). Successors read these to build their exclusive prefix (see look_back.cuh).
//
// Each tile owns an 8-byte slot (two for the wide packed form) in the workspace. The low 4 bytes
// hold the status (epoch << 2 | flag), where the epoch is the launch's, drawn with the tile's
// ticket on the device (tile_ticket.cuh). A status from an earlier launch carries another epoch
// and reads as "not yet published", so the slots need no clearing between launches.
//
// Three representations, chosen by the aggregate's size:
//  * packed (aggregate <= 4 bytes): status and value share the slot and travel as one 64-bit word.
//    Memory order: relaxed loads and stores at device scope suffice. The reader needs nothing but
//    the word itself, and a 64-bit atomic access is single-copy atomic, so a reader that sees this
//    launch's status sees the value stored with it. No other memory is communicated.
//  * wide packed (aggregate <= 8 bytes): two adjacent slots, 16 bytes, moved by one 128-bit
//    access (ld/st.relaxed.gpu.b128, PTX ISA 8.3, sm_70+: a naturally aligned scalar access, so
//    single-copy atomic like the 64-bit one; the same relaxed argument applies). Each 8-byte half
//    carries the status in its low 4 bytes and half of the value above it, so the slot invariant
//    (low 4 bytes = a tagged status or zero) holds for every slot. libcu++ 13.0's
//    atomic_ref<16-byte type> emits malformed PTX for these loads, hence the inline PTX.
//  * split (larger aggregates, e.g. user structs): the value goes to a payload
//    array (one for aggregates, one for prefixes, so the aggregate -> prefix upgrade never
//    overwrites a payload a reader may be reading), then the status is stored with release
//    semantics. A reader loads the status with acquire semantics and only then the payload:
//    release/acquire at device scope makes the payload store happen-before the payload load.
//    Two dependent loads per look-back step instead of one: the packed forms are faster.
#pragma once

#include <cstdint>
#include <cstring>

#include <cuda/atomic>

namespace scankit::device_detail {

enum tile_flag : std::uint32_t { flag_none = 0, flag_aggregate = 1, flag_prefix = 2 };

enum class tile_state_layout { packed, wide_packed, split };

template <class T>
constexpr tile_state_layout tile_state_layout_for =
    sizeof(T) <= 4 ? tile_state_layout::packed
                   : (sizeof(T) <= 8 ? tile_state_layout::wide_packed : tile_state_layout::split);

// 8-byte workspace slots a launch of `tiles` tiles needs.
template <class T>
constexpr std::size_t tile_state_slots(std::size_t tiles) {
  return tile_state_layout_for<T> == tile_state_layout::wide_packed ? 2 * tiles : tiles;
}

template <class T, tile_state_layout Layout = tile_state_layout_for<T>>
struct tile_state;

template <class T>
struct tile_state<T, tile_state_layout::packed> {
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
struct tile_state<T, tile_state_layout::wide_packed> {
  std::uint64_t* slots;  // two per tile
  std::uint32_t epoch;

  __device__ __forceinline__ void publish(long long tile, tile_flag flag, const T& value) const {
    std::uint64_t bits = 0;
    memcpy(&bits, &value, sizeof(T));
    const std::uint64_t status = (epoch << 2) | flag;
    const std::uint64_t low = (bits << 32) | status;
    const std::uint64_t high = (bits & 0xffffffff00000000ull) | status;
    asm volatile("{\n\t.reg .b128 word;\n\tmov.b128 word, {%1, %2};\n\tst.relaxed.gpu.global.b128 [%0], word;\n\t}"
                 :
                 : "l"(slots + 2 * tile), "l"(low), "l"(high)
                 : "memory");
  }

  __device__ __forceinline__ tile_flag read(long long tile, T& value) const {
    std::uint64_t low, high;
    asm volatile("{\n\t.reg .b128 word;\n\tld.relaxed.gpu.global.b128 word, [%2];\n\tmov.b128 {%0, %1}, word;\n\t}"
                 : "=l"(low), "=l"(high)
                 : "l"(slots + 2 * tile)
                 : "memory");
    const auto status = static_cast<std::uint32_t>(low);
    if ((status >> 2) != epoch) return flag_none;
    const std::uint64_t bits = (low >> 32) | (high & 0xffffffff00000000ull);
    memcpy(&value, &bits, sizeof(T));
    return static_cast<tile_flag>(status & 3u);
  }
};

template <class T>
struct tile_state<T, tile_state_layout::split> {
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
  if constexpr (tile_state_layout_for<T> != tile_state_layout::split) {
    return 0;
  } else {
    return 2 * ((tiles * sizeof(T) + 255) / 256 * 256);
  }
}

// The epoch is set on the device, per block, from the drawn ticket (tile_prefix_op.cuh).
template <class T>
__host__ __device__ inline tile_state<T> make_tile_state(std::uint64_t* slots, void* scratch, std::size_t tiles) {
  tile_state<T> state{};
  state.slots = slots;
  if constexpr (tile_state_layout_for<T> == tile_state_layout::split) {
    auto* base = static_cast<unsigned char*>(scratch);
    state.aggregates = reinterpret_cast<T*>(base);
    state.prefixes = reinterpret_cast<T*>(base + (tiles * sizeof(T) + 255) / 256 * 256);
  }
  return state;
}

}  // namespace scankit::device_detail
