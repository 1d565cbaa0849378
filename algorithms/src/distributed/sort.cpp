// The distributed sample sort (scankit/distributed/sort.hpp): host code over scankit's
// precompiled radix sort, the two kernels of sort_kernels.cu and NCCL exchanges.
#include "scankit/distributed/sort.hpp"

#include <nccl.h>

#include <string>
#include <type_traits>
#include <vector>

#include "collectives.hpp"
#include "scankit/detail/nvtx_range.hpp"
#include "scankit/distributed/sample_sort_plan.hpp"
#include "scankit/error.hpp"
#include "scankit/sort.hpp"
#include "sort_kernels.hpp"

namespace scankit::distributed {

namespace {

// Items travel as unsigned words of their size through the partition (a radix sort moves values
// bit for bit) and the exchanges (bytes).
template <class T>
using bits_of = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

int bucket_bits(int ranks) {
  int bits = 0;
  while ((1 << bits) < ranks) ++bits;
  return bits;
}

// Keys K; values as their bit words VB (null values_in: keys only).
template <class K, class VB>
shard_info sample_sort(communicator& comm, const K* keys_in, const VB* values_in, std::int64_t n, K* keys_out,
                       VB* values_out, std::int64_t out_capacity, cudaStream_t stream, workspace* ws,
                       const sample_sort_options& options, const std::string& name) {
  const ::scankit::detail::nvtx_range nvtx(name.c_str());
  using KB = bits_of<K>;
  const bool pairs = values_in != nullptr || values_out != nullptr;
  const int ranks = comm.size(), rank = comm.rank();

  // ---- Arguments, before any launch or collective ----
  comm.check_ready(name.c_str());
  if (n < 0 || out_capacity < 0) throw error(name + ": negative n or capacity");
  if (n > 0 && keys_in == nullptr) throw error(name + ": null keys_in with n > 0");
  if (out_capacity > 0 && keys_out == nullptr) throw error(name + ": null keys_out with a positive capacity");
  if (pairs && ((n > 0 && values_in == nullptr) || (out_capacity > 0 && values_out == nullptr))) {
    throw error(name + ": null values with n or capacity > 0");
  }
  if (options.samples_per_rank < 1) throw error(name + ": samples_per_rank must be at least 1");
  if (ranks > detail::max_sort_ranks) {
    throw error(name + ": at most " + std::to_string(detail::max_sort_ranks) + " ranks (got " + std::to_string(ranks) + ")");
  }
  const auto in_bytes = static_cast<std::size_t>(n), out_bytes = static_cast<std::size_t>(out_capacity);
  if (detail::overlap(keys_in, in_bytes * sizeof(K), keys_out, out_bytes * sizeof(K)) ||
      (pairs && (detail::overlap(values_in, in_bytes * sizeof(VB), values_out, out_bytes * sizeof(VB)) ||
                 detail::overlap(keys_out, out_bytes * sizeof(K), values_out, out_bytes * sizeof(VB))))) {
    throw error(name + ": outputs overlap the inputs or each other");
  }

  // ---- 0. Agree on the call; sizes and capacities of all ranks ----
  detail::call_record mine;
  mine.signature = detail::call_signature(name + "/" + std::to_string(options.samples_per_rank) + "/" +
                                          std::to_string(options.seed));
  mine.values[0] = n;
  mine.values[1] = out_capacity;
  const auto records = detail::agree_on_call(comm, mine, stream, name + ": all-gather of the sizes");
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) sizes[static_cast<std::size_t>(r)] = records[static_cast<std::size_t>(r)].values[0];
  const std::int64_t total = shard_offsets(sizes).back();
  for (int r = 0; r < ranks; ++r) {
    const std::int64_t share = even_shard(total, ranks, r).size();
    if (records[static_cast<std::size_t>(r)].values[1] < share) {
      throw error(name + ": rank " + std::to_string(r) + " has room for " +
                  std::to_string(records[static_cast<std::size_t>(r)].values[1]) + " items but its share is " +
                  std::to_string(share) + " (of " + std::to_string(total) + ")");
    }
  }
  if (total == 0) return {0, 0, 0};

