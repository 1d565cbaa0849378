// Device layer of the sparse module: checks and statistics of a CSR matrix, reported through a
// small device struct that the host reads back (the caller waits for it).
//   csr_offsets_kernel   one pass over the offsets: offsets[0] = 0, non-decreasing, offsets[rows] =
//                        nnz, all within [0, nnz] (the first bad position); the longest row and
//                        the empty rows
//   csr_columns_kernel   a warp per row: every column in [0, cols), and optionally strictly
//                        increasing within the row (the first bad row)
// Per-warp reductions, then one atomic per warp.
#pragma once

#include <climits>

namespace scankit::device_detail {

struct csr_report {
  long long first_bad;  // LLONG_MAX: none
  unsigned long long max_row_length;
  unsigned long long empty_rows;
};

template <class Index>
__global__ void csr_offsets_kernel(const Index* offsets, long long rows, long long nnz, csr_report* report) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  long long first_bad = LLONG_MAX;
  unsigned long long longest = 0, empty = 0;
  for (long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; r <= rows; r += stride) {
    const long long here = static_cast<long long>(offsets[r]);
    bool bad = here < 0 || here > nnz || (r == 0 && here != 0) || (r == rows && here != nnz);
    if (r < rows) {
      const long long next = static_cast<long long>(offsets[r + 1]);
      bad = bad || next < here;
      if (next >= here) {
        const auto length = static_cast<unsigned long long>(next - here);
        longest = length > longest ? length : longest;
        empty += length == 0 ? 1 : 0;
      }
    }
    if (bad && r < first_bad) first_bad = r;
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    const long long other_bad = __shfl_down_sync(0xffffffffu, first_bad, offset);
    const unsigned long long other_longest = __shfl_down_sync(0xffffffffu, longest, offset);
    first_bad = other_bad < first_bad ? other_bad : first_bad;
    longest = other_longest > longest ? other_longest : longest;
    empty += __shfl_down_sync(0xffffffffu, empty, offset);
  }
  if ((threadIdx.x & 31u) == 0) {
    if (first_bad != LLONG_MAX) atomicMin(&report->first_bad, first_bad);
    atomicMax(&report->max_row_length, longest);
    atomicAdd(&report->empty_rows, empty);
  }
}

// Offsets already checked (csr_offsets_kernel).
template <class Index>
__global__ void csr_columns_kernel(const Index* offsets, const Index* columns, long long rows, long long cols,
                                   bool sorted, csr_report* report) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const long long warps = static_cast<long long>(gridDim.x) * blockDim.x / 32;
  for (long long r = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32; r < rows; r += warps) {
    const long long begin = static_cast<long long>(offsets[r]), end = static_cast<long long>(offsets[r + 1]);
    bool bad = false;
    for (long long k = begin + lane; k < end; k += 32) {
      const long long c = static_cast<long long>(columns[k]);
      bad = bad || c < 0 || c >= cols || (sorted && k + 1 < end && static_cast<long long>(columns[k + 1]) <= c);
    }
    if (__any_sync(0xffffffffu, bad) && lane == 0) atomicMin(&report->first_bad, r);
  }
}

}  // namespace scankit::device_detail
