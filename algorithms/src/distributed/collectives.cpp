// The module's building blocks on a communicator (collectives.hpp).
#include "collectives.hpp"

#include <nccl.h>

#include <cstdint>

#include "scankit/error.hpp"

namespace scankit::distributed::detail {

std::int64_t call_signature(const std::string& description) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (const unsigned char c : description) h = (h ^ c) * 0x100000001b3ull;
  return static_cast<std::int64_t>(h >> 1);
}

void check_signatures(const communicator& comm, const std::vector<call_record>& records, const std::string& operation) {
  for (std::size_t r = 1; r < records.size(); ++r) {
    if (records[r].signature != records[0].signature) {
      throw communication_error(comm.rank(), comm.size(), operation,
                                "rank " + std::to_string(r) + " made a different call than rank 0 (another "
                                "operation, value type or option): every rank must make the same calls in the same order");
    }
  }
}

std::vector<call_record> agree_on_call(communicator& comm, const call_record& mine, cudaStream_t stream,
                                       const std::string& operation) {
  const std::vector<std::int64_t> flat = {mine.signature, mine.values[0], mine.values[1], mine.values[2]};
  const auto all = all_gather_host(comm, flat, stream, operation);
  std::vector<call_record> records(static_cast<std::size_t>(comm.size()));
  for (std::size_t r = 0; r < records.size(); ++r) {
    records[r].signature = all[4 * r];
    for (std::size_t k = 0; k < 3; ++k) records[r].values[k] = all[4 * r + 1 + k];
  }
  check_signatures(comm, records, operation);
  return records;
}

std::vector<std::int64_t> all_gather_host(communicator& comm, const std::vector<std::int64_t>& mine,
                                          cudaStream_t stream, const std::string& operation) {
  const std::size_t count = mine.size(), ranks = static_cast<std::size_t>(comm.size());
  std::vector<std::int64_t> all(count * ranks);
  if (count == 0) return all;
  device_scratch buffer((ranks + 1) * count * sizeof(std::int64_t), stream);
  auto* send = buffer.get<std::int64_t>();
  auto* recv = send + count;
  // Pageable host memory is staged before cudaMemcpyAsync returns, so `mine` may go afterwards.
  SCANKIT_CUDA_CHECK(cudaMemcpyAsync(send, mine.data(), count * sizeof(std::int64_t), cudaMemcpyHostToDevice, stream));
  comm.complete(ncclAllGather(send, recv, count, ncclInt64, comm.native(), stream), operation.c_str());
  comm.wait(stream, operation.c_str());
  copy_to_host(all.data(), recv, all.size() * sizeof(std::int64_t), stream);
  return all;
}

void run_exchange(communicator& comm, const exchange_plan& plan, const void* send_base, void* recv_base,
                  std::size_t item_bytes, cudaStream_t stream, const std::string& operation) {
  const auto* send = static_cast<const unsigned char*>(send_base);
  auto* recv = static_cast<unsigned char*>(recv_base);
  const int self = comm.rank();
  // The local part: the send and the receive with peer == self describe the same items.
  for (const auto& s : plan.sends) {
    if (s.peer != self) continue;
    for (const auto& r : plan.receives) {
      if (r.peer != self) continue;
      SCANKIT_CUDA_CHECK(cudaMemcpyAsync(recv + static_cast<std::size_t>(r.offset) * item_bytes,
                                         send + static_cast<std::size_t>(s.offset) * item_bytes,
                                         static_cast<std::size_t>(s.count) * item_bytes, cudaMemcpyDeviceToDevice, stream));
    }
  }
  // Sends and receives in one group, so that every pair progresses together (no ordering between
  // peers can deadlock). Bytes travel as ncclUint8: any item type, counts beyond 2^31 included.
  comm.complete(ncclGroupStart(), operation.c_str());
  for (const auto& s : plan.sends) {
    if (s.peer == self) continue;
    comm.complete(ncclSend(send + static_cast<std::size_t>(s.offset) * item_bytes,
                           static_cast<std::size_t>(s.count) * item_bytes, ncclUint8, s.peer, comm.native(), stream),
                  operation.c_str());
  }
  for (const auto& r : plan.receives) {
    if (r.peer == self) continue;
    comm.complete(ncclRecv(recv + static_cast<std::size_t>(r.offset) * item_bytes,
                           static_cast<std::size_t>(r.count) * item_bytes, ncclUint8, r.peer, comm.native(), stream),
                  operation.c_str());
  }
  comm.complete(ncclGroupEnd(), operation.c_str());
  comm.wait(stream, operation.c_str());
}

void copy_to_host(void* host, const void* device, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  SCANKIT_CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream));
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void check_in_out(const communicator& comm, const void* in, const void* out, std::int64_t n, std::size_t item_bytes,
                  const std::string& where) {
  comm.check_ready(where.c_str());
  if (n < 0) throw error(where + ": negative n " + std::to_string(n));
  if (n > 0 && (in == nullptr || out == nullptr)) throw error(where + ": null array with n > 0");
  const std::size_t bytes = static_cast<std::size_t>(n) * item_bytes;
  if (partially_overlap(in, bytes, out, bytes)) throw error(where + ": in and out overlap (only out == in is allowed)");
}

bool overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  if (a_bytes == 0 || b_bytes == 0) return false;
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return x < y + b_bytes && y < x + a_bytes;
}

bool partially_overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  return a != b && overlap(a, a_bytes, b, b_bytes);
}

}  // namespace scankit::distributed::detail
