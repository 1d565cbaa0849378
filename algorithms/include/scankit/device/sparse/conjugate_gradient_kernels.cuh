// Device layer of the conjugate gradient: the vector kernels around the SpMV. Each is one
// grid-stride pass over its vectors; the dot products are one launch each (grid_sum below).
//
//   cg_start_kernel      p = r; r.r and b.b                       reads r, b; writes p
//   cg_step_kernel       p.Ap -> alpha = r.r / p.Ap               reads p, Ap
//   cg_update_kernel     x += alpha p, r -= alpha Ap; r.r -> beta reads x, r, p, Ap; writes x, r
//   cg_direction_kernel  p = r + beta p                           reads r, p; writes p
//
// The scalars (r.r, b.b, alpha, beta, the breakdown flag) stay in device memory between the
// kernels, so no kernel waits for the host. Dot products accumulate in double. The vectors never
// alias (__restrict__), and the loops are unrolled so that each thread has several iterations'
// loads in flight: these kernels are bound by memory bandwidth and need that parallelism.
#pragma once

#include <cmath>

#include "scankit/device/kernel/reduce_kernel.cuh"  // block_reduce_present, load_partial
#include "scankit/device/tile/tile_ticket.cuh"
#include "scankit/device/warp/warp_reduce.cuh"

namespace scankit::device_detail {

constexpr int cg_block_threads = 256;

struct cg_scalars {
  double rr;      // r.r of the current residual
  double bb;      // b.b
  double alpha;   // this iteration's step (0 after a breakdown)
  double beta;    // r'.r' / r.r of the last update
  int breakdown;  // set (and kept) when p.Ap <= 0 or is not finite
};

// Two sums at once (the start kernel's r.r and b.b); the others use .first only.
struct cg_sums {
  double first;
  double second;
};

struct cg_sums_plus {
  __device__ __forceinline__ cg_sums operator()(const cg_sums& a, const cg_sums& b) const {
    return {a.first + b.first, a.second + b.second};
  }
};

// Where the blocks of a reduction meet: one partial per block and the ticket that finds the last
// block (a zeroed single_pass_header; draw_tile_ticket leaves it ready for the next launch).
struct cg_reduction {
  optional_value<cg_sums>* partials;  // gridDim.x of them
  single_pass_header* header;
};

// The grid's sum of every thread's `mine`, in a fixed order (threads of a block in order, then
// the blocks' partials in order by the last block to finish): the same bits on every run for a
// given grid. finish(total) runs on thread 0 of the block that has the total.
//
// Memory order (as reduce_kernel.cuh): thread 0 stores the block's partial and fences before
// drawing its ticket (release pattern); the block that draws the last ticket has seen every other
// draw (they come before its own in the ticket word's modification order), fences (acquire
// pattern), and only after the barrier do its threads read the partials, past L1 (__ldcg).
template <class Finish>
__device__ __forceinline__ void grid_sum(cg_sums mine, const cg_reduction& reduction, Finish finish) {
  __shared__ optional_value<cg_sums> warp_values[cg_block_threads / 32];
  __shared__ bool last_block;
  const cg_sums_plus plus;
  const optional_value<cg_sums> block_value =
      block_reduce_present<cg_block_threads>(optional_value<cg_sums>{true, mine}, warp_values, plus);
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) finish(block_value.value);
    return;
  }
  if (threadIdx.x == 0) {
    reduction.partials[blockIdx.x] = block_value;
    __threadfence();  // release: the partial before the ticket
    last_block = draw_tile_ticket(reduction.header, gridDim.x).tile == gridDim.x - 1;
    if (last_block) __threadfence();  // acquire: every block's partial before the reads below
  }
  __syncthreads();
  if (!last_block) return;
  // Thread t folds a contiguous run of the partials, then the block combines the runs in order.
  const unsigned per_thread = (gridDim.x + cg_block_threads - 1) / cg_block_threads;
  optional_value<cg_sums> run{false, cg_sums{0.0, 0.0}};
  for (unsigned b = threadIdx.x * per_thread; b < (threadIdx.x + 1) * per_thread && b < gridDim.x; ++b) {
    run = combine_present(run, load_partial(reduction.partials + b), plus);
  }
  __syncthreads();  // warp_values is reused
  const optional_value<cg_sums> total = block_reduce_present<cg_block_threads>(run, warp_values, plus);
  if (threadIdx.x == 0) finish(total.value);
}

