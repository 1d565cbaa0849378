// What the template APIs make of Thrust's iterators (scankit/device/iterators.cuh), with that
// header included first, as a caller may: Thrust's arrays become raw pointers (the staged
// kernels), a transform over an array becomes a staged_input, anything else reaches the register
// kernels as it is. Host only: the views wrap pointers and never touch the memory.
#include "scankit/device/iterators.cuh"

#include <gtest/gtest.h>

#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <type_traits>

namespace {

namespace sd = scankit::device_detail;

struct negate {
  __host__ __device__ float operator()(float x) const { return -x; }
};

struct twice {
  __host__ __device__ int operator()(int i) const { return 2 * i; }
};

TEST(IteratorViews, ThrustArraysBecomeRawPointers) {
  int storage[8];
  const thrust::device_ptr<int> p(storage);
  const auto in = sd::input_view(p);
  static_assert(std::is_same_v<decltype(in), const int* const>);
  EXPECT_EQ(in, storage);
  const auto out = sd::output_view(p + 2);
  static_assert(std::is_same_v<decltype(out), int* const>);
  EXPECT_EQ(out, storage + 2);

  const thrust::device_vector<int>::iterator it(p + 3);
  const auto from_vector = sd::input_view(it);
  static_assert(std::is_same_v<decltype(from_vector), const int* const>);
  EXPECT_EQ(from_vector, storage + 3);
}

TEST(IteratorViews, TransformOfAnArrayIsStaged) {
  float storage[8];
  const auto over_pointer = sd::input_view(thrust::make_transform_iterator(static_cast<const float*>(storage), negate{}));
  static_assert(std::is_same_v<decltype(over_pointer), const sd::staged_input<float, negate>>);
  EXPECT_EQ(over_pointer.data, storage);

  const auto over_device_ptr =
      sd::input_view(thrust::make_transform_iterator(thrust::device_ptr<float>(storage + 1), negate{}));
  static_assert(std::is_same_v<decltype(over_device_ptr), const sd::staged_input<float, negate>>);
  EXPECT_EQ(over_device_ptr.data, storage + 1);
}

TEST(IteratorViews, OtherIteratorsPassThrough) {
  const thrust::counting_iterator<int> count(5);
  const auto counted = sd::input_view(count);
  static_assert(std::is_same_v<decltype(counted), const thrust::counting_iterator<int>>);
  EXPECT_EQ(*counted, 5);

  const auto transformed = thrust::make_transform_iterator(count, twice{});
  const auto view = sd::input_view(transformed);
  static_assert(std::is_same_v<std::remove_const_t<decltype(view)>, std::remove_const_t<decltype(transformed)>>);
  EXPECT_EQ(view[1], 12);
}

}  // namespace
