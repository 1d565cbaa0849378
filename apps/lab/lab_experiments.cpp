// The lab's measuring engine and the loop that runs the experiments (each in its own
// lab_experiment_<slug>.cpp). One templated engine per value type holds the input (random, generated
// once at the largest size that fits; smaller sizes use its prefix), the host reference result,
// the device buffers, a scankit::workspace and the CUB temporary storage, all allocated once.
// Every (variant, size) is measured once and cached: checked against the host reference on its
// first run, then warmed up and timed R times with CUDA events (median reported).
#include "lab_experiments.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <deque>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>
#include <type_traits>
#include <vector>

#include <cuda_runtime_api.h>

#include "lab_analysis.hpp"
#include "lab_cub.hpp"
#include "lab_experiment_common.hpp"
#include "scankit/error.hpp"
#include "scankit/operators.hpp"
#include "scankit/reference/scan_reference.hpp"
#include "scankit/scan.hpp"

namespace scankit::lab {

// ----------------------------------------------------------------------------------------------
// variants

variant variant::scan(scan_strategy s, block_scan_algorithm b, int k) {
  variant v;
  v.what = kind::scankit;
  v.strategy = s;
  v.block = b;
  v.items_per_thread = k;
  return v;
}

variant variant::cub() {
  variant v;
  v.what = kind::cub;
  return v;
}

variant variant::device_copy() {
  variant v;
  v.what = kind::device_copy;
  return v;
}

std::string variant::label() const {
  switch (what) {
    case kind::cub: return "cub::DeviceScan::InclusiveSum";
    case kind::device_copy: return "cudaMemcpy D2D";
    case kind::scankit: break;
  }
  return std::string(to_string(strategy)) + "/" + to_string(block) + "/K" + std::to_string(items_per_thread);
}

std::string measurement::check_text() const {
  if (failed) return "FAILED";
  if (!checked) return "n/a";
  return ok ? "ok" : "MISMATCH";
}

namespace {
std::string measurement_key(const variant& v, std::int64_t n) { return v.label() + "@" + std::to_string(n); }
}  // namespace

const measurement* measurer::find(const variant& v, std::int64_t n) const {
  const auto it = index_.find(measurement_key(v, n));
  return it == index_.end() ? nullptr : &all_[it->second];
}

const measurement& measurer::measure(const variant& v, std::int64_t n) {
  if (const measurement* known = find(v, n)) return *known;
  measurement m = take(v, n);
  m.v = v;
  m.n = n;
  const std::string where = v.label() + " at n = " + format_size(n);
  if (m.failed) {
    report_.errors.push_back(where + ": " + m.detail);
    out_ << "\n*** FAILED *** " << where << ": " << m.detail << "\n" << std::flush;
  } else if (m.checked && !m.ok) {
    report_.mismatches.push_back(where + ": " + m.detail);
    out_ << "\n*** MISMATCH *** " << where << ": " << m.detail << "\n" << std::flush;
  }
  index_[measurement_key(v, n)] = all_.size();
  all_.push_back(std::move(m));
  return all_.back();
}

namespace {

using steady = std::chrono::steady_clock;

std::string gigabytes(double bytes) { return fmt("%.2f GB", bytes / 1e9); }

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// MemAvailable from /proc/meminfo in bytes, or 0 if unknown.
double host_available_bytes() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  double kb = 0;
  std::string unit;
  while (f >> key >> kb >> unit) {
    if (key == "MemAvailable:") return kb * 1024.0;
  }
  return 0;
}

// splitmix64: a fast, well-mixed hash of the seed and the index (the input is the same for a
// seed whatever the largest size).
inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Random values, never zero, with a mean of zero for signed types so that prefix sums stay
// small: integer sums never overflow a signed type (int8/int16 wrap as the operator defines),
// and floating-point values are small integers whose prefix sums stay far below 2^24, so every
// association of the sum is exact and the result can be compared bit for bit.
template <class T>
T lab_value(std::uint64_t h) {
  if constexpr (std::is_floating_point_v<T>) {
    static constexpr T values[4] = {T(-2), T(-1), T(1), T(2)};
    return values[h & 3];
  } else if constexpr (std::is_signed_v<T>) {
    const int magnitude = sizeof(T) == 1 ? 3 : 100;
    int v = static_cast<int>(h % static_cast<std::uint64_t>(2 * magnitude)) - magnitude;  // -m .. m-1
    if (v >= 0) ++v;                                                                      // -m .. m, no 0
    return static_cast<T>(v);
  } else {
    return static_cast<T>(1 + h % 100);
  }
}

template <class T>
void generate_input(std::vector<T>& v, std::uint64_t seed) {
  const std::uint64_t base = mix(seed);
  const std::size_t n = v.size();
  const unsigned threads = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  const std::size_t chunk = (n + threads - 1) / threads;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    const std::size_t lo = t * chunk, hi = std::min(n, lo + chunk);
    if (lo >= hi) break;
    pool.emplace_back([&v, base, lo, hi] {
      for (std::size_t i = lo; i < hi; ++i) v[i] = lab_value<T>(mix(base + i));
    });
  }
  for (auto& t : pool) t.join();
}