__device__ __forceinline__ long long cg_first_item() {
  return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ long long cg_stride() { return static_cast<long long>(gridDim.x) * blockDim.x; }

template <class V>
__global__ void __launch_bounds__(cg_block_threads)
    cg_start_kernel(const V* __restrict__ r, const V* __restrict__ b, V* __restrict__ p, long long n, cg_reduction reduction, cg_scalars* scalars) {
  cg_sums mine{0.0, 0.0};
#pragma unroll 4
  for (long long i = cg_first_item(); i < n; i += cg_stride()) {
    const V ri = r[i];
    const double bi = static_cast<double>(b[i]);
    p[i] = ri;
    mine.first += static_cast<double>(ri) * static_cast<double>(ri);
    mine.second += bi * bi;
  }
  grid_sum(mine, reduction, [&](const cg_sums& total) {
    scalars->rr = total.first;
    scalars->bb = total.second;
    scalars->alpha = 0.0;
    scalars->beta = 0.0;
    scalars->breakdown = 0;
  });
}

// alpha = r.r / p.Ap. A breakdown (p.Ap <= 0 or not finite) raises the flag that the update and
// the host read (and sets alpha = 0).
template <class V>
__global__ void __launch_bounds__(cg_block_threads)
    cg_step_kernel(const V* __restrict__ p, const V* __restrict__ ap, long long n, cg_reduction reduction, cg_scalars* scalars) {
  cg_sums mine{0.0, 0.0};
#pragma unroll 4
  for (long long i = cg_first_item(); i < n; i += cg_stride()) {
    mine.first += static_cast<double>(p[i]) * static_cast<double>(ap[i]);
  }
  grid_sum(mine, reduction, [&](const cg_sums& total) {
    const double pap = total.first;
    const bool ok = pap > 0.0 && isfinite(pap);
    scalars->alpha = ok ? scalars->rr / pap : 0.0;
    if (!ok) scalars->breakdown = 1;
  });
}

// The x and r updates and the new r.r in one pass; beta = new r.r / old r.r (0 when the old one
// is 0: the residual was already exact).
template <class V>
__global__ void __launch_bounds__(cg_block_threads)
    cg_update_kernel(V* __restrict__ x, V* __restrict__ r, const V* __restrict__ p, const V* __restrict__ ap, long long n,
                     cg_reduction reduction, cg_scalars* scalars) {
  // After a breakdown x and r stay those of the last full iteration (alpha = 0 alone would not
  // keep them when p holds an infinity). Every block reads the same flag, so either all of them
  // draw a reduction ticket or none does.
  if (scalars->breakdown != 0) return;
  const V alpha = static_cast<V>(scalars->alpha);
  cg_sums mine{0.0, 0.0};
#pragma unroll 4
  for (long long i = cg_first_item(); i < n; i += cg_stride()) {
    const V ri = r[i] - alpha * ap[i];
    x[i] += alpha * p[i];
    r[i] = ri;
    mine.first += static_cast<double>(ri) * static_cast<double>(ri);
  }
  grid_sum(mine, reduction, [&](const cg_sums& total) {
    const double old_rr = scalars->rr;
    scalars->beta = old_rr > 0.0 ? total.first / old_rr : 0.0;
    scalars->rr = total.first;
  });
}

template <class V>
__global__ void __launch_bounds__(cg_block_threads)
    cg_direction_kernel(const V* __restrict__ r, V* __restrict__ p, long long n, const cg_scalars* scalars) {
  const V beta = static_cast<V>(scalars->beta);
#pragma unroll 4
  for (long long i = cg_first_item(); i < n; i += cg_stride()) p[i] = r[i] + beta * p[i];
}

}  // namespace scankit::device_detail