  // ---- 1-2. Splitters from the samples; buckets; the shard partitioned by bucket ----
  const KB* send_keys = reinterpret_cast<const KB*>(keys_in);
  const VB* send_values = values_in;
  std::vector<std::int64_t> counts(static_cast<std::size_t>(ranks), 0);
  detail::device_scratch partitioned_keys(ranks > 1 ? in_bytes * sizeof(KB) : 0, stream);
  detail::device_scratch partitioned_values(ranks > 1 && pairs ? in_bytes * sizeof(VB) : 0, stream);
  if (ranks == 1) {
    counts[0] = n;  // one bucket: the shard is sent (copied) as it is
  } else {
    const int m = options.samples_per_rank;
    const auto positions = sample_positions(n, m, options.seed, rank);
    detail::device_scratch sample_buffer(static_cast<std::size_t>(m) * (static_cast<std::size_t>(ranks) + 2) * 8, stream);
    auto* d_positions = sample_buffer.get<std::int64_t>();
    auto* d_bits = reinterpret_cast<std::uint64_t*>(d_positions + m);
    auto* d_all_bits = d_bits + m;
    SCANKIT_CUDA_CHECK(cudaMemsetAsync(d_bits, 0, static_cast<std::size_t>(m) * 8, stream));
    if (!positions.empty()) {
      SCANKIT_CUDA_CHECK(cudaMemcpyAsync(d_positions, positions.data(), positions.size() * 8, cudaMemcpyHostToDevice, stream));
    }
    detail::gather_sample_bits(keys_in, d_positions, static_cast<std::int64_t>(positions.size()), d_bits, stream);
    const std::string sample_step = name + ": all-gather of the samples";
    comm.complete(ncclAllGather(d_bits, d_all_bits, static_cast<std::size_t>(m), ncclUint64, comm.native(), stream),
                  sample_step.c_str());
    comm.wait(stream, sample_step.c_str());
    std::vector<std::uint64_t> all_bits(static_cast<std::size_t>(m) * static_cast<std::size_t>(ranks));
    detail::copy_to_host(all_bits.data(), d_all_bits, all_bits.size() * 8, stream);

    // Every rank recomputes every rank's positions from its size, so only the keys travelled.
    std::vector<sort_position> samples;
    std::vector<std::int64_t> weights;
    for (int s = 0; s < ranks; ++s) {
      const auto p = sample_positions(sizes[static_cast<std::size_t>(s)], m, options.seed, s);
      const auto w = sample_weights(sizes[static_cast<std::size_t>(s)], m);
      for (std::size_t k = 0; k < p.size(); ++k) {
        samples.push_back({all_bits[static_cast<std::size_t>(s) * static_cast<std::size_t>(m) + k], s, p[k]});
        weights.push_back(w[k]);
      }
    }
    const auto splitters = choose_splitters(std::move(samples), weights, ranks);

    // Splitters, counts and the two bucket arrays in one allocation, each 256-byte aligned.
    const auto round_up = [](std::size_t bytes) { return (bytes + 255) / 256 * 256; };
    const std::size_t splitter_bytes = round_up(splitters.size() * sizeof(sort_position));
    const std::size_t count_bytes = round_up(static_cast<std::size_t>(ranks) * 8);
    const std::size_t bucket_bytes = round_up(in_bytes * sizeof(std::uint16_t));
    detail::device_scratch bucket_buffer(splitter_bytes + count_bytes + 2 * bucket_bytes, stream);
    auto* base = bucket_buffer.get<unsigned char>();
    auto* d_splitters = reinterpret_cast<sort_position*>(base);
    auto* d_counts = reinterpret_cast<unsigned long long*>(base + splitter_bytes);
    auto* d_buckets = reinterpret_cast<std::uint16_t*>(base + splitter_bytes + count_bytes);
    auto* d_buckets_sorted = reinterpret_cast<std::uint16_t*>(base + splitter_bytes + count_bytes + bucket_bytes);
    SCANKIT_CUDA_CHECK(cudaMemcpyAsync(d_splitters, splitters.data(), splitters.size() * sizeof(sort_position),
                                       cudaMemcpyHostToDevice, stream));
    SCANKIT_CUDA_CHECK(cudaMemsetAsync(d_counts, 0, static_cast<std::size_t>(ranks) * 8, stream));
    detail::assign_buckets(keys_in, n, rank, d_splitters, static_cast<int>(splitters.size()), d_buckets, d_counts, stream);
    // A stable radix sort on the bucket bits alone is a stable partition into the buckets.
    sort_options by_bucket;
    by_bucket.end_bit = bucket_bits(ranks);
    auto* part_keys = partitioned_keys.get<KB>();
    scankit::sort_pairs(d_buckets, d_buckets_sorted, send_keys, part_keys, n, stream, ws, by_bucket);
    send_keys = part_keys;
    if (pairs) {
      auto* part_values = partitioned_values.get<VB>();
      scankit::sort_pairs(d_buckets, d_buckets_sorted, values_in, part_values, n, stream, ws, by_bucket);
      send_values = part_values;
    }
    std::vector<unsigned long long> raw(static_cast<std::size_t>(ranks));
    detail::copy_to_host(raw.data(), d_counts, raw.size() * 8, stream);  // local work only on the stream
    for (int b = 0; b < ranks; ++b) counts[static_cast<std::size_t>(b)] = static_cast<std::int64_t>(raw[static_cast<std::size_t>(b)]);
  }