device_facts query_device() {
  device_facts f;
  int device = 0;
  SCANKIT_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  SCANKIT_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  f.name = prop.name;
  f.sm_count = prop.multiProcessorCount;
  f.cc_major = prop.major;
  f.cc_minor = prop.minor;
  f.l2_bytes = prop.l2CacheSize;
  SCANKIT_CUDA_CHECK(cudaMemGetInfo(&f.free_bytes, &f.total_bytes));
  SCANKIT_CUDA_CHECK(cudaRuntimeGetVersion(&f.runtime_version));
  SCANKIT_CUDA_CHECK(cudaDriverGetVersion(&f.driver_version));
  return f;
}

// Owns a device allocation; frees it on scope exit (errors at free are ignored).
struct device_memory {
  void* ptr = nullptr;
  device_memory() = default;
  device_memory(const device_memory&) = delete;
  device_memory& operator=(const device_memory&) = delete;
  ~device_memory() {
    if (ptr != nullptr) (void)cudaFree(ptr);
  }
  void allocate(std::size_t bytes, const char* what) {
    if (ptr != nullptr) {
      (void)cudaFree(ptr);
      ptr = nullptr;
    }
    if (bytes == 0) return;
    const cudaError_t e = cudaMalloc(&ptr, bytes);
    if (e != cudaSuccess) {
      ptr = nullptr;
      (void)cudaGetLastError();
      throw cuda_error(e, std::string("cudaMalloc(") + what + ", " + std::to_string(bytes) + " bytes)");
    }
  }
};

struct event_pair {
  cudaEvent_t start = nullptr, stop = nullptr;
  event_pair() {
    SCANKIT_CUDA_CHECK(cudaEventCreate(&start));
    SCANKIT_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~event_pair() {
    (void)cudaEventDestroy(start);
    (void)cudaEventDestroy(stop);
  }
  event_pair(const event_pair&) = delete;
  event_pair& operator=(const event_pair&) = delete;
};

// ----------------------------------------------------------------------------------------------
// the measuring engine

template <class T>
class engine final : public measurer {
 public:
  engine(const lab_plan& plan, std::int64_t capacity, lab_report& report, std::ostream& out, progress_log& progress)
      : measurer(report, out), plan_(plan), report_(report) {
    progress.say("generating " + format_size(capacity) + " random " + to_string(plan.type) + " values (seed " +
                 std::to_string(plan.seed) + ") and their host reference scan");
    input_.resize(static_cast<std::size_t>(capacity));
    generate_input(input_, plan.seed);
    expected_.resize(input_.size());
    reference::inclusive_scan(input_.data(), expected_.data(), capacity, plus_op{});
    if constexpr (std::is_floating_point_v<T>) {
      double largest = 0;
      for (const T& x : expected_) largest = std::max(largest, std::fabs(static_cast<double>(x)));
      const double exact_limit = std::is_same_v<T, float> ? 16777216.0 : 9007199254740992.0;
      if (largest * 2 >= exact_limit)
        report_.notices.push_back(fmt("floating-point prefix sums reach %.0f: partial sums may round, so a mismatch "
                                      "may be rounding rather than a wrong scan",
                                      largest));
    }
    result_.resize(input_.size());
    const std::size_t bytes = input_.size() * sizeof(T);
    d_in_.allocate(bytes, "input");
    d_out_.allocate(bytes, "output");
    SCANKIT_CUDA_CHECK(cudaMemcpy(d_in_.ptr, input_.data(), bytes, cudaMemcpyHostToDevice));
    if (cub_supports(plan.type)) ensure_cub_storage(capacity);
  }

