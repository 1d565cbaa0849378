// Warp shuffles for any trivially copyable type: the value travels as 4-byte words.
#pragma once

#include <cstring>
#include <type_traits>

namespace scankit::device_detail {

constexpr unsigned full_warp_mask = 0xffffffffu;

template <class T>
struct shuffle_words {
  static_assert(std::is_trivially_copyable_v<T>, "warp shuffles need a trivially copyable type");
  static constexpr int count = (sizeof(T) + 3) / 4;
};

#define SCANKIT_DEFINE_SHUFFLE(name, intrinsic, arg_type)                                   \
  template <class T>                                                                        \
  __device__ __forceinline__ T name(const T& value, arg_type arg, unsigned mask = full_warp_mask) { \
    if constexpr (sizeof(T) == 4 && std::is_arithmetic_v<T>) {                              \
      return intrinsic(mask, value, arg);                                                   \
    } else {                                                                                \
      unsigned words[shuffle_words<T>::count] = {};                                         \
      memcpy(words, &value, sizeof(T));                                                     \
      _Pragma("unroll") for (int w = 0; w < shuffle_words<T>::count; ++w) {                 \
        words[w] = intrinsic(mask, words[w], arg);                                          \
      }                                                                                     \
      T result;                                                                             \
      memcpy(&result, words, sizeof(T));                                                    \
      return result;                                                                        \
    }                                                                                       \
  }

SCANKIT_DEFINE_SHUFFLE(shuffle_up, __shfl_up_sync, unsigned)
SCANKIT_DEFINE_SHUFFLE(shuffle_down, __shfl_down_sync, unsigned)
SCANKIT_DEFINE_SHUFFLE(shuffle_index, __shfl_sync, int)

#undef SCANKIT_DEFINE_SHUFFLE

__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x & 31u); }
__device__ __forceinline__ int warp_id() { return static_cast<int>(threadIdx.x >> 5); }

}  // namespace scankit::device_detail
