// Device layer: what the staged kernels can read. The bulk copy moves raw bytes, so the staged
// kernels take a contiguous array: of the accumulator type itself, or of another type of the same
// size that a function turns into it as the items leave shared memory (a transform iterator over
// an array: scankit/device/iterators.cuh makes one). Any other iterator takes the register kernel.
#pragma once

#include <cstring>
#include <type_traits>

namespace scankit::device_detail {

// in[i] = transform(data[i]); also an iterator for the register kernel.
template <class Raw, class Transform>
struct staged_input {
  const Raw* data;
  Transform transform;

  __host__ __device__ __forceinline__ auto operator[](long long i) const { return transform(data[i]); }
};

template <class In, class T, class Enable = void>
struct staged_input_traits;

template <class T>
struct staged_input_traits<const T*, T, void> {
  using raw_type = T;
  static __host__ __device__ __forceinline__ const T* data(const T* in) { return in; }
  template <int P>
  static __device__ __forceinline__ void unpack(const T*, const int4& chunk, T (&items)[P]) {
    static_assert(P * sizeof(T) == 16, "a chunk is 16 bytes");
    memcpy(items, &chunk, 16);
  }
};

// The staged kernels keep the input's chunk layout for the output: same item size only.
template <class Raw, class Transform, class T>
struct staged_input_traits<staged_input<Raw, Transform>, T, std::enable_if_t<sizeof(Raw) == sizeof(T)>> {
  using raw_type = Raw;
  static __host__ __device__ __forceinline__ const Raw* data(const staged_input<Raw, Transform>& in) {
    return in.data;
  }
  template <int P>
  static __device__ __forceinline__ void unpack(const staged_input<Raw, Transform>& in, const int4& chunk,
                                                T (&items)[P]) {
    static_assert(P * sizeof(Raw) == 16, "a chunk is 16 bytes");
    Raw raw[P];
    memcpy(raw, &chunk, 16);
#pragma unroll
    for (int k = 0; k < P; ++k) items[k] = static_cast<T>(in.transform(raw[k]));
  }
};

// Whether the staged kernels can read In as T.
template <class In, class T, class = void>
constexpr bool staged_readable = false;
template <class In, class T>
constexpr bool staged_readable<In, T, std::void_t<typename staged_input_traits<In, T>::raw_type>> = true;

}  // namespace scankit::device_detail
