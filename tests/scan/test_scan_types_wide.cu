// Precompiled API, 4- and 8-byte integers: every built-in operator, inclusive and exclusive,
// default path and every strategy, vs Thrust. 8-byte values use the split tile state.
#include "scan_types.cuh"

namespace scankit::testing {

using wide_types = ::testing::Types<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
INSTANTIATE_TYPED_TEST_SUITE_P(Wide, ScanTypes, wide_types, type_name);

}  // namespace scankit::testing
