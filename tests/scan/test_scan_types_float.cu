// Precompiled API, float and double: plus (small-integer inputs, so every association gives the
// same exact result), maximum and minimum, vs Thrust.
#include "scan_types.cuh"

namespace scankit::testing {

using floating_types = ::testing::Types<float, double>;
INSTANTIATE_TYPED_TEST_SUITE_P(Floating, ScanTypes, floating_types, type_name);

}  // namespace scankit::testing
