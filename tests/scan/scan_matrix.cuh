// The strategy x block algorithm x coarsening matrix of the template API, as a typed test suite.
// Each test_scan_matrix_<algorithm>.cu instantiates it for one block algorithm (one translation
// unit per algorithm keeps compile times parallel and short).
//
// Per block algorithm: 6 shapes x 2 value families = 12 policy/operator instantiations.
// Strategies are chosen at run time (scan_options.strategy), so every test runs all four, plus
// the deterministic look-back (decoupled_look_back with options.deterministic; for the affine
// family, whose values are not integers, that is a separate kernel).
#pragma once

#include <string>
#include <type_traits>

#include "scan_test_util.cuh"

namespace scankit::testing {

// int32 sums; the oracle is Thrust on the same device input.
struct int32_plus_family {
  using value_type = std::int32_t;
  using op_type = scankit::plus_op;
  static constexpr const char* name = "int32_plus";
  static value_type init() { return 12345; }
  static std::vector<value_type> input(std::int64_t n, std::uint64_t seed) {
    return random_values<value_type>(static_cast<std::size_t>(n), seed);
  }
  static std::vector<value_type> expected(const value_type* /*host_in*/, const value_type* d_in, std::int64_t n,
                                          scan_kind kind) {
    return thrust_scan(d_in, n, kind, init(), thrust::plus<value_type>());
  }
};

// Composition of affine maps (8 bytes, non-commutative); the oracle is the host reference.
struct affine32_family {
  using value_type = affine32;
  using op_type = compose_affine32;
  static constexpr const char* name = "affine32";
  static value_type init() { return affine32{3u, 7u}; }
  static std::vector<value_type> input(std::int64_t n, std::uint64_t seed) {
    return random_affine32(static_cast<std::size_t>(n), seed);
  }
  static std::vector<value_type> expected(const value_type* host_in, const value_type* /*d_in*/, std::int64_t n,
                                          scan_kind kind) {
    return reference_scan(host_in, n, kind, init(), op_type{});
  }
};

// uint8 sums (wrap-around): 16 items per 16-byte chunk.
struct uint8_plus_family {
  using value_type = std::uint8_t;
  using op_type = scankit::plus_op;
  static constexpr const char* name = "uint8_plus";
  static value_type init() { return 201; }
  static std::vector<value_type> input(std::int64_t n, std::uint64_t seed) {
    return random_values<value_type>(static_cast<std::size_t>(n), seed);
  }
  static std::vector<value_type> expected(const value_type* /*host_in*/, const value_type* d_in, std::int64_t n,
                                          scan_kind kind) {
    return thrust_scan(d_in, n, kind, init(), thrust::plus<value_type>());
  }
};

// Composition of 16-byte affine maps (one value per 16-byte chunk); the oracle is the host reference.
struct affine64_family {
  using value_type = affine64;
  using op_type = compose_affine64;
  static constexpr const char* name = "affine64";
  static value_type init() { return affine64{5u, 11u}; }
  static std::vector<value_type> input(std::int64_t n, std::uint64_t seed) {
    return random_affine64(static_cast<std::size_t>(n), seed);
  }
  static std::vector<value_type> expected(const value_type* host_in, const value_type* /*d_in*/, std::int64_t n,
                                          scan_kind kind) {
    return reference_scan(host_in, n, kind, init(), op_type{});
  }
};

template <int Threads, int ItemsPerThread, block_scan_algorithm Algorithm, class Family>
struct matrix_case {
  using policy = scankit::device::policy<Threads, ItemsPerThread, Algorithm>;
  using family = Family;
  static constexpr int threads = Threads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr std::int64_t tile = static_cast<std::int64_t>(Threads) * ItemsPerThread;
};

// Shapes: one warp; K = 1 (no coarsening, scalar loads); K = 4 (one 16-byte chunk of int32);
// K = 2 with the largest block; K = 16 (the tuned int32 coarsening) at 128 and 256 threads.
template <block_scan_algorithm A>
using matrix_cases = ::testing::Types<
    matrix_case<32, 1, A, int32_plus_family>, matrix_case<256, 1, A, int32_plus_family>,
    matrix_case<128, 4, A, int32_plus_family>, matrix_case<1024, 2, A, int32_plus_family>,
    matrix_case<128, 16, A, int32_plus_family>, matrix_case<256, 16, A, int32_plus_family>,
    matrix_case<32, 1, A, affine32_family>, matrix_case<256, 1, A, affine32_family>,
    matrix_case<128, 4, A, affine32_family>, matrix_case<1024, 2, A, affine32_family>,
    matrix_case<128, 16, A, affine32_family>, matrix_case<256, 16, A, affine32_family>>;

// The staged kernel (scankit::device::staged<Threads, Chunks>); the tile is Threads x Chunks
// 16-byte chunks. items_per_thread names the chunk count in test names.
template <int Threads, int Chunks, class Family, bool LookBackWarp = false>
struct staged_matrix_case {
  using policy = scankit::device::staged<Threads, Chunks, 1, 1, LookBackWarp>;
  using family = Family;
  static constexpr const char* suffix = LookBackWarp ? "_look_back_warp" : "";
  static constexpr int threads = Threads;
  static constexpr int items_per_thread = Chunks;
  static constexpr std::int64_t tile =
      static_cast<std::int64_t>(Threads) * Chunks * 16 / static_cast<std::int64_t>(sizeof(typename Family::value_type));
};

template <class Case, class = void>
struct has_suffix : std::false_type {};
template <class Case>
struct has_suffix<Case, std::void_t<decltype(Case::suffix)>> : std::true_type {};

struct matrix_case_name {
  template <class Case>
  static std::string GetName(int) {
    std::string name = "B" + std::to_string(Case::threads) + "_K" + std::to_string(Case::items_per_thread) + "_" +
                       Case::family::name;
    if constexpr (has_suffix<Case>::value) name += Case::suffix;
    return name;
  }
};

template <class Case>
class ScanMatrix : public ::testing::Test {
 protected:
  using family = typename Case::family;
  using T = typename family::value_type;
  using Op = typename family::op_type;
  using Policy = typename Case::policy;

