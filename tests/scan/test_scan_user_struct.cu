// User value types and operators through the template API (tuned shape), across many tiles,
// vs the host reference. The single-pass strategies are the point: values larger than 4 bytes
// travel through the split tile state (payload, then a release store of the status; acquire,
// then the payload), values up to 4 bytes through the packed 64-bit slot.
#include "scan_test_util.cuh"

namespace scankit::testing {
namespace {

// 16 bytes, commutative: running sum, maximum and count.
struct stats16 {
  std::int64_t sum;
  std::int32_t max;
  std::int32_t count;
};
struct combine_stats {
  __host__ __device__ stats16 operator()(const stats16& a, const stats16& b) const {
    return stats16{a.sum + b.sum, a.max < b.max ? b.max : a.max, a.count + b.count};
  }
};
bool operator==(const stats16& x, const stats16& y) { return x.sum == y.sum && x.max == y.max && x.count == y.count; }
std::ostream& operator<<(std::ostream& os, const stats16& s) {
  return os << "{sum=" << s.sum << ", max=" << s.max << ", count=" << s.count << "}";
}

// 16 bytes, non-commutative: 2x2 matrices over Z/2^32 of the form [[odd, *], [even, odd]]
// (closed under products and invertible, so long products never collapse to zero).
struct mat2 {
  std::uint32_t m00, m01, m10, m11;
};
struct mat2_product {
  __host__ __device__ mat2 operator()(const mat2& x, const mat2& y) const {
    return mat2{x.m00 * y.m00 + x.m01 * y.m10, x.m00 * y.m01 + x.m01 * y.m11, x.m10 * y.m00 + x.m11 * y.m10,
                x.m10 * y.m01 + x.m11 * y.m11};
  }
};
bool operator==(const mat2& x, const mat2& y) {
  return x.m00 == y.m00 && x.m01 == y.m01 && x.m10 == y.m10 && x.m11 == y.m11;
}
std::ostream& operator<<(std::ostream& os, const mat2& m) {
  return os << "[[" << m.m00 << ", " << m.m01 << "], [" << m.m10 << ", " << m.m11 << "]]";
}

// 12 bytes (not a whole number of 16-byte chunks, three shuffle words), non-commutative: the
// Heisenberg group, upper unitriangular 3x3 matrices [[1, a, c], [0, 1, b], [0, 0, 1]].
struct heisenberg {
  std::uint32_t a, b, c;
};
struct heisenberg_product {
  __host__ __device__ heisenberg operator()(const heisenberg& x, const heisenberg& y) const {
    return heisenberg{x.a + y.a, x.b + y.b, x.c + y.c + x.a * y.b};
  }
};
bool operator==(const heisenberg& x, const heisenberg& y) { return x.a == y.a && x.b == y.b && x.c == y.c; }
std::ostream& operator<<(std::ostream& os, const heisenberg& h) {
  return os << "{a=" << h.a << ", b=" << h.b << ", c=" << h.c << "}";
}

// 4 bytes (packed tile state), non-commutative: affine maps mod 2^16.
struct affine16 {
  std::uint16_t a, b;
};
struct compose_affine16 {
  __host__ __device__ affine16 operator()(const affine16& f, const affine16& g) const {
    // Multiply in 32 bits: uint16 * uint16 would promote to int and could overflow.
    return affine16{static_cast<std::uint16_t>(std::uint32_t{g.a} * f.a),
                    static_cast<std::uint16_t>(std::uint32_t{g.a} * f.b + g.b)};
  }
};
bool operator==(const affine16& x, const affine16& y) { return x.a == y.a && x.b == y.b; }
std::ostream& operator<<(std::ostream& os, const affine16& f) { return os << "{a=" << f.a << ", b=" << f.b << "}"; }

struct stats16_family {
  using value_type = stats16;
  using op_type = combine_stats;
  static stats16 random(std::mt19937_64& rng) {
    const std::uint64_t r = rng();
    return stats16{static_cast<std::int64_t>(r % 2'000'001) - 1'000'000, static_cast<std::int32_t>(r >> 33), 1};
  }
};
struct mat2_family {
  using value_type = mat2;
  using op_type = mat2_product;
  static mat2 random(std::mt19937_64& rng) {
    const std::uint64_t r = rng(), s = rng();
    return mat2{static_cast<std::uint32_t>(r) | 1u, static_cast<std::uint32_t>(r >> 32),
                static_cast<std::uint32_t>(s) & ~1u, static_cast<std::uint32_t>(s >> 32) | 1u};
  }
};
struct heisenberg_family {
  using value_type = heisenberg;
  using op_type = heisenberg_product;
  static heisenberg random(std::mt19937_64& rng) {
    const std::uint64_t r = rng();
    return heisenberg{static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(r >> 32),
                      static_cast<std::uint32_t>(rng())};
  }
};
struct affine16_family {
  using value_type = affine16;
  using op_type = compose_affine16;
  static affine16 random(std::mt19937_64& rng) {
    const std::uint64_t r = rng();
    return affine16{static_cast<std::uint16_t>(r | 1u), static_cast<std::uint16_t>(r >> 16)};
  }
};

template <class Family>
class ScanUserStruct : public ::testing::Test {
 protected:
  using T = typename Family::value_type;
  using Op = typename Family::op_type;
  static constexpr std::int64_t tile = tuned_tile_items<T>();

  static std::vector<T> input(std::int64_t n, std::mt19937_64& rng) {
    std::vector<T> v(static_cast<std::size_t>(n));
    for (auto& x : v) x = Family::random(rng);
    return v;
  }

