// Every value type of the precompiled API x every built-in operator it supports, through the
// precompiled entry points, compared with Thrust on the same device input. A typed test suite;
// test_scan_types_*.cu instantiate it for groups of types (separate translation units keep the
// Thrust instantiations compiling in parallel).
#pragma once

#include "scan_test_util.cuh"

namespace scankit::testing {

// The Thrust functor and scankit's host functor of one built-in operator.
template <class ThrustOp, class HostOp>
struct op_pair {
  ThrustOp thrust_op;
  HostOp host_op;
};

// Calls fn(op, op_pair) for every built-in operator T supports.
template <class T, class Fn>
void for_each_supported_op(Fn&& fn) {
  fn(scan_op::plus, op_pair<thrust::plus<T>, plus_op>{});
  fn(scan_op::maximum, op_pair<thrust::maximum<T>, maximum_op>{});
  fn(scan_op::minimum, op_pair<thrust::minimum<T>, minimum_op>{});
  if constexpr (std::is_integral_v<T>) {
    fn(scan_op::bit_and, op_pair<thrust::bit_and<T>, bit_and_op>{});
    fn(scan_op::bit_or, op_pair<thrust::bit_or<T>, bit_or_op>{});
    fn(scan_op::bit_xor, op_pair<thrust::bit_xor<T>, bit_xor_op>{});
  }
}

// Thrust's inclusive scan of the device input; the exclusive result follows from it on the host,
// exclusive[0] = init and exclusive[i] = init op inclusive[i-1] (exact for these operators and
// inputs). One Thrust instantiation per type and operator instead of two keeps compile time down.
template <class T, class Ops>
std::vector<T> thrust_expected(const T* d_in, std::int64_t n, scan_kind kind, T init, Ops ops) {
  std::vector<T> inclusive = thrust_inclusive_scan(d_in, n, ops.thrust_op);
  if (kind == scan_kind::inclusive) return inclusive;
  std::vector<T> exclusive(inclusive.size());
  for (std::size_t i = 0; i < exclusive.size(); ++i) exclusive[i] = i == 0 ? init : ops.host_op(init, inclusive[i - 1]);
  return exclusive;
}

// Integers are generated as an "ordinal" in [0, 2^bits) that maps monotonically onto T's range.
template <class T>
T from_ordinal(std::uint64_t ordinal) {
  using U = std::make_unsigned_t<T>;
  U u = static_cast<U>(ordinal);
  if constexpr (std::is_signed_v<T>) u = static_cast<U>(u ^ static_cast<U>(U(1) << (8 * sizeof(T) - 1)));
  return static_cast<T>(u);
}

// Inputs that make each operator informative across tiles: running maxima/minima and AND/OR
// masks that change only at rare "spikes", so a tile that lost its prefix cannot pass by accident;
// never all zeros.
template <class T>
std::vector<T> op_input(scan_op op, std::int64_t n, std::mt19937_64& rng) {
  std::vector<T> v(static_cast<std::size_t>(n));
  if (op == scan_op::plus) return random_values<T>(v.size(), rng());
  const auto spike = [&rng] { return (rng() & 4095u) == 0; };  // about one in 4096
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_int_distribution<int> small(-8, 8), large(-1'000'000, 1'000'000);
    for (auto& x : v) x = static_cast<T>(spike() ? large(rng) : small(rng));
  } else {
    constexpr int bits = 8 * sizeof(T);
    const std::uint64_t all = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    const std::uint64_t quarter = std::uint64_t{1} << (bits - 2);
    for (auto& x : v) {
      std::uint64_t o = 0;
      switch (op) {
        case scan_op::maximum: o = spike() ? (rng() & all) : rng() % quarter; break;
        case scan_op::minimum: o = spike() ? (rng() & all) : all - rng() % quarter; break;
        case scan_op::bit_and: o = spike() ? all ^ (std::uint64_t{1} << (rng() % bits)) : all ^ (rng() & 3u); break;
        case scan_op::bit_or: o = spike() ? std::uint64_t{1} << (rng() % bits) : (rng() & 3u); break;
        default: o = rng() & all; break;  // bit_xor: uniform bits
      }
      if (op == scan_op::bit_and || op == scan_op::bit_or || op == scan_op::bit_xor) {
        x = static_cast<T>(static_cast<std::make_unsigned_t<T>>(o));  // plain bit pattern
      } else {
        x = from_ordinal<T>(o);
      }
    }
  }
  return v;
}

template <class T>
T op_init(scan_op op, std::mt19937_64& rng) {
  return op_input<T>(op, 1, rng)[0];
}

template <class T>
class ScanTypes : public ::testing::Test {
 protected:
  static constexpr std::int64_t tile = tuned_tile_items<T>();

  // One size: input, Thrust's answer, then the precompiled scan (poisoned output with a guard).
  template <class Ops>
  void check_one(scan_kind kind, scan_op op, Ops ops, std::int64_t n, std::mt19937_64& rng,
                 const scan_options& options, workspace* ws) {
    SCOPED_TRACE(std::string(to_string(kind)) + " " + scankit::to_string(op) + " n = " + std::to_string(n) + " " +
                 describe(strategy_case{options.strategy, options.deterministic}) +
                 (ws != nullptr ? " (workspace)" : ""));
    const std::vector<T> host_in = op_input<T>(op, n, rng);
    const T init = op_init<T>(op, rng);
    device_buffer<T> d_in(host_in);
    const std::vector<T> expected = thrust_expected(d_in.data(), n, kind, init, ops);
    device_buffer<T> d_out(static_cast<std::size_t>(n) + guard_items);
    d_out.poison();
    precompiled_scan<T>(kind, d_in.data(), d_out.data(), n, init, op, nullptr, ws, options);
    sync_device();
    const std::vector<T> out = d_out.download();
    EXPECT_TRUE(equal_ranges(expected.data(), out.data(), n));
    EXPECT_TRUE(still_poisoned(out, static_cast<std::size_t>(n), out.size()));
  }