  // Out of place: every size, every strategy; the workspace alternates between a reused one and
  // none (temporary storage). Checks the output, the guard after it, and that `in` is unchanged.
  void check_out_of_place(scan_kind kind) {
    SCANKIT_SEEDED(seed);
    std::mt19937_64 rng(seed);
    workspace ws;
    int run = 0;
    for (std::int64_t n : sizes_around_tile(Case::tile, rng())) {
      const std::vector<T> host_in = family::input(n, rng());
      device_buffer<T> d_in(host_in);
      const std::vector<T> expected = family::expected(host_in.data(), d_in.data(), n, kind);
      device_buffer<T> d_out(static_cast<std::size_t>(n) + guard_items);
      for (strategy_case strategy : all_strategy_cases) {
        SCOPED_TRACE(std::string(to_string(kind)) + " n = " + std::to_string(n) + " " + describe(strategy) +
                     (run % 2 == 0 ? " (reused workspace)" : " (no workspace)"));
        d_out.poison();
        device_scan<Policy>(kind, d_in.data(), d_out.data(), n, family::init(), Op{}, nullptr,
                            run % 2 == 0 ? &ws : nullptr, options_for(strategy));
        sync_device();
        ++run;
        const std::vector<T> out = d_out.download();
        EXPECT_TRUE(equal_ranges(expected.data(), out.data(), n));
        EXPECT_TRUE(still_poisoned(out, static_cast<std::size_t>(n), out.size()));
      }
      EXPECT_TRUE(equal_vectors(host_in, d_in.download())) << "the input was modified, n = " << n;
    }
  }