  // ---- 3. All-to-all of the buckets ----
  const auto matrix = detail::all_gather_host(comm, counts, stream, name + ": all-gather of the bucket counts");
  const auto plan = plan_all_to_all(matrix, ranks, rank);
  const auto received = static_cast<std::size_t>(plan.received());
  detail::device_scratch received_keys(received * sizeof(K), stream);
  detail::device_scratch received_values(pairs ? received * sizeof(VB) : 0, stream);
  detail::run_exchange(comm, plan, send_keys, received_keys.get(), sizeof(K), stream, name + ": all-to-all of the keys");
  if (pairs) {
    detail::run_exchange(comm, plan, send_values, received_values.get(), sizeof(VB), stream,
                         name + ": all-to-all of the values");
  }

  // ---- 4. Local stable sort of what arrived (in source-rank order) ----
  detail::device_scratch sorted_keys(received * sizeof(K), stream);
  detail::device_scratch sorted_values(pairs ? received * sizeof(VB) : 0, stream);
  const auto r_count = static_cast<std::int64_t>(received);
  if (pairs) {
    scankit::sort_pairs(received_keys.get<K>(), sorted_keys.get<K>(), received_values.get<VB>(), sorted_values.get<VB>(),
                        r_count, stream, ws);
  } else {
    scankit::sort_keys(received_keys.get<K>(), sorted_keys.get<K>(), r_count, stream, ws);
  }

  // ---- 5. Even shards: bucket d held column d's sum ----
  std::vector<std::int64_t> bucket_sizes(static_cast<std::size_t>(ranks), 0);
  for (int s = 0; s < ranks; ++s) {
    for (int d = 0; d < ranks; ++d) {
      bucket_sizes[static_cast<std::size_t>(d)] +=
          matrix[static_cast<std::size_t>(s) * static_cast<std::size_t>(ranks) + static_cast<std::size_t>(d)];
    }
  }
  const shard_info info = detail::rebalance_known_sizes(comm, bucket_sizes, sorted_keys.get(), keys_out, sizeof(K),
                                                        stream, name + ": rebalance of the keys");
  if (pairs) {
    detail::rebalance_known_sizes(comm, bucket_sizes, sorted_values.get(), values_out, sizeof(VB), stream,
                                  name + ": rebalance of the values");
  }
  return info;
}

}  // namespace

#define SCANKIT_DISTRIBUTED_DEFINE_SORT_PAIRS(K, V)                                                            \
  shard_info sort_pairs(communicator& comm, const K* keys_in, const V* values_in, std::int64_t n, K* keys_out, \
                        V* values_out, std::int64_t out_capacity, cudaStream_t stream, workspace* ws,          \
                        const sample_sort_options& options) {                                                  \
    using VB = bits_of<V>;                                                                                     \
    return sample_sort<K, VB>(comm, keys_in, reinterpret_cast<const VB*>(values_in), n, keys_out,              \
                              reinterpret_cast<VB*>(values_out), out_capacity, stream, ws, options,            \
                              std::string("scankit::distributed::sort_pairs/") + detail::type_name<K>() + "/" +        \
                                  detail::type_name<V>());                                                             \
  }

#define SCANKIT_DISTRIBUTED_DEFINE_SORT(K)                                                                     \
  shard_info sort_keys(communicator& comm, const K* keys_in, std::int64_t n, K* keys_out,                      \
                       std::int64_t out_capacity, cudaStream_t stream, workspace* ws,                          \
                       const sample_sort_options& options) {                                                   \
    return sample_sort<K, std::uint32_t>(comm, keys_in, nullptr, n, keys_out, nullptr, out_capacity, stream,   \
                                         ws, options, std::string("scankit::distributed::sort_keys/") +        \
                                                          detail::type_name<K>());                                     \
  }                                                                                                            \
  SCANKIT_DISTRIBUTED_FOR_EACH_SORT_VALUE(SCANKIT_DISTRIBUTED_DEFINE_SORT_PAIRS, K)

SCANKIT_DISTRIBUTED_FOR_EACH_SORT_KEY(SCANKIT_DISTRIBUTED_DEFINE_SORT)

#undef SCANKIT_DISTRIBUTED_DEFINE_SORT
#undef SCANKIT_DISTRIBUTED_DEFINE_SORT_PAIRS

}  // namespace scankit::distributed
