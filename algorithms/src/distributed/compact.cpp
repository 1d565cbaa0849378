// Distributed selection (scankit/distributed/compact.hpp): the precompiled local select, then an
// all-gather of the counts.
#include "scankit/distributed/compact.hpp"

#include <string>

#include "collectives.hpp"
#include "scankit/compact.hpp"
#include "scankit/detail/nvtx_range.hpp"
#include "scankit/error.hpp"

namespace scankit::distributed {

namespace {

// Everything scankit's select checks, before any launch or collective: the local select must not
// be the one to reject an argument after some ranks have already gathered.
template <class T>
void check_arguments(communicator& comm, const T* in, const void* flags, T* out, std::int64_t n, const std::string& where) {
  detail::check_in_out(comm, in, out, n, sizeof(T), where);
  if (flags != nullptr && detail::overlap(flags, static_cast<std::size_t>(n), out, static_cast<std::size_t>(n) * sizeof(T))) {
    throw error(where + ": flags and out overlap");
  }
}

// The gather that turns a local count into a place in the global result.
shard_info place(communicator& comm, std::int64_t count, const std::string& name, cudaStream_t stream) {
  detail::call_record mine;
  mine.signature = detail::call_signature(name);
  mine.values[0] = count;
  const auto records = detail::agree_on_call(comm, mine, stream, name + ": all-gather of the counts");
  shard_info info{count, 0, 0};
  for (int r = 0; r < comm.size(); ++r) {
    const std::int64_t c = records[static_cast<std::size_t>(r)].values[0];
    if (r < comm.rank()) info.global_offset += c;
    info.global_count += c;
  }
  return info;
}

template <class T>
shard_info select_if_impl(communicator& comm, const T* in, T* out, std::int64_t n, keep_in_range<T> pred,
                          cudaStream_t stream, workspace* ws, const compact_options& options) {
  const std::string name = std::string("scankit::distributed::select_if/") + detail::type_name<T>();
  const ::scankit::detail::nvtx_range nvtx(name.c_str());
  check_arguments(comm, in, nullptr, out, n, name);
  // The *_count_host form waits for the local stream; only local work is queued on it here.
  const std::int64_t count = scankit::select_if_count_host(in, out, n, pred, stream, ws, options);
  return place(comm, count, name, stream);
}

template <class T>
shard_info select_flagged_impl(communicator& comm, const T* in, const std::uint8_t* flags, T* out, std::int64_t n,
                               cudaStream_t stream, workspace* ws, const compact_options& options) {
  const std::string name = std::string("scankit::distributed::select_flagged/") + detail::type_name<T>();
  const ::scankit::detail::nvtx_range nvtx(name.c_str());
  check_arguments(comm, in, flags, out, n, name);
  if (n > 0 && flags == nullptr) throw error(name + ": null flags with n > 0");
  const std::int64_t count = scankit::select_flagged_count_host(in, flags, out, n, stream, ws, options);
  return place(comm, count, name, stream);
}

}  // namespace

#define SCANKIT_DISTRIBUTED_DEFINE_SELECT(T)                                                                   \
  shard_info select_if(communicator& comm, const T* in, T* out, std::int64_t n, keep_in_range<T> pred,         \
                       cudaStream_t stream, workspace* ws, const compact_options& options) {                   \
    return select_if_impl<T>(comm, in, out, n, pred, stream, ws, options);                                      \
  }                                                                                                            \
  shard_info select_flagged(communicator& comm, const T* in, const std::uint8_t* flags, T* out, std::int64_t n, \
                            cudaStream_t stream, workspace* ws, const compact_options& options) {              \
    return select_flagged_impl<T>(comm, in, flags, out, n, stream, ws, options);                                \
  }

SCANKIT_DISTRIBUTED_DEFINE_SELECT(std::int32_t)
SCANKIT_DISTRIBUTED_DEFINE_SELECT(std::uint32_t)
SCANKIT_DISTRIBUTED_DEFINE_SELECT(std::int64_t)
SCANKIT_DISTRIBUTED_DEFINE_SELECT(std::uint64_t)
SCANKIT_DISTRIBUTED_DEFINE_SELECT(float)
SCANKIT_DISTRIBUTED_DEFINE_SELECT(double)

#undef SCANKIT_DISTRIBUTED_DEFINE_SELECT

}  // namespace scankit::distributed