  // out == in.
  void check_in_place() {
    SCANKIT_SEEDED(seed);
    std::mt19937_64 rng(seed);
    workspace ws;
    const std::int64_t tile = Case::tile;
    const std::int64_t sizes[] = {1, 33, tile + 1, 7 * tile + 5,
                                  random_non_multiple(rng, 260 * tile, 300 * tile + 1000, tile)};
    for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
      for (std::int64_t n : sizes) {
        const std::vector<T> host_in = family::input(n, rng());
        device_buffer<T> d_in(host_in);
        const std::vector<T> expected = family::expected(host_in.data(), d_in.data(), n, kind);
        device_buffer<T> d_data(static_cast<std::size_t>(n) + guard_items);
        for (strategy_case strategy : all_strategy_cases) {
          SCOPED_TRACE(std::string("in place ") + to_string(kind) + " n = " + std::to_string(n) + " " +
                       describe(strategy));
          d_data.poison();
          upload_prefix(d_data, host_in.data(), host_in.size());
          device_scan<Policy>(kind, d_data.data(), d_data.data(), n, family::init(), Op{}, nullptr, &ws,
                              options_for(strategy));
          sync_device();
          const std::vector<T> out = d_data.download();
          EXPECT_TRUE(equal_ranges(expected.data(), out.data(), n));
          EXPECT_TRUE(still_poisoned(out, static_cast<std::size_t>(n), out.size()));
        }
      }
    }
  }

  // Input and output that start off the 16-byte grid (the vector loads must fall back).
  void check_unaligned() {
    SCANKIT_SEEDED(seed);
    std::mt19937_64 rng(seed);
    const std::int64_t tile = Case::tile;
    constexpr std::size_t in_offset = 1, out_offset = 3;
    for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
      for (std::int64_t n : {3 * tile, 7 * tile + 5}) {
        const std::vector<T> host_in = family::input(n, rng());
        device_buffer<T> d_in(static_cast<std::size_t>(n) + in_offset);
        upload_prefix(d_in, host_in.data(), host_in.size(), in_offset);
        const std::vector<T> expected = family::expected(host_in.data(), d_in.data() + in_offset, n, kind);
        device_buffer<T> d_out(static_cast<std::size_t>(n) + out_offset + guard_items);
        for (strategy_case strategy : all_strategy_cases) {
          SCOPED_TRACE(std::string("unaligned ") + to_string(kind) + " n = " + std::to_string(n) + " " +
                       describe(strategy));
          d_out.poison();
          device_scan<Policy>(kind, d_in.data() + in_offset, d_out.data() + out_offset, n, family::init(), Op{},
                              nullptr, nullptr, options_for(strategy));
          sync_device();
          const std::vector<T> out = d_out.download();
          EXPECT_TRUE(equal_ranges(expected.data(), out.data() + out_offset, n));
          EXPECT_TRUE(still_poisoned(out, 0, out_offset));
          EXPECT_TRUE(still_poisoned(out, out_offset + static_cast<std::size_t>(n), out.size()));
        }
      }
    }
  }
};

TYPED_TEST_SUITE_P(ScanMatrix);

TYPED_TEST_P(ScanMatrix, Inclusive) {
  SCANKIT_REQUIRE_GPU();
  this->check_out_of_place(scan_kind::inclusive);
}

TYPED_TEST_P(ScanMatrix, Exclusive) {
  SCANKIT_REQUIRE_GPU();
  this->check_out_of_place(scan_kind::exclusive);
}

TYPED_TEST_P(ScanMatrix, InPlace) {
  SCANKIT_REQUIRE_GPU();
  this->check_in_place();
}

TYPED_TEST_P(ScanMatrix, Unaligned) {
  SCANKIT_REQUIRE_GPU();
  this->check_unaligned();
}

REGISTER_TYPED_TEST_SUITE_P(ScanMatrix, Inclusive, Exclusive, InPlace, Unaligned);

}  // namespace scankit::testing
