// Sampling from discrete distributions given by non-negative weights: the precompiled host API
// (callable from g++-compiled code). Weights need not be normalised; zeros are allowed.
//
//   sampling_table / build_sampling_table / sample
//       one distribution, many draws: the CDF in exact 64-bit fixed point, a 16-bit code per bin
//       and a guide table, built on the device in one pass over the weights (in the common case);
//       each draw is an inverse-CDF lookup in the guide cell of its random target: two guide
//       entries and a few codes (O(1) expected accesses), the CDF only when a code ties.
//   alias_table / build_alias_table / sample
//       one distribution, many draws, by the alias method (Walker, Vose) built on the device with
//       the parallel sweep of Huebschle-Schneider and Sanders: a draw is one 8-byte read (a bucket's
//       threshold and alias). Not an inverse CDF: draws differ from the table's for the same seed.
//   sample_rows
//       one draw from each row of a row-major matrix (a language model's next-token step); the
//       CDF is never written: one pass sums tiles of each row, a second re-reads only the tile
//       that holds the draw.
//   sample_segments
//       many distributions given by offsets (CSR-style), each with its own number of draws; the
//       CDFs come from the engine's segmented scan (double accumulator).
//   sample_without_replacement
//       k distinct items of one distribution, weighted (exponential keys, top-k).
//   sample_rows_top
//       a language model's sampler: rows of logits (or probabilities), temperature, top-k and
//       top-p (nucleus) filtering, then one draw per row.
//
// Semantics of sample_rows, sample_segments and sample_rows_top: draw k takes u =
// philox_uniform(seed, offset + k) (53 random bits in [0, 1), scankit/detail/philox.hpp) and
// returns the smallest bin i with cdf[i] > u * total, where cdf[i] = w[0] + ... + w[i] accumulated
// in double. A bin whose weight is below 2^-53 of the running sum before it can be absorbed by
// rounding (it is then never drawn): with at most 2^31 bins, no weight above 2^-22 of the largest is.
//
// Semantics of sampling_table: the CDF counts integer units of 2^e (e = unit_exponent_host()),
// each non-zero weight rounded to the nearest unit but to at least one, so no bin is ever lost;
// the build picks e so that the total is at least 2^50 units (a weight is off by less than one
// unit, at most 2^-50 of the total). Draw k takes the 64 random bits of Philox4x32-10 at counter offset + k (words x0:x1)
// as u and returns the first bin whose CDF exceeds floor(u * total / 2^64) units
// (scankit/detail/table_fixed_point.hpp; exact, with no floating point).
//
// For all: a zero-weight bin is never returned; the smallest and largest targets map to the first
// and the last bins of non-zero weight. Draws depend only on (weights, seed, offset + k): drawing
// n1 with offset o and then n2 with offset o + n1 gives the same draws as n1 + n2 with offset o.
// sample_rows uses counter offset + row; sample_segments offset + the draw's position in `out`.
//
// Range: any finite non-negative weights of the input type, from its smallest denormal to its
// largest value. Sums are taken in double, so float weights may sum far beyond FLT_MAX; only a sum
// beyond DBL_MAX (double weights) is an error (sum_overflow). What tiny weights get: the CDF table
// gives each non-zero weight at least one unit (at most 2^-50 of the total), the alias table rounds
// weights below 2^-33 of the average weight to zero (never drawn); rows and segments absorb a
// weight below 2^-53 of the running sum before it (above). A distribution whose weights are all
// tiny (all denormal, say) is as valid as any other: no method compares a weight with a fixed
// threshold.
//
// Tables are read only inside their memory, whatever it holds: the draws take the bin count and
// the guide's length from the host object, never from device memory, and check every index they
// read from the table. A table whose device memory was overwritten (or whose header disagrees with
// the host object) gives -1 for the draws it cannot answer, never a read outside the table.
//
// Bad weights (negative, NaN, infinite), an all-zero distribution or a sum that overflows double
// are found on the device: the affected draws are -1. For a table, status_host() reports which;
// for rows and segments, -1 is the per-row (per-segment) status. Bad arguments (negative counts,
// null pointers with non-zero counts, more than 2^31 - 1 bins) throw scankit::error before
// anything is enqueued; CUDA failures throw scankit::cuda_error. Work is enqueued on `stream`
// without synchronising unless a function says it synchronises.
//
// Precompiled for float and double weights; bin indices are int32 (fewer than 2^31 bins per
// distribution). Device templates: scankit/device/sampling/*.cuh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include <cuda_runtime_api.h>

