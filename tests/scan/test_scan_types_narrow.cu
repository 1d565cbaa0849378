// Precompiled API, 1- and 2-byte integers: every built-in operator, inclusive and exclusive,
// default path and every strategy, vs Thrust (narrow sums wrap; Thrust runs on the same type).
#include "scan_types.cuh"

namespace scankit::testing {

using narrow_types = ::testing::Types<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t>;
INSTANTIATE_TYPED_TEST_SUITE_P(Narrow, ScanTypes, narrow_types, type_name);

}  // namespace scankit::testing
