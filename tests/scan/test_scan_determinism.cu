// options.deterministic: floating-point scans of real random values (not small integers, so the
// association shows in the bits) give identical bits run after run, with or without a reused
// workspace. The default strategy then runs the deterministic look-back; the other strategies
// have a fixed association anyway and must accept the flag. Below them, the deterministic
// look-back itself on tile states set up by hand: a tile whose group leader shows only its
// aggregate folds the leader's prefix itself, and must get the bits it gets from the leader.
#include <cstring>

#include "scan_test_util.cuh"

namespace scankit::testing {
namespace {

constexpr std::int64_t n = std::int64_t{1} << 24;

template <class T>
std::vector<T> random_reals(std::int64_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<T> d(T(-1), T(1));
  std::vector<T> v(static_cast<std::size_t>(count));
  for (auto& x : v) x = d(rng);
  return v;
}

// Index of the first element whose bits differ, or -1.
template <class T>
std::int64_t first_bit_difference(const std::vector<T>& a, const std::vector<T>& b) {
  if (std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0) return -1;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) return static_cast<std::int64_t>(i);
  }
  return -1;
}

// Close to the exact (long double) prefix sums: |error| <= tol * sum of |x| so far. A loose
// bound (the association may differ from a serial sum), it catches garbage, not rounding.
template <class T>
::testing::AssertionResult close_to_exact(const std::vector<T>& in, const std::vector<T>& out, scan_kind kind, T init,
                                          double tol) {
  long double sum = kind == scan_kind::exclusive ? static_cast<long double>(init) : 0.0L;
  long double magnitude = kind == scan_kind::exclusive ? std::fabs(static_cast<long double>(init)) : 0.0L;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (kind == scan_kind::inclusive) {
      sum += in[i];
      magnitude += std::fabs(static_cast<long double>(in[i]));
    }
    const long double error = std::fabs(static_cast<long double>(out[i]) - sum);
    if (!(error <= tol * magnitude + 1e-3L)) {
      return ::testing::AssertionFailure() << "index " << i << ": got " << show(out[i]) << ", exact "
                                           << static_cast<double>(sum) << " (sum of |x| " << static_cast<double>(magnitude)
                                           << ")";
    }
    if (kind == scan_kind::exclusive) {
      sum += in[i];
      magnitude += std::fabs(static_cast<long double>(in[i]));
    }
  }
  return ::testing::AssertionSuccess();
}

// Runs the scan `runs` times (alternating a reused workspace and none) and expects the same bits
// every time; checks the first result against the exact sums.
template <class T>
void check_same_bits(scan_kind kind, const scan_options& options, int runs) {
  SCANKIT_SEEDED(seed);
  SCOPED_TRACE(std::string(to_string(kind)) + " " + describe(strategy_case{options.strategy, options.deterministic}));
  const std::vector<T> host_in = random_reals<T>(n, seed);
  const T init = static_cast<T>(0.375);
  device_buffer<T> d_in(host_in);
  device_buffer<T> d_out(static_cast<std::size_t>(n));
  workspace ws;
  std::vector<T> first;
  for (int run = 0; run < runs; ++run) {
    d_out.poison();
    precompiled_scan<T>(kind, d_in.data(), d_out.data(), n, init, scan_op::plus, nullptr, run % 2 == 0 ? &ws : nullptr,
                        options);
    sync_device();
    std::vector<T> out = d_out.download();
    if (run == 0) {
      EXPECT_TRUE(close_to_exact(host_in, out, kind, init, 2e-5));
      first = std::move(out);
      continue;
    }
    const std::int64_t differs = first_bit_difference(first, out);
    if (differs >= 0) {
      ADD_FAILURE() << "run " << run << " differs from run 0 at index " << differs << ": " << show(out[differs])
                    << " vs " << show(first[differs]);
      return;
    }
  }
}

TEST(ScanDeterminism, FloatDefaultStrategyHundredRuns) {
  SCANKIT_REQUIRE_GPU();
  scan_options options;
  options.deterministic = true;  // strategy automatic
  check_same_bits<float>(scan_kind::inclusive, options, 100);
}

