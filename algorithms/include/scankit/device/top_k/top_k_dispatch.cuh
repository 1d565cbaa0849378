// Device layer of top-k: which launches one call makes.
//
//   k <= max_block_k   top_k_kernel, one block per row when there are rows enough to fill the GPU;
//                      otherwise each row is split into slices whose blocks write their k best
//                      as rank keys, and the next launch (same kernel) takes the top k of those,
//                      until one block per row is left: a level shrinks a row at least 16-fold
//   k > max_block_k    two stable radix sorts (scankit::sort_pairs): by key with the positions as
//                      values, then the positions by row, so each row's items come out in result
//                      order; the first k of each row are gathered
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "scankit/device/dispatch/single_pass_setup.cuh"  // round_up_256
#include "scankit/device/top_k/top_k_kernel.cuh"
#include "scankit/device/util/launch.cuh"
#include "scankit/error.hpp"
#include "scankit/sort.hpp"
#include "scankit/workspace.hpp"

namespace scankit::device_detail::top_k {

struct call_shape {
  std::int64_t rows;
  std::int64_t row_items;  // items of the longest row, or a typical row for offsets (sizes the split)
  std::int64_t total;      // items the rows span (the sorting path sorts them all)
  std::int64_t k;
  const std::int64_t* rows_device = nullptr;  // the rows' count in device memory (rows is its bound)
};

struct result_spec {
  const std::int32_t* k_per_row;
  void* values_out;
  void* indices_out;
  bool wide_indices;
  bool largest;
  bool sorted;
  float_order floats;
};

// Blocks per row at each level; the last level has one block per row. Rows are split only when
// they fill less than half of `blocks_wanted` (the blocks resident at once): a split costs a
// second launch and the candidates' round trip, which only an idle GPU repays (docs/tuning.md).
inline std::vector<std::int64_t> plan_slices(const call_shape& c, std::int64_t blocks_wanted, int round_items) {
  std::vector<std::int64_t> slices;
  std::int64_t items = c.row_items;
  const std::int64_t fewest = std::max<std::int64_t>(16 * c.k, 2 * static_cast<std::int64_t>(round_items));
  for (;;) {
    std::int64_t s = 1;
    if (2 * c.rows <= blocks_wanted) s = std::min((blocks_wanted + c.rows - 1) / c.rows, items / fewest);
    s = std::max<std::int64_t>(s, 1);
    slices.push_back(s);
    if (s == 1) return slices;
    items = s * c.k;
  }
}

template <class Key>
int blocks_to_fill(int device) {
  int per_sm = 0, sms = 0;
  SCANKIT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, top_k_kernel<Key, Key>, shape<Key>::threads,
                                                                   shape<Key>::buffer_bytes));
  SCANKIT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return std::max(1, per_sm) * sms;
}

// Scratch of the split levels: two ping-pong regions of rank keys.
template <class Key>
std::size_t split_scratch_bytes(const call_shape& c, const std::vector<std::int64_t>& slices) {
  std::size_t region[2] = {0, 0};
  for (std::size_t level = 0; level + 1 < slices.size(); ++level) {
    const std::size_t bytes = static_cast<std::size_t>(c.rows * slices[level] * c.k) * sizeof(rank_t<Key>);
    region[level % 2] = std::max(region[level % 2], round_up_256(bytes));
  }
  return region[0] + region[1];
}

template <class Key>
std::size_t sorting_scratch_bytes(const call_shape& c) {
  return round_up_256(static_cast<std::size_t>(c.total) * sizeof(Key)) + 4 * round_up_256(static_cast<std::size_t>(c.total) * 8);
}

template <class Key>
__global__ void positions_kernel(std::int64_t* positions, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    positions[i] = i;
  }
}

// The row of each sorted position: -1 before the first row, rows after the last.
template <class Key>
__global__ void row_of_kernel(const std::int64_t* positions, std::int64_t* row_of, std::int64_t n,
                                     row_layout layout, std::int64_t rows) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t p = positions[i];
    std::int64_t lo = 0, hi = rows + 1;  // first boundary above p
    while (lo < hi) {
      const std::int64_t mid = (lo + hi) / 2;
      if (layout.at(mid) <= p) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    row_of[i] = lo - 1;
  }
}

template <class Key>
__global__ void gather_kernel(const Key* keys, const std::int64_t* positions, row_layout layout, std::int64_t rows,
                              std::int64_t k, const std::int32_t* k_per_row, Key* values_out, void* indices_out,
                              bool wide_indices) {
  for (std::int64_t slot = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; slot < rows * k;
       slot += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t row = slot / k, j = slot % k;
    const std::int64_t begin = layout.at(row);
    std::int64_t kept = min(k, layout.at(row + 1) - begin);
    if (k_per_row != nullptr) kept = min(kept, static_cast<std::int64_t>(max(k_per_row[row], 0)));
    const std::int64_t index = j < kept ? positions[begin + j] - begin : -1;
    if (values_out != nullptr) values_out[slot] = index >= 0 ? keys[begin + index] : Key{};
    if (indices_out != nullptr) {
      if (wide_indices) {
        static_cast<std::int64_t*>(indices_out)[slot] = index;
      } else {
        static_cast<std::int32_t*>(indices_out)[slot] = static_cast<std::int32_t>(index);
      }
    }
  }
}

inline dim3 grid_for(std::int64_t items) {
  return dim3(static_cast<unsigned>(std::clamp<std::int64_t>((items + 255) / 256, 1, 65536)));
}

