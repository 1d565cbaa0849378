// Device layer of the radix sort: the digit counts of every pass from one read of the keys, and
// their exclusive scan (where each digit's keys start in the sorted output).
//
// One-sweep sorts read the keys once here for all passes (a key's digits for passes 0..P-1 are
// taken from one conversion to ordered bits), so each later pass knows where every digit starts
// globally and only has to find its tile's place among the earlier tiles (radix_pass_kernel.cuh).
#pragma once

#include <cstdint>

#include "scankit/device/block/block_scan_warp_of_warps.cuh"
#include "scankit/device/sort/radix_digits.cuh"
#include "scankit/device/util/device_count.cuh"

namespace scankit::device_detail {

// Which bits the passes of one sort take: pass p sorts by bits [begin_bit + p * radix_bits,
// min(that + radix_bits, end_bit)) of the (possibly complemented) ordered bits.
struct radix_passes {
  int begin_bit;
  int end_bit;
  int radix_bits;

  __host__ __device__ int count() const { return (end_bit - begin_bit + radix_bits - 1) / radix_bits; }
  __host__ __device__ int shift(int pass) const { return begin_bit + pass * radix_bits; }
  __host__ __device__ unsigned mask(int pass) const {
    const int bits = end_bit - shift(pass) < radix_bits ? end_bit - shift(pass) : radix_bits;
    return (1u << bits) - 1u;
  }
  template <class Key, class BitKey>
  __host__ __device__ radix_digit<Key, BitKey> digit(int pass, const BitKey& bit_key, bool descending) const {
    using bits_type = bit_key_result_t<BitKey, Key>;
    return radix_digit<Key, BitKey>{bit_key, static_cast<bits_type>(descending ? ~bits_type{0} : bits_type{0}),
                                    shift(pass), mask(pass)};
  }
};

// The bits keys are compared by when they are compared whole (small and segment sorts): the bit
// range of the ordered bits, complemented when descending (as the radix passes' digits are).
template <class Key, class BitKey>
__device__ __forceinline__ auto sort_bits_in_range(const Key& key, const BitKey& bit_key, const radix_passes& passes,
                                                   bool descending) {
  using bits_type = bit_key_result_t<BitKey, Key>;
  constexpr int width = 8 * static_cast<int>(sizeof(bits_type));
  bits_type bits = bit_key(key);
  if (descending) bits = static_cast<bits_type>(~bits);
  const int range = passes.end_bit - passes.begin_bit;
  bits = static_cast<bits_type>(bits >> passes.begin_bit);
  if (range < width) bits = static_cast<bits_type>(bits & static_cast<bits_type>((bits_type{1} << range) - 1));
  return bits;
}

// The digit of ordered bits in one pass, with the pass's shift and mask worked out once per
// thread rather than per key: keys of up to 4 bytes shift one word; 8-byte keys take the word the
// digit starts in and a funnel shift with the next (digits may straddle the halves when the bit
// range does not start at a multiple of the digit width).
struct radix_pass_digit {
  unsigned high_word;  // 8-byte keys: the digit starts in the high half
  unsigned shift;      // within the word
  unsigned mask;

  __device__ __forceinline__ static radix_pass_digit of(const radix_passes& passes, int pass) {
    const unsigned shift = static_cast<unsigned>(passes.shift(pass));
    return {shift >= 32 ? 1u : 0u, shift & 31u, passes.mask(pass)};
  }

  template <class Bits>
  __device__ __forceinline__ unsigned operator()(Bits bits) const {
    if constexpr (sizeof(Bits) <= 4) {
      return (static_cast<unsigned>(bits) >> shift) & mask;
    } else {
      const auto low = static_cast<unsigned>(bits), high = static_cast<unsigned>(bits >> 32);
      const unsigned from = high_word ? high : low, next = high_word ? 0u : high;
      return __funnelshift_r(from, next, shift) & mask;
    }
  }
};

// counts[pass * Radix + digit] += keys of [0, n) with that digit in that pass (counts zeroed
// before). Grid-stride over tiles of Policy::tile_items; one shared histogram per pass per block,
// added to the global one at the end (64-bit counts: any n).
template <class Policy, int Radix, int MaxPasses, class Key, class BitKey>
__global__ void __launch_bounds__(Policy::block_threads)
    radix_histogram_kernel(const Key* keys, long long bound, const std::int64_t* n_device, BitKey bit_key,
                           bool descending, radix_passes passes, unsigned long long* counts) {
  __shared__ unsigned histogram[MaxPasses][Radix];
  const long long n = items_to_process(bound, n_device);
  const int pass_count = passes.count();
  for (int i = threadIdx.x; i < MaxPasses * Radix; i += Policy::block_threads) (&histogram[0][0])[i] = 0;
  radix_pass_digit digit_of[MaxPasses];
#pragma unroll
  for (int p = 0; p < MaxPasses; ++p) digit_of[p] = radix_pass_digit::of(passes, p < pass_count ? p : 0);
  __syncthreads();
  using bits_type = bit_key_result_t<BitKey, Key>;
  const bits_type flip = descending ? static_cast<bits_type>(~bits_type{0}) : bits_type{0};
  constexpr int I = Policy::items_per_thread;
  const long long stride = static_cast<long long>(gridDim.x) * Policy::tile_items;
  for (long long base = static_cast<long long>(blockIdx.x) * Policy::tile_items; base < n; base += stride) {
    const long long remaining = n - base;
    const int valid = remaining < Policy::tile_items ? static_cast<int>(remaining) : Policy::tile_items;
    // Every load before the first atomic (in one loop the compiler emits each load after the
    // previous key's atomics).
    bits_type bits[I];
#pragma unroll
    for (int k = 0; k < I; ++k) {
      const int i = threadIdx.x + k * Policy::block_threads;
      if (i < valid) bits[k] = static_cast<bits_type>(bit_key(keys[base + i]) ^ flip);
    }
#pragma unroll
    for (int k = 0; k < I; ++k) {
      if (threadIdx.x + k * Policy::block_threads < valid) {
#pragma unroll
        for (int p = 0; p < MaxPasses; ++p) {
          if (p < pass_count) atomicAdd(&histogram[p][digit_of[p](bits[k])], 1u);
        }
      }
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < pass_count * Radix; i += Policy::block_threads) {
    const unsigned count = (&histogram[0][0])[i];
    if (count != 0) atomicAdd(&counts[i], static_cast<unsigned long long>(count));
  }
}

// One block of Radix threads per pass: starts[pass * pass_stride + d] = the number of keys whose
// digit in that pass is below d; bit `pass` of *trivial_passes (zeroed before) is set when one
// digit holds all n keys (the pass is skipped, radix_pass_route.cuh).
template <int Radix>
__global__ void __launch_bounds__(Radix)
    radix_digit_starts_kernel(const unsigned long long* counts, long long bound, const std::int64_t* n_device,
                              unsigned long long* starts, long long pass_stride, unsigned* trivial_passes) {
  const long long n = items_to_process(bound, n_device);
  using block_scan = block_scan_warp_of_warps<unsigned long long, Radix>;
  __shared__ typename block_scan::storage storage;
  const unsigned long long own = counts[blockIdx.x * Radix + threadIdx.x];
  if (own == static_cast<unsigned long long>(n)) atomicOr(trivial_passes, 1u << blockIdx.x);
  const block_scan_result<unsigned long long> scanned = block_scan::scan(own, storage, plus_op{});
  starts[blockIdx.x * pass_stride + threadIdx.x] = threadIdx.x == 0 ? 0ull : scanned.exclusive;
}

}  // namespace scankit::device_detail