  // Times the host reference on the first n inputs (median of up to 5 runs).
  double host_reference_ms(std::int64_t n) override {
    const auto it = host_ms_.find(n);
    if (it != host_ms_.end()) return it->second;
    std::vector<double> times;
    const int runs = std::min(plan_.repeat, 5);
    for (int r = 0; r < runs; ++r) {
      const auto t0 = steady::now();
      reference::inclusive_scan(input_.data(), result_.data(), n, plus_op{});
      times.push_back(std::chrono::duration<double, std::milli>(steady::now() - t0).count());
    }
    const double ms = median(times);
    host_ms_[n] = ms;
    return ms;
  }

  // Only int32 and float have describe_scan_kernel.
  scan_kernel_info kernel_info(const scan_options& options) override {
    if constexpr (std::is_same_v<T, std::int32_t> || std::is_same_v<T, float>) {
      return describe_scan_kernel(static_cast<const T*>(nullptr), options);
    } else {
      throw scankit::error("describe_scan_kernel is precompiled for int32 and float only");
    }
  }

 protected:
  measurement take(const variant& v, std::int64_t n) override {
    measurement m;
    m.v = v;
    m.n = n;
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
    try {
      if (v.what == variant::kind::cub) ensure_cub_storage(n);
      if (v.what != variant::kind::device_copy) {
        // Poisoned output, one run, the whole result compared with the host reference.
        SCANKIT_CUDA_CHECK(cudaMemset(d_out_.ptr, 0xA5, bytes));
        enqueue(v, n);
        SCANKIT_CUDA_CHECK(cudaGetLastError());
        SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
        SCANKIT_CUDA_CHECK(cudaMemcpy(result_.data(), d_out_.ptr, bytes, cudaMemcpyDeviceToHost));
        m.checked = true;
        compare(m);
      } else {
        m.ok = true;
      }
      enqueue(v, n);  // warm-up
      SCANKIT_CUDA_CHECK(cudaGetLastError());
      std::vector<double> times;
      for (int r = 0; r < plan_.repeat; ++r) {
        SCANKIT_CUDA_CHECK(cudaEventRecord(events_.start, nullptr));
        enqueue(v, n);
        SCANKIT_CUDA_CHECK(cudaEventRecord(events_.stop, nullptr));
        SCANKIT_CUDA_CHECK(cudaEventSynchronize(events_.stop));
        float ms = 0;
        SCANKIT_CUDA_CHECK(cudaEventElapsedTime(&ms, events_.start, events_.stop));
        times.push_back(ms);
      }
      m.median_ms = median(times);
      m.min_ms = *std::min_element(times.begin(), times.end());
    } catch (const std::exception& e) {
      m.failed = true;
      m.ok = false;
      m.detail = e.what();
    }
    return m;
  }

 private:
  const T* d_in() const { return static_cast<const T*>(d_in_.ptr); }
  T* d_out() { return static_cast<T*>(d_out_.ptr); }

