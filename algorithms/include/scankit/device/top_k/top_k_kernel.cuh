// The top-k kernel: one block per slice of a row, one read of the slice.
//
// The block streams its slice in rounds of Threads x Items items (the next round's loads issued
// before this round is filtered) and appends every item whose rank key (top_k_keys.cuh)
// beats the block's threshold to a buffer in shared memory; a compare of the key's ordered bits
// with the threshold's high word rejects most items before any rank key is built. When the
// next round might not fit, the block selects the k largest of the buffer (radix select), keeps
// only them, and raises the threshold to the k-th: later items must beat it to matter. On random
// data few items pass once the threshold has risen, so the row is read once and the on-chip work
// is small; on adversarial data (ascending rows) the block selects once per round, and is slower
// but as exact. At the end the block keeps its k largest and either
//   - writes them as rank keys to `candidates_out` (a row split over several blocks: the next
//     launch takes the top k of the candidates, with the same kernel), or
//   - sorts them (bitonic) and writes values (read back from the keys by index) and indices;
//     slots past the row's items get index -1 and a zero value.
// Tuned shape: docs/tuning.md (top_k).
#pragma once

#include <cstdint>
#include <type_traits>

#include "scankit/device/top_k/top_k_block.cuh"
#include "scankit/device/top_k/top_k_keys.cuh"
#include "scankit/device/util/device_count.cuh"

namespace scankit::device_detail::top_k {

// k above this takes the sorting path (top_k_dispatch.cuh).
constexpr int max_block_k = 2048;

// Items a thread loads per round: 64 bytes (two rounds in registers at once), at most 16.
template <class Item>
constexpr int items_per_thread = 64 / static_cast<int>(sizeof(Item)) < 16 ? 64 / static_cast<int>(sizeof(Item)) : 16;

template <class Key>
struct shape {
  static constexpr int threads = 512;
  // Room for a round of keys after a selection (the candidates' rounds are no larger).
  static constexpr int capacity = threads * items_per_thread<Key> + max_block_k;
  static constexpr std::size_t buffer_bytes = capacity * sizeof(rank_t<Key>) + max_block_k * sizeof(int);
};

template <class Key>
struct pass_args {
  const Key* keys;
  row_layout rows;
  std::int64_t rows_bound;              // the rows the grid was planned for
  const std::int64_t* rows_device;      // the rows' count in device memory (device_count.cuh), or null
  std::int64_t slices;                  // blocks per row
  const rank_t<Key>* candidates_in;     // null: read the keys; else rows of candidates_length rank keys
  std::int64_t candidates_length;
  rank_t<Key>* candidates_out;          // non-null: write k rank keys per block, zeros after the items
  std::int64_t k;                       // slots per row of the output
  const std::int32_t* k_per_row;        // null: k for every row; else min(max(k_per_row[r], 0), k)
  Key* values_out;                      // may be null
  void* indices_out;                    // may be null; int64 when wide_indices, else int32
  bool wide_indices;
  bool sorted;
  rank_of_key<Key> rank_of;
};

template <class Key, class Item>
__global__ void __launch_bounds__(shape<Key>::threads, 2) top_k_kernel(pass_args<Key> a) {
  using Rank = rank_t<Key>;
  using High = rank_high_t<Key>;
  using S = shape<Key>;
  constexpr int threads = S::threads;
  constexpr int items = items_per_thread<Item>;
  constexpr int round_items = threads * items;
  constexpr int vector = 16 / static_cast<int>(sizeof(Item));
  constexpr int loads = items / vector;
  static_assert(items % vector == 0, "a thread's items are whole 16-byte vectors");
  static_assert(round_items + max_block_k <= S::capacity, "a round fits beside k items");
  struct alignas(16) item_vector {
    Item v[vector];
  };

  extern __shared__ __align__(16) unsigned char dynamic_smem[];
  Rank* buffer = reinterpret_cast<Rank*>(dynamic_smem);
  int* hole_slots = reinterpret_cast<int*>(buffer + S::capacity);
  __shared__ select_storage<threads> s;

  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) / a.slices;
  // A row past the count read on the device: the whole block leaves before any barrier.
  if (a.rows_device != nullptr && row >= items_to_process(a.rows_bound, a.rows_device)) return;
  const std::int64_t slice = static_cast<std::int64_t>(blockIdx.x) % a.slices;
  const std::int64_t row_begin = a.rows.at(row);
  const Key* row_keys = a.keys + row_begin;
  const std::int64_t row_items = a.candidates_in ? a.candidates_length : a.rows.at(row + 1) - row_begin;
  const Item* row_data;
  if constexpr (std::is_same_v<Item, Key>) {
    row_data = row_keys;
  } else {
    row_data = a.candidates_in + row * a.candidates_length;
  }
  const std::int64_t begin = row_items * slice / a.slices;
  const std::int64_t end = row_items * (slice + 1) / a.slices;
  std::int64_t k = a.k;
  if (a.k_per_row != nullptr) k = min(k, static_cast<std::int64_t>(max(a.k_per_row[row], 0)));