  void check(const std::vector<strategy_case>& strategies, const std::vector<std::int64_t>& sizes, int repeats) {
    SCANKIT_SEEDED(seed);
    std::mt19937_64 rng(seed);
    workspace ws;
    for (std::int64_t n : sizes) {
      const std::vector<T> host_in = input(n, rng);
      device_buffer<T> d_in(host_in);
      device_buffer<T> d_out(static_cast<std::size_t>(n) + guard_items);
      for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
        const T init = Family::random(rng);
        const std::vector<T> expected = reference_scan(host_in.data(), n, kind, init, Op{});
        for (strategy_case strategy : strategies) {
          for (int r = 0; r < repeats; ++r) {
            SCOPED_TRACE(std::string(to_string(kind)) + " n = " + std::to_string(n) + " " + describe(strategy) +
                         " repeat " + std::to_string(r));
            d_out.poison();
            device_scan<scankit::device::tuned>(kind, d_in.data(), d_out.data(), n, init, Op{}, nullptr,
                                                r % 2 == 0 ? &ws : nullptr, options_for(strategy));
            sync_device();
            const std::vector<T> out = d_out.download();
            EXPECT_TRUE(equal_ranges(expected.data(), out.data(), n));
            EXPECT_TRUE(still_poisoned(out, static_cast<std::size_t>(n), out.size()));
          }
        }
      }
    }
  }
};

using user_families = ::testing::Types<stats16_family, mat2_family, heisenberg_family, affine16_family>;

struct family_name {
  template <class F>
  static std::string GetName(int) {
    if constexpr (std::is_same_v<F, stats16_family>) return "stats16";
    else if constexpr (std::is_same_v<F, mat2_family>) return "mat2";
    else if constexpr (std::is_same_v<F, heisenberg_family>) return "heisenberg12";
    else return "affine16";
  }
};

TYPED_TEST_SUITE(ScanUserStruct, user_families, family_name);

TYPED_TEST(ScanUserStruct, OperatorIsNotCommutativeUnlessStats) {
  std::mt19937_64 rng(1);
  using Family = TypeParam;
  using Op = typename Family::op_type;
  const auto x = Family::random(rng), y = Family::random(rng);
  if constexpr (std::is_same_v<Family, stats16_family>) {
    EXPECT_TRUE(Op{}(x, y) == Op{}(y, x));
  } else {
    EXPECT_FALSE(Op{}(x, y) == Op{}(y, x)) << "the test operator should not commute";
  }
}

// The single-pass strategies on about a million items, several times each.
TYPED_TEST(ScanUserStruct, SinglePassManyTiles) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t tile = TestFixture::tile;
  this->check({{scan_strategy::decoupled_look_back, false}, {scan_strategy::chained, false},
               {scan_strategy::decoupled_look_back, true}},
              {1'000'000, 33 * tile + 3, 300 * tile + 1}, 4);
}

TYPED_TEST(ScanUserStruct, EveryStrategyAroundTheTile) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::vector<strategy_case> strategies(std::begin(all_strategy_cases), std::end(all_strategy_cases));
  this->check(strategies, sizes_around_tile(TestFixture::tile, seed, 1'500'000), 1);
}

TYPED_TEST(ScanUserStruct, InPlace) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  using T = typename TestFixture::T;
  using Op = typename TestFixture::Op;
  std::mt19937_64 rng(seed);
  const std::int64_t n = 777'777;
  const std::vector<T> host_in = TestFixture::input(n, rng);
  device_buffer<T> d_data(static_cast<std::size_t>(n));
  for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
    const T init = TypeParam::random(rng);
    const std::vector<T> expected = reference_scan(host_in.data(), n, kind, init, Op{});
    for (strategy_case strategy : all_strategy_cases) {
      SCOPED_TRACE(std::string(to_string(kind)) + " " + describe(strategy));
      d_data.upload(host_in);
      device_scan<scankit::device::tuned>(kind, d_data.data(), d_data.data(), n, init, Op{}, nullptr, nullptr,
                                          options_for(strategy));
      sync_device();
      EXPECT_TRUE(equal_vectors(expected, d_data.download()));
    }
  }
}

TYPED_TEST(ScanUserStruct, WorkspaceBytesMatchWhatTheScanTakes) {
  SCANKIT_REQUIRE_GPU();
  using T = typename TestFixture::T;
  using Op = typename TestFixture::Op;
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const std::int64_t n = 100 * TestFixture::tile + 11;
  const std::vector<T> host_in = TestFixture::input(n, rng);
  const std::vector<T> expected = reference_scan(host_in.data(), n, scan_kind::inclusive, T{}, Op{});
  device_buffer<T> d_in(host_in);
  device_buffer<T> d_out(static_cast<std::size_t>(n));
  for (strategy_case strategy : all_strategy_cases) {
    SCOPED_TRACE(describe(strategy));
    const scan_options options = options_for(strategy);
    const std::size_t bytes = device_workspace_bytes<T, Op>(n, options);
    ASSERT_GT(bytes, 0u);
    device_buffer<unsigned char> memory(bytes);
    workspace ws(memory.data(), bytes);  // exactly what the call needs
    for (int r = 0; r < 3; ++r) {
      d_out.poison();
      device_scan<scankit::device::tuned>(scan_kind::inclusive, d_in.data(), d_out.data(), n, T{}, Op{}, nullptr, &ws,
                                          options);
      sync_device();
      EXPECT_TRUE(equal_vectors(expected, d_out.download())) << "repeat " << r;
    }
  }
}

}  // namespace
}  // namespace scankit::testing