  // CUB's temporary storage was sized for the largest n; grow it should a size need more.
  void ensure_cub_storage(std::int64_t n) {
    const std::size_t need = cub_inclusive_sum_bytes(plan_.type, n);
    if (need <= cub_bytes_ && cub_temp_.ptr != nullptr) return;
    cub_temp_.allocate(std::max<std::size_t>(need, 1), "CUB temporary storage");
    cub_bytes_ = std::max<std::size_t>(need, 1);
  }

  void enqueue(const variant& v, std::int64_t n) {
    switch (v.what) {
      case variant::kind::device_copy:
        SCANKIT_CUDA_CHECK(cudaMemcpyAsync(d_out_.ptr, d_in_.ptr, static_cast<std::size_t>(n) * sizeof(T),
                                           cudaMemcpyDeviceToDevice, nullptr));
        return;
      case variant::kind::cub:
        cub_inclusive_sum(plan_.type, d_in_.ptr, d_out_.ptr, n, cub_temp_.ptr, cub_bytes_, nullptr);
        return;
      case variant::kind::scankit: {
        scan_options options;
        options.strategy = v.strategy;
        options.block_algorithm = v.block;
        options.items_per_thread = v.items_per_thread;
        scankit::lab::inclusive_scan(d_in(), d_out(), n, scan_op::plus, nullptr, &workspace_, options);
        return;
      }
    }
  }

  void compare(measurement& m) const {
    const std::size_t n = static_cast<std::size_t>(m.n);
    const auto diff = std::mismatch(result_.begin(), result_.begin() + n, expected_.begin());
    m.ok = diff.first == result_.begin() + n;
    if (m.ok) return;
    const std::size_t first = static_cast<std::size_t>(diff.first - result_.begin());
    std::size_t count = 0;
    for (std::size_t i = first; i < n; ++i) count += result_[i] != expected_[i] ? 1 : 0;
    std::ostringstream line;
    line << count << " of " << n << " elements differ from the host reference; the first at index " << first
         << ": got " << +result_[first] << ", expected " << +expected_[first];
    m.detail = line.str();
  }

  const lab_plan& plan_;
  lab_report& report_;
  std::vector<T> input_, expected_, result_;
  device_memory d_in_, d_out_, cub_temp_;
  std::size_t cub_bytes_ = 0;
  workspace workspace_;
  event_pair events_;
  std::map<std::int64_t, double> host_ms_;
};

// ----------------------------------------------------------------------------------------------
// running the experiments

// The sizes that fit in GPU and host memory; notices for the others.
template <class T>
std::int64_t fitting_capacity(const lab_plan& plan, const device_facts& device, std::vector<std::string>& notices) {
  std::vector<std::int64_t> wanted;
  bool main_used = false;
  for (int id : plan.experiments) main_used = main_used || id <= 6;
  if (main_used) wanted.insert(wanted.end(), plan.sizes.begin(), plan.sizes.end());
  if (plan.runs(7)) wanted.insert(wanted.end(), plan.scaling_sizes.begin(), plan.scaling_sizes.end());
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  const double host_free = host_available_bytes();
  std::int64_t capacity = 0;
  for (std::int64_t n : wanted) {
    // Input and output, the largest workspace of any strategy (K = 1 has the most tiles) and CUB's.
    double workspace_bytes = 0;
    for (auto s : all_strategies) {
      scan_options o;
      o.strategy = s;
      o.items_per_thread = has_kernel_variants(plan.type) ? 1 : 0;
      try {
        workspace_bytes = std::max(
            workspace_bytes, static_cast<double>(scankit::lab::scan_workspace_bytes(static_cast<const T*>(nullptr), n, o)));
      } catch (const std::exception&) {
        // sizing is a host computation; should it fail, the margin below has to do
      }
    }
    double cub_bytes = 0;
    if (cub_supports(plan.type)) {
      try {
        cub_bytes = static_cast<double>(cub_inclusive_sum_bytes(plan.type, n));
      } catch (const std::exception&) {
      }
    }
    const double need = 2.0 * static_cast<double>(n) * sizeof(T) + workspace_bytes + cub_bytes;
    const double margin = 512.0 * 1024 * 1024;
    const double host_need = 3.0 * static_cast<double>(n) * sizeof(T);
    if (need + margin > static_cast<double>(device.free_bytes)) {
      notices.push_back("n = " + format_size(n) + " skipped: it needs " + gigabytes(need) + " of GPU memory, " +
                        gigabytes(static_cast<double>(device.free_bytes)) + " are free");
    } else if (host_free > 0 && host_need + margin > host_free) {
      notices.push_back("n = " + format_size(n) + " skipped: its input, reference and result need " + gigabytes(host_need) +
                        " of host memory, " + gigabytes(host_free) + " are available");
    } else {
      capacity = n;
    }
  }
  return capacity;
}

void add_device_metadata(const device_facts& device, lab_report& report) {
  report.metadata.push_back({"device", cell::of("gpu")});
  report.metadata.push_back({"gpu", cell::of(device.name)});
  report.metadata.push_back(
      {"compute_capability", cell::of(std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor))});
  report.metadata.push_back({"sm_count", cell::of_int(device.sm_count)});
  report.metadata.push_back({"l2_bytes", cell::of_int(device.l2_bytes)});
  report.metadata.push_back({"gpu_memory_bytes", cell::of_int(static_cast<long long>(device.total_bytes))});
  report.metadata.push_back({"cuda_runtime", cell::of_int(device.runtime_version)});
  report.metadata.push_back({"cuda_driver", cell::of_int(device.driver_version)});
}