  const auto rank_of = [&](const Item& item, std::int64_t index) -> Rank {
    if constexpr (std::is_same_v<Item, Key>) {
      return a.rank_of(item, index);
    } else {
      return item;  // candidates are rank keys already (zero: no item)
    }
  };
  const auto high_of = [&](const Item& item) -> High {
    if constexpr (std::is_same_v<Item, Key>) {
      return a.rank_of.high(item);
    } else {
      return static_cast<High>(item >> 32);
    }
  };

  if (threadIdx.x == 0) s.count = 0;
  Rank threshold = 0;  // keep items whose rank key is above it; zero keeps every item
  __syncthreads();

  if (k > 0) {
    // The unaligned edges of the slice (fewer than 2 x vector items), one item per thread.
    const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(row_data + begin);
    const std::int64_t skip = static_cast<std::int64_t>(((16 - address % 16) % 16) / sizeof(Item));
    const std::int64_t aligned_begin = min(end, begin + skip);
    const std::int64_t aligned_end = aligned_begin + (end - aligned_begin) / vector * vector;
    {
      const std::int64_t head = aligned_begin - begin;
      const std::int64_t j = threadIdx.x;
      const bool valid = j < head || j - head < end - aligned_end;
      const std::int64_t index = j < head ? begin + j : aligned_end + (j - head);
      const Rank r = valid ? rank_of(row_data[index], index) : Rank{0};
      append_if(r > threshold, r, buffer, &s.count);
    }

    // This thread's m-th vector of the round at `base` starts at item base + (m x threads + t) x vector.
    const auto load_round = [&](item_vector(&held)[loads], std::int64_t base) {
#pragma unroll
      for (int m = 0; m < loads; ++m) {
        const std::int64_t at = base + static_cast<std::int64_t>(m * threads + threadIdx.x) * vector;
        if (at < aligned_end) held[m] = *reinterpret_cast<const item_vector*>(row_data + at);
      }
    };
    item_vector held[loads], next[loads];
    if (aligned_begin < aligned_end) load_round(held, aligned_begin);
    for (std::int64_t base = aligned_begin; base < aligned_end; base += round_items) {
      // The count is read between two barriers: after every append of the rounds before, and
      // before any append of this round, so that every thread takes the same branch below.
      __syncthreads();
      const int count = s.count;
      __syncthreads();
      if (count > S::capacity - round_items) {
        const Rank bound = select_kth<threads, rank_bits<Key>>(buffer, count, static_cast<int>(k), s);
        keep_largest(buffer, count, static_cast<int>(k), bound, hole_slots, s);
        threshold = bound;
      }
      if (base + round_items < aligned_end) load_round(next, base + round_items);
      const High threshold_high = static_cast<High>(threshold >> 32);
      bool any = false;
#pragma unroll
      for (int m = 0; m < loads; ++m) {
        const std::int64_t at = base + static_cast<std::int64_t>(m * threads + threadIdx.x) * vector;
#pragma unroll
        for (int v = 0; v < vector; ++v) any |= at < aligned_end && high_of(held[m].v[v]) >= threshold_high;
      }
      if (__any_sync(full_warp_mask, any)) {
#pragma unroll
        for (int m = 0; m < loads; ++m) {
          const std::int64_t at = base + static_cast<std::int64_t>(m * threads + threadIdx.x) * vector;
#pragma unroll
          for (int v = 0; v < vector; ++v) {
            const Rank r = at < aligned_end ? rank_of(held[m].v[v], at + v) : Rank{0};
            append_if(r > threshold, r, buffer, &s.count);
          }
        }
      }
#pragma unroll
      for (int m = 0; m < loads; ++m) held[m] = next[m];
    }
  }
  __syncthreads();
  const int count = s.count;
  const int kept = static_cast<int>(min(k, static_cast<std::int64_t>(count)));
  if (count > kept) {
    const Rank bound = select_kth<threads, rank_bits<Key>>(buffer, count, kept, s);
    keep_largest(buffer, count, kept, bound, hole_slots, s);
  }

  if (a.candidates_out != nullptr) {
    Rank* out = a.candidates_out + static_cast<std::int64_t>(blockIdx.x) * a.k;
    for (std::int64_t j = threadIdx.x; j < a.k; j += threads) out[j] = j < kept ? buffer[j] : Rank{0};
    return;
  }
  if (a.sorted && kept > 1) {
    int size = 1;
    while (size < kept) size <<= 1;
    for (int j = kept + threadIdx.x; j < size; j += threads) buffer[j] = 0;
    __syncthreads();
    sort_descending<threads>(buffer, size);
  }
  const std::int64_t out_row = row * a.k;
  for (std::int64_t j = threadIdx.x; j < a.k; j += threads) {
    const std::int64_t index = j < kept ? index_of_rank(buffer[j]) : -1;
    if (a.values_out != nullptr) a.values_out[out_row + j] = index >= 0 ? row_keys[index] : Key{};
    if (a.indices_out != nullptr) {
      if (a.wide_indices) {
        static_cast<std::int64_t*>(a.indices_out)[out_row + j] = index;
      } else {
        static_cast<std::int32_t*>(a.indices_out)[out_row + j] = static_cast<std::int32_t>(index);
      }
    }
  }
}

}  // namespace scankit::device_detail::top_k
