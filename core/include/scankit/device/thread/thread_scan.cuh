// Thread layer: serial reduction and scan of K items held in registers (coarsening).
// K is a compile-time constant so the items stay in registers (fully unrolled loops).
#pragma once

namespace scankit::device_detail {

template <int K, class T, class Op>
__device__ __forceinline__ T thread_reduce(const T (&items)[K], Op op) {
  T total = items[0];
#pragma unroll
  for (int k = 1; k < K; ++k) total = op(total, items[k]);
  return total;
}

// items[k] = items[0] op ... op items[k]
template <int K, class T, class Op>
__device__ __forceinline__ void thread_inclusive_scan(T (&items)[K], Op op) {
#pragma unroll
  for (int k = 1; k < K; ++k) items[k] = op(items[k - 1], items[k]);
}

// items[k] = prefix op items[0] op ... op items[k]
template <int K, class T, class Op>
__device__ __forceinline__ void thread_inclusive_scan(T (&items)[K], T prefix, Op op) {
#pragma unroll
  for (int k = 0; k < K; ++k) {
    prefix = op(prefix, items[k]);
    items[k] = prefix;
  }
}

// items[k] = prefix op items[0] op ... op items[k-1]   (items[0] = prefix)
template <int K, class T, class Op>
__device__ __forceinline__ void thread_exclusive_scan(T (&items)[K], T prefix, Op op) {
#pragma unroll
  for (int k = 0; k < K; ++k) {
    T next = op(prefix, items[k]);
    items[k] = prefix;
    prefix = next;
  }
}

// Exclusive scan without a prefix: items[0] is left as it is (there is nothing to put there
// without an identity element); items[k] = items[0] op ... op items[k-1] for k >= 1.
template <int K, class T, class Op>
__device__ __forceinline__ void thread_exclusive_scan_unseeded(T (&items)[K], Op op) {
  if constexpr (K > 1) {
    T running = items[0];
#pragma unroll
    for (int k = 1; k < K; ++k) {
      T next = op(running, items[k]);
      items[k] = running;
      running = next;
    }
  }
}

}  // namespace scankit::device_detail