void experiments_loop(const lab_plan& plan, measurer& m, const device_facts& device,
                      const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& scaling_sizes,
                      lab_report& report, std::ostream& out, progress_log& progress) {
  lab_context c{plan,  m,     report, progress, device, sizes, scaling_sizes, size_of(plan.type), tuned_items_per_thread(plan.type),
                has_kernel_variants(plan.type)};
  for (int id = 1; id <= experiment_count; ++id) {
    if (!plan.runs(id)) {
      experiment_report skipped = new_experiment(id);
      skipped.ran = false;
      skipped.skipped_reason = has_kernel_variants(plan.type) || !experiment(id).needs_kernel_variants
                                   ? "not selected (--experiments)"
                                   : std::string("needs int32 or float, not ") + to_string(plan.type);
      report.experiments.push_back(std::move(skipped));
      continue;
    }
    experiment_report e;
    const double t0 = progress.seconds();
    switch (id) {
      case 1: e = run_three_launch_vs_cpu_experiment(c); break;
      case 2: e = run_warp_vs_shared_experiment(c); break;
      case 3: e = run_barriers_experiment(c); break;
      case 4: e = run_coarsening_experiment(c); break;
      case 5: e = run_work_depth_experiment(c); break;
      case 6: e = run_vs_cub_experiment(c); break;
      case 7: e = run_scaling_experiment(c); break;
    }
    progress.say(fmt("experiment %d done in %.1f s", id, progress.seconds() - t0));
    out << format_experiment(e) << std::flush;
    report.experiments.push_back(std::move(e));
  }

  // Every measurement once, with its ratios to the copy and to CUB at the same size.
  report.measurements = result_table{};
  report.measurements.name = "measurements";
  report.measurements.title = "every timed variant and size";
  report.measurements.columns = {"variant", "kind", "strategy", "block", "K", "n", "time_ms", "min_ms", "GB/s",
                                 "of_copy", "vs_CUB", "check"};
  for (const auto& x : m.all()) {
    const bool scan = x.v.what == variant::kind::scankit;
    const char* kind = scan ? "scankit" : x.v.what == variant::kind::cub ? "cub" : "copy";
    const measurement* copy = m.find(variant::device_copy(), x.n);
    const measurement* cub = m.find(variant::cub(), x.n);
    report.measurements.add_row(
        {cell::of(x.v.label()), cell::of(kind), scan ? cell::of(to_string(x.v.strategy)) : cell::none(),
         scan ? cell::of(to_string(x.v.block)) : cell::none(), scan ? cell::of_int(x.v.items_per_thread) : cell::none(),
         cell::of_int(x.n), ms_cell(x.median_ms), ms_cell(x.min_ms), cell::of_real(c.gbps(x.n, x.median_ms), 1),
         ratio_cell(copy != nullptr ? copy->median_ms / x.median_ms : nan_value),
         ratio_cell(cub != nullptr ? cub->median_ms / x.median_ms : nan_value), cell::of(x.check_text())});
  }
}