  // The default path (scan_options{}): every operator, every size.
  void check_default_path(scan_kind kind) {
    SCANKIT_SEEDED(seed);
    std::mt19937_64 rng(seed);
    workspace ws;
    int run = 0;
    for_each_supported_op<T>([&](scan_op op, auto ops) {
      for (std::int64_t n : sizes_around_tile(tile, rng())) {
        check_one(kind, op, ops, n, rng, scan_options{}, run++ % 2 == 0 ? &ws : nullptr);
      }
    });
  }

  // Every explicit strategy (and the deterministic look-back) for every operator, on sizes
  // spanning several tiles and, for the deterministic look-back, several groups (64 or 128 tiles).
  void check_every_strategy() {
    SCANKIT_SEEDED(seed);
    std::mt19937_64 rng(seed);
    workspace ws;
    for_each_supported_op<T>([&](scan_op op, auto ops) {
      for (strategy_case strategy : all_strategy_cases) {
        const scan_options options = options_for(strategy);
        for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
          for (std::int64_t n : {tile + 1, 33 * tile + 3, random_non_multiple(rng, 40 * tile, 2'000'000, tile),
                                 600 * tile + 7}) {
            check_one(kind, op, ops, n, rng, options, &ws);
          }
        }
      }
    });
  }

  // Sums in place and at addresses off the 16-byte grid.
  void check_in_place_and_unaligned() {
    SCANKIT_SEEDED(seed);
    std::mt19937_64 rng(seed);
    for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
      for (std::int64_t n : {std::int64_t{1}, tile + 1, 5 * tile + 3}) {
        SCOPED_TRACE(std::string(to_string(kind)) + " n = " + std::to_string(n));
        const std::vector<T> host_in = op_input<T>(scan_op::plus, n, rng);
        const T init = op_init<T>(scan_op::plus, rng);
        device_buffer<T> d_in(host_in);
        const std::vector<T> expected =
            thrust_expected(d_in.data(), n, kind, init, op_pair<thrust::plus<T>, plus_op>{});

        // In place.
        device_buffer<T> d_data(static_cast<std::size_t>(n) + guard_items);
        d_data.poison();
        upload_prefix(d_data, host_in.data(), host_in.size());
        precompiled_scan<T>(kind, d_data.data(), d_data.data(), n, init, scan_op::plus, nullptr, nullptr, {});
        sync_device();
        std::vector<T> out = d_data.download();
        EXPECT_TRUE(equal_ranges(expected.data(), out.data(), n)) << "in place";
        EXPECT_TRUE(still_poisoned(out, static_cast<std::size_t>(n), out.size())) << "in place";

        // Unaligned: in at element 1, out at element 3.
        device_buffer<T> d_in_shifted(static_cast<std::size_t>(n) + 1);
        upload_prefix(d_in_shifted, host_in.data(), host_in.size(), 1);
        device_buffer<T> d_out_shifted(static_cast<std::size_t>(n) + 3 + guard_items);
        d_out_shifted.poison();
        precompiled_scan<T>(kind, d_in_shifted.data() + 1, d_out_shifted.data() + 3, n, init, scan_op::plus, nullptr,
                            nullptr, {});
        sync_device();
        out = d_out_shifted.download();
        EXPECT_TRUE(equal_ranges(expected.data(), out.data() + 3, n)) << "unaligned";
        EXPECT_TRUE(still_poisoned(out, 0, 3)) << "unaligned";
        EXPECT_TRUE(still_poisoned(out, static_cast<std::size_t>(n) + 3, out.size())) << "unaligned";
      }
    }
  }
};

TYPED_TEST_SUITE_P(ScanTypes);

TYPED_TEST_P(ScanTypes, DefaultPathInclusive) {
  SCANKIT_REQUIRE_GPU();
  this->check_default_path(scan_kind::inclusive);
}

TYPED_TEST_P(ScanTypes, DefaultPathExclusive) {
  SCANKIT_REQUIRE_GPU();
  this->check_default_path(scan_kind::exclusive);
}

TYPED_TEST_P(ScanTypes, EveryStrategy) {
  SCANKIT_REQUIRE_GPU();
  this->check_every_strategy();
}

TYPED_TEST_P(ScanTypes, InPlaceAndUnaligned) {
  SCANKIT_REQUIRE_GPU();
  this->check_in_place_and_unaligned();
}

REGISTER_TYPED_TEST_SUITE_P(ScanTypes, DefaultPathInclusive, DefaultPathExclusive, EveryStrategy,
                            InPlaceAndUnaligned);

struct type_name {
  template <class T>
  static std::string GetName(int) {
    if constexpr (std::is_same_v<T, float>) return "float";
    else if constexpr (std::is_same_v<T, double>) return "double";
    else return std::string(std::is_signed_v<T> ? "int" : "uint") + std::to_string(8 * sizeof(T));
  }
};

}  // namespace scankit::testing