TEST(ScanDeterminism, FloatExclusive) {
  SCANKIT_REQUIRE_GPU();
  scan_options options;
  options.deterministic = true;
  check_same_bits<float>(scan_kind::exclusive, options, 20);
}

TEST(ScanDeterminism, FloatSmallTiles) {
  SCANKIT_REQUIRE_GPU();
  scan_options options;
  options.deterministic = true;
  options.items_per_thread = 1;  // 65536 tiles: 256 groups of the deterministic look-back
  check_same_bits<float>(scan_kind::inclusive, options, 20);
}

TEST(ScanDeterminism, DoubleDefaultStrategy) {
  SCANKIT_REQUIRE_GPU();
  scan_options options;
  options.deterministic = true;
  check_same_bits<double>(scan_kind::inclusive, options, 20);
}

TEST(ScanDeterminism, EveryStrategyAcceptsTheFlag) {
  SCANKIT_REQUIRE_GPU();
  for (scan_strategy strategy : {scan_strategy::decoupled_look_back, scan_strategy::chained,
                                 scan_strategy::three_launch, scan_strategy::reduce_then_scan}) {
    scan_options options;
    options.deterministic = true;
    options.strategy = strategy;
    check_same_bits<float>(scan_kind::inclusive, options, 10);
  }
}

// The deterministic path is also exact where the inputs allow it: small integers.
TEST(ScanDeterminism, ExactOnSmallIntegers) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::vector<float> host_in = random_values<float>(static_cast<std::size_t>(n), seed);
  device_buffer<float> d_in(host_in);
  device_buffer<float> d_out(static_cast<std::size_t>(n));
  scan_options options;
  options.deterministic = true;
  for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
    SCOPED_TRACE(to_string(kind));
    const std::vector<float> expected = thrust_scan(d_in.data(), n, kind, 3.0f, thrust::plus<float>());
    d_out.poison();
    precompiled_scan<float>(kind, d_in.data(), d_out.data(), n, 3.0f, scan_op::plus, nullptr, nullptr, options);
    sync_device();
    EXPECT_TRUE(equal_vectors(expected, d_out.download()));
  }
}

// Tile states set by hand: publishes (flags[t], values[t]) for every tile with a flag.
template <class T>
__global__ void publish_states_kernel(device_detail::tile_state<T> state, const int* flags, const T* values,
                                      long long tiles) {
  for (long long t = blockIdx.x * blockDim.x + threadIdx.x; t < tiles; t += gridDim.x * blockDim.x) {
    if (flags[t] != device_detail::flag_none) state.publish(t, static_cast<device_detail::tile_flag>(flags[t]), values[t]);
  }
}

// One warp per tile: the deterministic look-back of tiles first, first + 1, ... (all published,
// so nothing waits).
template <int Group, class T>
__global__ void deterministic_prefixes_kernel(device_detail::tile_state<T> state, long long first, T* prefixes) {
  prefixes[blockIdx.x] = device_detail::deterministic_look_back<Group, T>(
      state, first + blockIdx.x, plus_op{}, device_detail::look_back_backoff{0, 0});
}

template <class T, int Group>
class deterministic_states {
 public:
  explicit deterministic_states(long long tiles)
      : tiles_(tiles), slots_(device_detail::tile_state_slots<T>(static_cast<std::size_t>(tiles))),
        flags_(static_cast<std::size_t>(tiles)), values_(static_cast<std::size_t>(tiles)) {
    SCANKIT_CUDA_CHECK(cudaMemset(slots_.data(), 0, slots_.size() * sizeof(std::uint64_t)));
    state_ = device_detail::make_tile_state<T>(slots_.data(), nullptr, static_cast<std::size_t>(tiles));
    state_.epoch = 1;
  }
  void publish(const std::vector<int>& flags, const std::vector<T>& values) {
    flags_.upload(flags);
    values_.upload(values);
    publish_states_kernel<<<8, 256>>>(state_, flags_.data(), values_.data(), tiles_);
    SCANKIT_CUDA_CHECK(cudaGetLastError());
  }
  // Exclusive prefixes of tiles first .. first + count - 1.
  std::vector<T> prefixes(long long first, long long count) {
    device_buffer<T> out(static_cast<std::size_t>(count));
    deterministic_prefixes_kernel<Group><<<static_cast<unsigned>(count), 32>>>(state_, first, out.data());
    SCANKIT_CUDA_CHECK(cudaGetLastError());
    sync_device();
    return out.download();
  }