template <class T>
int run_typed(const lab_plan& plan, lab_report& report, std::ostream& out, progress_log& progress) {
  const device_facts device = query_device();
  add_device_metadata(device, report);
  out << "device: " << device.name << " (sm_" << device.cc_major << device.cc_minor << ", " << device.sm_count << " SMs, "
      << fmt("%.1f MB L2, %.1f GB memory, %.1f GB free", device.l2_bytes / 1e6, device.total_bytes / 1e9,
             device.free_bytes / 1e9)
      << ")\n";

  std::vector<std::string> size_notices;
  const std::int64_t capacity = fitting_capacity<T>(plan, device, size_notices);
  for (const auto& s : size_notices) {
    out << "note: " << s << "\n";
    report.notices.push_back(s);
  }
  if (capacity == 0) {
    report.notices.push_back("no size fits in memory: nothing was measured");
    out << "note: no size fits in memory: nothing was measured\n";
    return 0;
  }
  std::vector<std::int64_t> sizes, scaling_sizes;
  for (auto n : plan.sizes)
    if (n <= capacity) sizes.push_back(n);
  for (auto n : plan.scaling_sizes)
    if (n <= capacity) scaling_sizes.push_back(n);
  engine<T> eng(plan, capacity, report, out, progress);
  experiments_loop(plan, eng, device, sizes, scaling_sizes, report, out, progress);
  return static_cast<int>(eng.all().size());
}

void add_run_metadata(const lab_plan& plan, lab_report& report) {
  report.metadata.push_back({"date_utc", cell::of(utc_now())});
  report.metadata.push_back({"value_type", cell::of(to_string(plan.type))});
  report.metadata.push_back({"mode", cell::of(plan.full ? "full" : "quick")});
  report.metadata.push_back({"repeat", cell::of_int(plan.repeat)});
  report.metadata.push_back({"seed", cell::of(std::to_string(plan.seed))});
  report.metadata.push_back({"block_threads", cell::of_int(block_threads)});
  report.metadata.push_back({"tuned_items_per_thread", cell::of_int(tuned_items_per_thread(plan.type))});
  std::string list;
  for (int id : plan.experiments) list += (list.empty() ? "" : ",") + std::to_string(id);
  report.metadata.push_back({"experiments", cell::of(list)});
  report.metadata.push_back({"chained_scaling_limit", cell::of_int(plan.chained_scaling_limit)});
}

}  // namespace

void run_experiments(const lab_plan& plan, measurer& m, const device_facts& device,
                     const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& scaling_sizes,
                     lab_report& report, std::ostream& out, std::ostream& progress_stream) {
  progress_log progress(progress_stream);
  add_run_metadata(plan, report);
  add_device_metadata(device, report);
  experiments_loop(plan, m, device, sizes, scaling_sizes, report, out, progress);
}

int run_gpu_experiments(const lab_plan& plan, lab_report& report, std::ostream& out, std::ostream& progress_stream) {
  progress_log progress(progress_stream);
  add_run_metadata(plan, report);
  switch (plan.type) {
    case value_type::int8: return run_typed<std::int8_t>(plan, report, out, progress);
    case value_type::uint8: return run_typed<std::uint8_t>(plan, report, out, progress);
    case value_type::int16: return run_typed<std::int16_t>(plan, report, out, progress);
    case value_type::uint16: return run_typed<std::uint16_t>(plan, report, out, progress);
    case value_type::int32: return run_typed<std::int32_t>(plan, report, out, progress);
    case value_type::uint32: return run_typed<std::uint32_t>(plan, report, out, progress);
    case value_type::int64: return run_typed<std::int64_t>(plan, report, out, progress);
    case value_type::uint64: return run_typed<std::uint64_t>(plan, report, out, progress);
    case value_type::float32: return run_typed<float>(plan, report, out, progress);
    case value_type::float64: return run_typed<double>(plan, report, out, progress);
  }
  return 0;
}