#include "scankit/device_buffer.hpp"
#include "scankit/device_n.hpp"
#include "scankit/error.hpp"
#include "scankit/workspace.hpp"

namespace scankit {

enum class sampling_status : std::int32_t {
  ok = 0,
  invalid_weight = 1,  // a weight is negative, NaN or infinite
  all_zero = 2,        // every weight is zero (or there are no bins)
  sum_overflow = 3,    // the weights sum to more than the largest double
};

const char* to_string(sampling_status status) noexcept;

// The device-resident inverse-CDF table of one distribution: cdf (uint64, one per bin: the weights'
// running sum in units of 2^unit_exponent_host(), see above), codes (uint16, one per bin: the bin's
// end within its guide cell in 1/2^16 steps), a guide table of up to guide_size() uint32 entries
// (guide[j] = the first bin whose cdf reaches the j-th cell of 2^s units, followed by bins as a
// sentinel; cells hold about 8 bins), and a small header with the total and the status. cdf, codes
// and guide are undefined unless the status is ok. Owns its device memory (from its memory
// resource: the default one unless given; returned stream-ordered on the last build's stream,
// which must still exist when the table is destroyed) and a workspace for the build's single pass. Reusable: a later build with as many bins or fewer reuses the memory.
class sampling_table {
 public:
  sampling_table() = default;
  // A table whose memory comes from `resource` (nullptr: the default resource).
  explicit sampling_table(device_memory_resource* resource) noexcept : memory_(), state_(resource) {}
  ~sampling_table() = default;
  sampling_table(const sampling_table&) = delete;
  sampling_table& operator=(const sampling_table&) = delete;
  sampling_table(sampling_table&& other) noexcept;
  sampling_table& operator=(sampling_table&& other) noexcept;

  std::int64_t bins() const noexcept { return bins_; }
  std::int64_t guide_size() const noexcept { return guide_size_; }
  const std::uint64_t* cdf() const noexcept { return cdf_; }          // device, bins() values (units)
  const std::uint16_t* codes() const noexcept { return codes_; }      // device, bins() values
  const std::uint32_t* guide() const noexcept { return guide_; }      // device, guide_size() + 1 values
  const void* header() const noexcept { return memory_.data(); }      // device (internal layout)
  std::size_t capacity_bytes() const noexcept { return memory_.size(); }
  device_memory_resource* resource() const noexcept { return state_.resource(); }

  // Both SYNCHRONISE: they wait for `stream` (the build's stream) and read the header.
  sampling_status status_host(cudaStream_t stream = nullptr) const;
  double total_host(cudaStream_t stream = nullptr) const;  // the total in units times 2^unit_exponent
  int unit_exponent_host(cudaStream_t stream = nullptr) const;
  // Throws scankit::error naming the problem when status_host() is not ok (SYNCHRONISES).
  void check_host(cudaStream_t stream = nullptr) const;

  // Device bytes a table of n bins takes (its memory and its workspace).
  static std::size_t bytes_for(std::int64_t n) noexcept;

