// How the template APIs take iterators: what reaches the kernels for each kind of input and
// output (nvcc only).
//
//   T*, const T*, thrust::device_ptr<T>       a contiguous array: the staged kernels where they apply
//   thrust::device_vector<T>::iterator         the same (its device_ptr, as a raw pointer)
//   thrust::transform_iterator<F, array of U>  a staged_input when U has the accumulator's size
//                                              (the transform runs as items leave shared memory)
//   anything else (counting, transform of a counting iterator, discard, transform_output, ...)
//                                              passed as it is to the register kernels, which read
//                                              in[i] and write out[i] = value item by item
#pragma once

#include <iterator>
#include <type_traits>

// SCANKIT_POINTERS_ONLY: for translation units that pass only pointers (the library's precompiled
// overloads, see core/CMakeLists.txt): without Thrust's headers each compiles several seconds
// faster. Such a unit must not see Thrust's iterators at all, or its iterator_view of them would
// differ from everyone else's.
#ifndef SCANKIT_POINTERS_ONLY
#include <thrust/device_ptr.h>
#include <thrust/iterator/detail/normal_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#endif

#include "scankit/device/kernel/staged_input.cuh"

namespace scankit::device_detail {

template <class It>
struct iterator_view {
#ifdef SCANKIT_POINTERS_ONLY
  static_assert(sizeof(It) == 0, "SCANKIT_POINTERS_ONLY: this translation unit must pass pointers only");
#endif
  static It of(It it) { return it; }
};

template <class T>
struct iterator_view<T*> {
  static T* of(T* p) { return p; }
};

#ifndef SCANKIT_POINTERS_ONLY
template <class T>
struct iterator_view<thrust::device_ptr<T>> {
  static T* of(thrust::device_ptr<T> p) { return thrust::raw_pointer_cast(p); }
};

// thrust::device_vector's iterators wrap a device_ptr: the same array.
template <class T>
struct iterator_view<thrust::detail::normal_iterator<thrust::device_ptr<T>>> {
  static T* of(const thrust::detail::normal_iterator<thrust::device_ptr<T>>& it) {
    return thrust::raw_pointer_cast(it.base());
  }
};

// A transform over a contiguous array becomes a staged_input; over anything else it stays a
// transform iterator.
template <class F, class Base, class Reference, class Value>
struct iterator_view<thrust::transform_iterator<F, Base, Reference, Value>> {
  using it = thrust::transform_iterator<F, Base, Reference, Value>;
  static auto of(const it& t) {
    using base_view = decltype(iterator_view<Base>::of(t.base()));
    if constexpr (std::is_pointer_v<base_view>) {
      using raw = std::remove_cv_t<std::remove_pointer_t<base_view>>;
      return staged_input<raw, F>{iterator_view<Base>::of(t.base()), t.functor()};
    } else {
      return t;
    }
  }
};
#endif  // SCANKIT_POINTERS_ONLY

// What the kernels read: contiguous inputs as const pointers.
template <class It>
auto input_view(const It& it) {
  auto view = iterator_view<It>::of(it);
  if constexpr (std::is_pointer_v<decltype(view)>) {
    return static_cast<const std::remove_pointer_t<decltype(view)>*>(view);
  } else {
    return view;
  }
}

template <class It>
auto output_view(const It& it) {
  return iterator_view<It>::of(it);
}

// The items an iterator yields, by its value_type (an array's element type without const; a
// device_ptr's T where *it would be a device_reference).
template <class It>
using iterator_item_t = typename std::iterator_traits<It>::value_type;

// The accumulator type, as CUB chooses it: what the operator returns for (init or input, input).
// scankit's built-in operators take two values of one type; with an initial value of another
// type than the items they are not invocable on the pair, and the accumulator is the initial
// value's type.
template <class Op, class First, class Second, class = void>
struct accumulator_of {
  using type = std::decay_t<First>;
};
template <class Op, class First, class Second>
struct accumulator_of<Op, First, Second, std::enable_if_t<std::is_invocable_v<Op, First, Second>>> {
  using type = std::decay_t<std::invoke_result_t<Op, First, Second>>;
};
template <class Op, class First, class Second>
using accumulator_t = typename accumulator_of<Op, First, Second>::type;

}  // namespace scankit::device_detail
