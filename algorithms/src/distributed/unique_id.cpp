// Creating and sharing the NCCL unique id (scankit/distributed/unique_id.hpp).
#include "scankit/distributed/unique_id.hpp"

#include <nccl.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>

#include "scankit/distributed/communication_error.hpp"
#include "scankit/error.hpp"

namespace scankit::distributed {

static_assert(sizeof(ncclUniqueId) == sizeof(unique_id::bytes), "unique_id must hold an ncclUniqueId");

unique_id create_unique_id() {
  ncclUniqueId nccl_id;
  const ncclResult_t result = ncclGetUniqueId(&nccl_id);
  if (result != ncclSuccess) {
    throw communication_error(0, 0, "ncclGetUniqueId", ncclGetErrorString(result));
  }
  unique_id id;
  std::memcpy(id.bytes.data(), &nccl_id, sizeof(nccl_id));
  return id;
}

void shared_unique_id::publish(const unique_id& id) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    id_ = id;
  }
  published_.notify_all();
}

unique_id shared_unique_id::wait(int rank, int size, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!published_.wait_for(lock, timeout, [this] { return id_.has_value(); })) {
    throw communication_error(rank, size, "waiting for the unique id from rank 0",
                              "nothing published within " + std::to_string(timeout.count()) + " ms");
  }
  return *id_;
}

unique_id shared_unique_id::get(int rank, int size, std::chrono::milliseconds timeout) {
  if (rank == 0) publish(create_unique_id());
  return wait(rank, size, timeout);
}

void write_unique_id_file(const std::string& path, const unique_id& id) {
  if (path.empty()) throw error("scankit::distributed::write_unique_id_file: empty path");
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(id.bytes.data(), static_cast<std::streamsize>(id.bytes.size()));
    out.flush();
    if (!out) throw error("scankit::distributed::write_unique_id_file: cannot write " + temporary);
  }
  // rename() replaces the target atomically: a reader opens either no file or the complete id.
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    throw error("scankit::distributed::write_unique_id_file: cannot rename " + temporary + " to " + path + ": " +
                std::strerror(errno));
  }
}

unique_id read_unique_id_file(const std::string& path, int rank, int size, std::chrono::milliseconds timeout) {
  if (path.empty()) throw error("scankit::distributed::read_unique_id_file: empty path");
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      unique_id id;
      in.read(id.bytes.data(), static_cast<std::streamsize>(id.bytes.size()));
      if (in.gcount() == static_cast<std::streamsize>(id.bytes.size())) return id;
      // Only a foreign writer leaves a short file (ours renames a complete one into place).
      throw communication_error(rank, size, "reading the unique id from " + path,
                                "the file holds " + std::to_string(in.gcount()) + " bytes, expected " +
                                    std::to_string(id.bytes.size()));
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      throw communication_error(rank, size, "reading the unique id from " + path,
                                "no file within " + std::to_string(timeout.count()) + " ms (did rank 0 start?)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

unique_id exchange_unique_id_file(const std::string& path, int rank, int size, std::chrono::milliseconds timeout) {
  if (rank == 0) {
    const unique_id id = create_unique_id();
    write_unique_id_file(path, id);
    return id;
  }
  return read_unique_id_file(path, rank, size, timeout);
}

}  // namespace scankit::distributed