 private:
  friend struct sampling_table_access;
  device_buffer memory_;
  std::int64_t bins_ = 0;
  std::int64_t guide_size_ = 0;
  std::uint64_t* cdf_ = nullptr;
  std::uint16_t* codes_ = nullptr;
  std::uint32_t* guide_ = nullptr;
  workspace state_;  // the build's tile states; its resource is the table's
};

// Builds `table` from n weights (device pointer), without a host round trip. In the common case it
// reads the weights once: a sample of 16384 of them sets the unit and the cell size, then one
// single-pass scan writes the CDF, the codes and the guide. When the sample misjudged the total,
// the guide is rewritten from the CDF, or (below 2^50 units, or on overflow) the weights are summed
// and the table rebuilt: two more reads (docs/sampling.md). n == 0 gives status all_zero.
void build_sampling_table(const float* weights, std::int64_t n, sampling_table& table, cudaStream_t stream = nullptr);
void build_sampling_table(const double* weights, std::int64_t n, sampling_table& table, cudaStream_t stream = nullptr);

// `count` draws (bin indices) into out[0 .. count), with replacement.
void sample(const sampling_table& table, std::int32_t* out, std::int64_t count, std::uint64_t seed,
            std::uint64_t offset = 0, cudaStream_t stream = nullptr);
// The same with the draws' count in device memory (scankit::device_n, device_n.hpp): out holds the
// bound; draw k is the same bits as with a host count.
void sample(const sampling_table& table, std::int32_t* out, device_n count, std::uint64_t seed,
            std::uint64_t offset = 0, cudaStream_t stream = nullptr);

// One bucket of an alias table. A draw picks bucket b uniformly and keeps b when a 32-bit uniform
// word is below `threshold`, otherwise it returns `alias`: P(keep b) = threshold / 2^32 exactly. A
// full bucket is stored as threshold 0xffffffff with alias == b.
struct alignas(8) alias_entry {  // one 8-byte load per draw
  std::uint32_t threshold;
  std::int32_t alias;
};

// The device-resident alias table of one distribution: bins() entries (8 bytes each), a small header
// (total, status), and the build's scratch (12 bytes per bin: the light/heavy order and a prefix
// sum). Entries are undefined unless the status is ok. Owns its device memory like sampling_table
// (from its memory resource, returned stream-ordered on the last build's stream); a later build
// with as many bins or fewer reuses it. Precision (docs/sampling.md): weights are rounded to units of 2^-32 of
// the average weight w_avg = total / n, so bin i is drawn with probability q_i / (n 2^32), q_i =
// round(2^32 w_i / w_avg); only a weight below 2^-33 w_avg can be lost, and the last heavy bin
// absorbs the rounding remainder (at most about 2^-33 of the total).
class alias_table {
 public:
  alias_table() noexcept : resource_(default_resource()) {}
  // A table whose memory comes from `resource` (nullptr: the default resource).
  explicit alias_table(device_memory_resource* resource) noexcept
      : resource_(resource != nullptr ? resource : default_resource()) {}
  ~alias_table() = default;
  alias_table(const alias_table&) = delete;
  alias_table& operator=(const alias_table&) = delete;
  alias_table(alias_table&& other) noexcept { *this = std::move(other); }
  alias_table& operator=(alias_table&& other) noexcept;

  std::int64_t bins() const noexcept { return bins_; }
  const alias_entry* entries() const noexcept { return entries_; }  // device, bins() values
  const void* header() const noexcept { return memory_.data(); }    // device (internal layout)
  std::size_t capacity_bytes() const noexcept { return memory_.size(); }
  device_memory_resource* resource() const noexcept { return resource_; }

  // All three SYNCHRONISE (they wait for `stream` and read the header), as sampling_table's do.
  sampling_status status_host(cudaStream_t stream = nullptr) const;
  double total_host(cudaStream_t stream = nullptr) const;  // the weights' sum, in double
  void check_host(cudaStream_t stream = nullptr) const;   // throws scankit::error unless ok

  // Device bytes a table of n bins takes (entries and build scratch).
  static std::size_t bytes_for(std::int64_t n) noexcept;

