// The NCCL unique id that every rank of a communicator must share, and two ways to share it:
// between the threads of one process (memory) and between processes (a file).
#pragma once

#include <array>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>

namespace scankit::distributed {

// The bytes of an ncclUniqueId (NCCL_UNIQUE_ID_BYTES), kept NCCL-free for this header.
struct unique_id {
  std::array<char, 128> bytes{};
  friend bool operator==(const unique_id& a, const unique_id& b) { return a.bytes == b.bytes; }
};

// A fresh id (ncclGetUniqueId): made once, by one rank, per communicator.
unique_id create_unique_id();

// For threads of one process: rank 0 publishes the id, the others wait for it. One object per
// communicator to be created, shared by reference between the threads.
class shared_unique_id {
 public:
  void publish(const unique_id& id);
  // Waits up to `timeout` for publish(); throws communication_error (naming `rank`, `size`) when
  // nothing was published in time.
  unique_id wait(int rank, int size, std::chrono::milliseconds timeout);
  // Rank 0: creates and publishes an id; the others: wait for it.
  unique_id get(int rank, int size, std::chrono::milliseconds timeout);

 private:
  std::mutex mutex_;
  std::condition_variable published_;
  std::optional<unique_id> id_;
};

// For processes: the id travels through a file that all ranks can read (a local path on one
// host). write_unique_id_file writes a temporary file next to `path` and renames it into place,
// so a reader sees the whole id or nothing. read_unique_id_file polls for the file up to
// `timeout`, then throws communication_error. The path must be fresh for every run (a file left
// by an earlier run would hand out a stale id): the launcher makes a new directory per run.
void write_unique_id_file(const std::string& path, const unique_id& id);
unique_id read_unique_id_file(const std::string& path, int rank, int size, std::chrono::milliseconds timeout);
// Rank 0 creates the id and writes it; the others read it.
unique_id exchange_unique_id_file(const std::string& path, int rank, int size, std::chrono::milliseconds timeout);

}  // namespace scankit::distributed