template <class Key>
void run_sorting_path(const Key* keys, row_layout layout, const call_shape& c, const result_spec& r,
                      cudaStream_t stream, workspace* ws) {
  const std::size_t n_bytes = round_up_256(static_cast<std::size_t>(c.total) * 8);
  const detail::workspace_lease lease(ws, 0, sorting_scratch_bytes<Key>(c), stream);
  auto* base = static_cast<unsigned char*>(lease.view().scratch);
  Key* sorted_keys = reinterpret_cast<Key*>(base);
  base += round_up_256(static_cast<std::size_t>(c.total) * sizeof(Key));
  auto* positions = reinterpret_cast<std::int64_t*>(base);
  auto* by_key = reinterpret_cast<std::int64_t*>(base + n_bytes);
  auto* row_of = reinterpret_cast<std::int64_t*>(base + 2 * n_bytes);
  auto* by_row = reinterpret_cast<std::int64_t*>(base + 3 * n_bytes);

  sort_options by_key_order;
  by_key_order.order = r.largest ? sort_order::descending : sort_order::ascending;
  by_key_order.floats = r.floats;
  launch_kernel("top_k positions_kernel", positions_kernel<Key>, grid_for(c.total), dim3(256), stream, positions,
                c.total);
  sort_pairs(keys, sorted_keys, positions, by_key, c.total, stream, nullptr, by_key_order);
  launch_kernel("top_k row_of_kernel", row_of_kernel<Key>, grid_for(c.total), dim3(256), stream, by_key, row_of, c.total,
                layout, c.rows);
  // Stable: within a row the positions keep the key order of the first sort.
  sort_pairs(row_of, positions, by_key, by_row, c.total, stream, nullptr, sort_options{});
  launch_kernel("top_k gather_kernel", gather_kernel<Key>, grid_for(c.rows * c.k), dim3(256), stream, keys, by_row,
                layout, c.rows, c.k, r.k_per_row, static_cast<Key*>(r.values_out), r.indices_out, r.wide_indices);
}

// blocks_wanted: the blocks a split aims at (0: those resident at once).
template <class Key>
void run_top_k(const Key* keys, row_layout layout, const call_shape& c, const result_spec& r, cudaStream_t stream,
               workspace* ws, std::int64_t blocks_wanted = 0) {
  if (c.rows == 0 || c.k == 0) return;
  if (c.k > max_block_k) {
    if (c.rows_device != nullptr) {
      throw error("scankit::top_k: k = " + std::to_string(c.k) + " above " + std::to_string(max_block_k) +
                  " sorts every key, which needs the rows' count on the host, not a device_n");
    }
    run_sorting_path(keys, layout, c, r, stream, ws);
    return;
  }
  using S = shape<Key>;
  using Rank = rank_t<Key>;
  int device = 0;
  SCANKIT_CUDA_CHECK(cudaGetDevice(&device));
  allow_dynamic_shared_memory<top_k_kernel<Key, Key>>(device, S::buffer_bytes);
  allow_dynamic_shared_memory<top_k_kernel<Key, Rank>>(device, S::buffer_bytes);
  if (blocks_wanted <= 0) blocks_wanted = blocks_to_fill<Key>(device);
  const std::vector<std::int64_t> slices = plan_slices(c, blocks_wanted, S::threads * items_per_thread<Key>);
  const std::size_t scratch = split_scratch_bytes<Key>(c, slices);
  const detail::workspace_lease lease(ws, 0, scratch, stream);
  Rank* regions[2] = {static_cast<Rank*>(lease.view().scratch), nullptr};
  if (slices.size() > 1) {
    regions[1] = reinterpret_cast<Rank*>(static_cast<unsigned char*>(lease.view().scratch) +
                                         round_up_256(static_cast<std::size_t>(c.rows * slices[0] * c.k) * sizeof(Rank)));
  }

  pass_args<Key> a{};
  a.keys = keys;
  a.rows = layout;
  a.rows_bound = c.rows;
  a.rows_device = c.rows_device;
  a.k = c.k;
  a.k_per_row = r.k_per_row;
  a.values_out = static_cast<Key*>(r.values_out);
  a.indices_out = r.indices_out;
  a.wide_indices = r.wide_indices;
  a.sorted = r.sorted;
  a.rank_of = rank_of_key<Key>{default_bit_key<Key>{r.floats}, r.largest};
  for (std::size_t level = 0; level < slices.size(); ++level) {
    const bool last = level + 1 == slices.size();
    a.slices = slices[level];
    a.candidates_out = last ? nullptr : regions[level % 2];
    const dim3 grid(static_cast<unsigned>(c.rows * slices[level]));
    if (level == 0) {
      launch_kernel_smem("top_k_kernel", top_k_kernel<Key, Key>, grid, dim3(S::threads), S::buffer_bytes, stream, a);
    } else {
      a.candidates_in = regions[(level - 1) % 2];
      a.candidates_length = slices[level - 1] * c.k;
      launch_kernel_smem("top_k_kernel (candidates)", top_k_kernel<Key, Rank>, grid, dim3(S::threads),
                         S::buffer_bytes, stream, a);
    }
  }
}

template <class Key>
std::size_t top_k_scratch_bytes(const call_shape& c) {
  if (c.rows == 0 || c.k == 0) return 0;
  if (c.k > max_block_k) return sorting_scratch_bytes<Key>(c);
  int device = 0;
  SCANKIT_CUDA_CHECK(cudaGetDevice(&device));
  return split_scratch_bytes<Key>(c, plan_slices(c, blocks_to_fill<Key>(device), shape<Key>::threads * items_per_thread<Key>));
}

}  // namespace scankit::device_detail::top_k