 private:
  friend struct alias_table_access;
  device_memory_resource* resource_ = nullptr;
  device_buffer memory_;
  std::int64_t bins_ = 0;
  alias_entry* entries_ = nullptr;
};

// Builds `table` from n weights (device pointer) on the device: a sum, a stable light/heavy
// partition, one prefix sum (64-bit fixed point) and a merge-path sweep; 5 passes over n items
// and no host round trip. `ws` serves the reduction, the partition and the scan. n == 0 gives
// status all_zero; bad weights give their status (found on the device, as for sampling_table).
void build_alias_table(const float* weights, std::int64_t n, alias_table& table, cudaStream_t stream = nullptr,
                       workspace* ws = nullptr);
void build_alias_table(const double* weights, std::int64_t n, alias_table& table, cudaStream_t stream = nullptr,
                       workspace* ws = nullptr);

// `count` draws from an alias table into out[0 .. count) (-1 each when the status is not ok). Draw
// k uses Philox4x32-10 at counter offset + k, the counter of philox_uniform: its first 64 bits u
// give the bucket floor(u n / 2^64), its third word is compared with the bucket's threshold.
void sample(const alias_table& table, std::int32_t* out, std::int64_t count, std::uint64_t seed,
            std::uint64_t offset = 0, cudaStream_t stream = nullptr);
void sample(const alias_table& table, std::int32_t* out, device_n count, std::uint64_t seed,
            std::uint64_t offset = 0, cudaStream_t stream = nullptr);  // count in device memory, as above

// One draw per row of a rows x cols row-major matrix of weights (probabilities or any
// non-negative weights): out[r] is a column index, or -1 when row r is bad (see above) or cols == 0.
void sample_rows(const float* weights, std::int64_t rows, std::int64_t cols, std::int32_t* out, std::uint64_t seed,
                 std::uint64_t offset = 0, cudaStream_t stream = nullptr, workspace* ws = nullptr);
void sample_rows(const double* weights, std::int64_t rows, std::int64_t cols, std::int32_t* out, std::uint64_t seed,
                 std::uint64_t offset = 0, cudaStream_t stream = nullptr, workspace* ws = nullptr);
// The same with the rows' count in device memory (scankit::device_n, device_n.hpp): weights and
// out hold the bound's rows; rows past the count are neither read nor written, and row r draws
// the same bits as with a host count.
void sample_rows(const float* weights, device_n rows, std::int64_t cols, std::int32_t* out, std::uint64_t seed,
                 std::uint64_t offset = 0, cudaStream_t stream = nullptr, workspace* ws = nullptr);
void sample_rows(const double* weights, device_n rows, std::int64_t cols, std::int32_t* out, std::uint64_t seed,
                 std::uint64_t offset = 0, cudaStream_t stream = nullptr, workspace* ws = nullptr);

// Segment s is weights[offsets[s] .. offsets[s + 1]) (num_segments + 1 non-decreasing offsets from
// 0 to n, device memory); its draws go to out[draw_offsets[s] .. draw_offsets[s + 1]) (num_segments
// + 1 non-decreasing device offsets from 0) as indices within the segment, -1 where the segment is
// empty or bad. Needs 8 bytes of temporary device memory per weight (taken stream-ordered).
void sample_segments(const float* weights, std::int64_t n, const std::int64_t* offsets, std::int64_t num_segments,
                     const std::int64_t* draw_offsets, std::int64_t total_draws, std::int32_t* out, std::uint64_t seed,
                     std::uint64_t offset = 0, cudaStream_t stream = nullptr, workspace* ws = nullptr);
void sample_segments(const double* weights, std::int64_t n, const std::int64_t* offsets, std::int64_t num_segments,
                     const std::int64_t* draw_offsets, std::int64_t total_draws, std::int32_t* out, std::uint64_t seed,
                     std::uint64_t offset = 0, cudaStream_t stream = nullptr, workspace* ws = nullptr);
// The same with the counts in device memory (scankit::device_n, device_n.hpp): the weights, the
// segments and the draws, each sized by its bound (offsets holds the segments' bound + 1 entries,
// draw_offsets too, out the draws' bound). Only the first segments + 1 offsets are read, each
// clamped to [0, the weights' count]; draws past their count are neither drawn nor written; draw d
// takes the same bits as with host counts. Draws from zero segments come back as -1 (a host count
// throws).
void sample_segments(const float* weights, device_n n, const std::int64_t* offsets, device_n num_segments,
                     const std::int64_t* draw_offsets, device_n total_draws, std::int32_t* out, std::uint64_t seed,
                     std::uint64_t offset = 0, cudaStream_t stream = nullptr, workspace* ws = nullptr);
void sample_segments(const double* weights, device_n n, const std::int64_t* offsets, device_n num_segments,
                     const std::int64_t* draw_offsets, device_n total_draws, std::int32_t* out, std::uint64_t seed,
                     std::uint64_t offset = 0, cudaStream_t stream = nullptr, workspace* ws = nullptr);

// k distinct indices of the n weights, a weighted sample without replacement: item i gets the key
// -log(u_i) / w_i with u_i = philox_uniform(seed, offset + i) + 2^-54 rounded to double (in (0, 1];
// u_i = 1 gives the key 0), and the k smallest keys are taken in increasing order, ties by index
// (so out[0] is a draw from the whole distribution, out[1] one from the rest, ...). The key is
// formed with an unbounded exponent (scankit/detail/exponential_key.hpp), so every weight from the
// smallest denormal to the largest double keeps its key. Slots beyond the number of positive
// weights get -1; a bad weight makes every slot -1. k > n throws scankit::error. Takes the k
// smallest keys with scankit::top_k (one read of the keys for k <= 2048; it uses `ws`): 8 bytes of
// temporary device memory per weight, taken stream-ordered.
void sample_without_replacement(const float* weights, std::int64_t n, std::int64_t k, std::int32_t* out,
                                std::uint64_t seed, std::uint64_t offset = 0, cudaStream_t stream = nullptr,
                                workspace* ws = nullptr);
void sample_without_replacement(const double* weights, std::int64_t n, std::int64_t k, std::int32_t* out,
                                std::uint64_t seed, std::uint64_t offset = 0, cudaStream_t stream = nullptr,
                                workspace* ws = nullptr);

// Options of sample_rows_top. Each token gets the weight exp(-d), d = (shift - value) / temperature
// its distance in nats below the row's most probable token (value = the logit, or log p for
// probabilities; shift = the row's largest value): softmax with temperature for logits,
// p^(1 / temperature) renormalised for probabilities. Then
//   top_k > 0: keep the k most probable tokens;
//   top_p < 1: of those, keep the most probable ones until they hold at least top_p of the kept
//              mass (the token that crosses top_p is kept, as in the usual nucleus sampler);
// and draw one token in proportion to the kept weights. Tokens tied with the last kept one (within
// 2^-19 nats) are kept too, so a set can exceed k by exact ties. The selection adds weights in
// fixed point (2^-32 of the largest), so tokens below 2^-32 of the largest count as zero mass there
// (they are kept only when top_p needs everything). The same row, seed and offset always give the
// same token.
struct top_sampling_options {
  bool logits = true;           // false: the values are non-negative probabilities (or weights)
  float temperature = 1.0f;     // > 0 and finite
  std::int64_t top_k = 0;       // 0: no top-k filter
  double top_p = 1.0;           // in (0, 1]; 1: no top-p filter
};

// One token per row of rows x cols float values (row-major): out[r] is a column index, or -1 when
// the row is bad (a NaN or +infinity; for probabilities a negative or infinite value; or nothing
// with positive weight: every logit -infinity, every probability 0) or cols == 0. Reads each row
// once for its maximum, three times per active filter (the radix select; from L2 when it holds the
// rows in flight), then once more for the draw. Bad options throw scankit::error before any launch.
void sample_rows_top(const float* values, std::int64_t rows, std::int64_t cols, std::int32_t* out,
                     const top_sampling_options& options, std::uint64_t seed, std::uint64_t offset = 0,
                     cudaStream_t stream = nullptr, workspace* ws = nullptr);
// The same with the rows' count in device memory (scankit::device_n, device_n.hpp): values and out
// hold the bound's rows; rows past the count are neither read nor written, and row r draws the
// same token as with a host count.
void sample_rows_top(const float* values, device_n rows, std::int64_t cols, std::int32_t* out,
                     const top_sampling_options& options, std::uint64_t seed, std::uint64_t offset = 0,
                     cudaStream_t stream = nullptr, workspace* ws = nullptr);

}  // namespace scankit
