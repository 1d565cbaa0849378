// Device layer of the sparse module: the small kernels of CSR construction.
//
//   row_offsets_kernel          offsets[r] = the first k with rows[k] >= r (rows sorted): item k
//                               writes the offsets of the rows after rows[k - 1] up to rows[k],
//                               so empty rows get their offsets too, in one pass over the rows
//   pack_coordinates_kernel     (row, column) -> one 64-bit key, row above column, for the sort;
//                               notes the first entry out of range and gives it `outside_key`
//   drop_outside_run_kernel     takes the run of entries out of range off the distinct entries
//   unpack_coordinates_kernel   the key back into row and column
//   expand_rows_kernel          CSR to COO: the row of every entry, a thread per row
//   gather_entries_kernel       the transpose's entries in their new order (a permutation)
#pragma once

#include <cstdint>
#include <cstring>

#include "scankit/device/util/device_count.cuh"

namespace scankit::device_detail {

// Each thread takes V consecutive positions k (one 16-byte load of rows when the array is
// aligned) and the row before them. Rows out of order or out of range give wrong offsets but no
// write outside offsets[0..n_rows]. nnz_device: the entries' count in device memory (nnz is then
// its bound), or nullptr.
template <class Index>
__global__ void row_offsets_kernel(const Index* rows, long long nnz_bound, const std::int64_t* nnz_device,
                                   Index n_rows, Index* offsets) {
  const long long nnz = items_to_process(nnz_bound, nnz_device);
  constexpr int V = 16 / sizeof(Index);
  const bool aligned = (reinterpret_cast<std::uintptr_t>(rows) & 15u) == 0;
  const long long groups = (nnz + 1 + V - 1) / V;  // positions 0..nnz
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long g = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; g < groups; g += stride) {
    const long long first = g * V;
    Index here[V];
    if (aligned && first + V <= nnz) {
      const int4 chunk = reinterpret_cast<const int4*>(rows)[g];
      memcpy(here, &chunk, 16);
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) here[j] = first + j < nnz ? rows[first + j] : n_rows;  // nnz: past the last row
    }
    long long before = first == 0 ? -1 : static_cast<long long>(rows[first - 1]);
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const long long k = first + j;
      if (k > nnz) break;
      long long row = here[j];
      before = before < -1 ? -1 : before;
      row = row > n_rows ? static_cast<long long>(n_rows) : row;
      for (long long r = before + 1; r <= row; ++r) offsets[r] = static_cast<Index>(k);
      before = here[j];
    }
  }
}

// first_bad starts at all ones (-1 as a signed count) and ends as the least k out of range.
template <class Index>
__global__ void pack_coordinates_kernel(const Index* rows, const Index* cols, long long nnz_bound,
                                        const std::int64_t* nnz_device, Index n_rows, Index n_cols, int col_bits,
                                        unsigned long long outside_key, unsigned long long* keys,
                                        unsigned long long* first_bad) {
  const long long nnz = items_to_process(nnz_bound, nnz_device);
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; k < nnz; k += stride) {
    const Index r = rows[k], c = cols[k];
    unsigned long long key = outside_key;
    if (r < 0 || r >= n_rows || c < 0 || c >= n_cols) {
      atomicMin(first_bad, static_cast<unsigned long long>(k));
    } else {
      key = (static_cast<unsigned long long>(r) << col_bits) | static_cast<unsigned long long>(c);
    }
    keys[k] = key;
  }
}

// The entries out of range all took outside_key, the largest key (row n_rows), so they are the
// last distinct entry when there are any; one thread takes that run off the count. The count
// was written by an earlier launch, so kernel order makes this read-modify-write safe.
template <class Key>
__global__ void drop_outside_run_kernel(const Key* distinct_keys, std::int64_t* entries, Key outside_key) {
  const std::int64_t n = *entries;
  if (n > 0 && distinct_keys[n - 1] == outside_key) *entries = n - 1;
}

template <class Index>
__global__ void unpack_coordinates_kernel(const unsigned long long* keys, const std::int64_t* count, int col_bits,
                                          Index* rows, Index* cols) {
  const long long n = static_cast<long long>(*count);
  const unsigned long long column_mask = col_bits >= 64 ? ~0ull : (1ull << col_bits) - 1;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride) {
    rows[k] = static_cast<Index>(keys[k] >> col_bits);
    cols[k] = static_cast<Index>(keys[k] & column_mask);
  }
}

template <class Index>
__global__ void expand_rows_kernel(const Index* offsets, Index n_rows, Index* rows) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; r < n_rows; r += stride) {
    for (Index k = offsets[r]; k < offsets[r + 1]; ++k) rows[k] = static_cast<Index>(r);
  }
}

// out_columns[k] = rows[order[k]], out_values[k] = values[order[k]] (1 for a pattern matrix).
template <class Index, class Value>
__global__ void gather_entries_kernel(const Index* order, long long nnz, const Index* rows, const Value* values,
                                      Index* out_columns, Value* out_values) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; k < nnz; k += stride) {
    const Index from = order[k];
    out_columns[k] = rows[from];
    out_values[k] = values != nullptr ? values[from] : Value(1);  // null: a pattern matrix
  }
}

}  // namespace scankit::device_detail