 private:
  long long tiles_;
  device_buffer<std::uint64_t> slots_;
  device_buffer<int> flags_;
  device_buffer<T> values_;
  device_detail::tile_state<T> state_{};
};

// Every tile's prefix, first with its leader's prefix published (the leader's own path), then
// with the leader showing only its aggregate (the tile folds the leader's prefix from the group
// before): both must give the same bits, and be close to the exact sums.
template <class T, int Group>
void check_leader_prefix_paths() {
  SCANKIT_SEEDED(seed);
  SCOPED_TRACE("groups of " + std::to_string(Group));
  constexpr long long group = Group;
  const long long tiles = 4 * group + 29;
  const std::vector<T> aggregates = random_reals<T>(tiles, seed);
  std::vector<int> flags(static_cast<std::size_t>(tiles), device_detail::flag_aggregate);
  std::vector<T> values = aggregates;
  flags[0] = device_detail::flag_prefix;  // tile 0's prefix is its aggregate
  deterministic_states<T, Group> states(tiles);
  states.publish(flags, values);
  // Leaders in order, each from its predecessor's published prefix, as the kernels publish them.
  for (long long leader = group; leader < tiles; leader += group) {
    const T before = states.prefixes(leader, 1)[0];
    flags[leader] = device_detail::flag_prefix;
    values[leader] = before + aggregates[leader];
    states.publish(flags, values);
  }
  const std::vector<T> from_leaders = states.prefixes(1, tiles - 1);

  long double exact = aggregates[0], magnitude = std::fabs(static_cast<long double>(aggregates[0]));
  for (long long t = 1; t < tiles; ++t) {
    const long double error = std::fabs(static_cast<long double>(from_leaders[t - 1]) - exact);
    ASSERT_LE(error, 1e-5L * magnitude + 1e-6L) << "tile " << t;
    exact += aggregates[t];
    magnitude += std::fabs(static_cast<long double>(aggregates[t]));
  }

  for (long long leader = group; leader < tiles; leader += group) {
    SCOPED_TRACE("group of leader " + std::to_string(leader));
    const T leader_prefix = values[leader];
    flags[leader] = device_detail::flag_aggregate;
    values[leader] = aggregates[leader];
    states.publish(flags, values);
    const long long count = std::min(group, tiles - 1 - leader);  // tiles leader + 1 .. leader + group
    const std::vector<T> folded = states.prefixes(leader + 1, count);
    for (long long i = 0; i < count; ++i) {
      ASSERT_EQ(0, std::memcmp(&folded[i], &from_leaders[leader + i], sizeof(T)))
          << "tile " << leader + 1 + i << ": " << show(folded[i]) << " vs " << show(from_leaders[leader + i]);
    }
    values[leader] = leader_prefix;
    flags[leader] = device_detail::flag_prefix;
    states.publish(flags, values);
  }
}

TEST(DeterministicLookBack, LeaderPrefixFoldedByItsSuccessorsHasTheSameBits) {
  SCANKIT_REQUIRE_GPU();
  // The default group size and the tuned 4-byte one (scan_policy.cuh).
  check_leader_prefix_paths<float, device_detail::deterministic_group_tiles>();
  check_leader_prefix_paths<float, 128>();
  check_leader_prefix_paths<double, device_detail::deterministic_group_tiles>();
}

}  // namespace
}  // namespace scankit::testing