namespace {

template <class T>
int host_typed(const lab_plan& plan, lab_report& report, std::ostream& out, progress_log& progress) {
  experiment_report e = new_experiment(1);
  auto t = new_table(1, "", "host reference only (one CPU thread): no CUDA device", {"n", "variant", "time_ms", "GB/s", "check"});
  const std::int64_t largest = plan.sizes.empty() ? 0 : plan.sizes.back();
  const double host_free = host_available_bytes();
  std::vector<T> in, out_values;
  int timed = 0;
  for (std::int64_t n : plan.sizes) {
    const double need = 2.0 * static_cast<double>(n) * sizeof(T);
    if (host_free > 0 && need + 512.0 * 1024 * 1024 > host_free) {
      e.notices.push_back("n = " + format_size(n) + " skipped: needs " + gigabytes(need) + " of host memory");
      continue;
    }
    progress.say("host reference: n = " + format_size(n));
    in.resize(static_cast<std::size_t>(n));
    out_values.resize(in.size());
    generate_input(in, plan.seed);
    std::vector<double> times;
    for (int r = 0; r < std::min(plan.repeat, 5); ++r) {
      const auto t0 = steady::now();
      reference::inclusive_scan(in.data(), out_values.data(), n, plus_op{});
      times.push_back(std::chrono::duration<double, std::milli>(steady::now() - t0).count());
    }
    const double ms = median(times);
    t.add_row({cell::of_size(n), cell::of("CPU host reference"), ms_cell(ms),
               cell::of_real(2.0 * static_cast<double>(n) * sizeof(T) / (ms * 1e6), 2), cell::of("reference")});
    e.findings.push_back(fmt("n = %s: the host reference scans in %.3f ms on one CPU thread; the GPU variants need a "
                             "CUDA device",
                             format_size(n).c_str(), ms));
    ++timed;
  }
  (void)largest;
  e.tables.push_back(std::move(t));
  out << format_experiment(e) << std::flush;
  report.experiments.push_back(std::move(e));
  for (int id = 2; id <= experiment_count; ++id) {
    experiment_report skipped = new_experiment(id);
    skipped.ran = false;
    skipped.skipped_reason = "no CUDA device";
    report.experiments.push_back(std::move(skipped));
  }
  return timed;
}

}  // namespace

int run_host_experiments(const lab_plan& plan, lab_report& report, std::ostream& out, std::ostream& progress_stream) {
  progress_log progress(progress_stream);
  add_run_metadata(plan, report);
  report.metadata.push_back({"device", cell::of("none")});
  switch (plan.type) {
    case value_type::int8: return host_typed<std::int8_t>(plan, report, out, progress);
    case value_type::uint8: return host_typed<std::uint8_t>(plan, report, out, progress);
    case value_type::int16: return host_typed<std::int16_t>(plan, report, out, progress);
    case value_type::uint16: return host_typed<std::uint16_t>(plan, report, out, progress);
    case value_type::int32: return host_typed<std::int32_t>(plan, report, out, progress);
    case value_type::uint32: return host_typed<std::uint32_t>(plan, report, out, progress);
    case value_type::int64: return host_typed<std::int64_t>(plan, report, out, progress);
    case value_type::uint64: return host_typed<std::uint64_t>(plan, report, out, progress);
    case value_type::float32: return host_typed<float>(plan, report, out, progress);
    case value_type::float64: return host_typed<double>(plan, report, out, progress);
  }
  return 0;
}

}  // namespace scankit::lab
