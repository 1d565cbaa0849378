// Host tests of what comes before a communicator exists (no GPU, no NCCL call): the unique-id
// exchange (the file written by rank 0 and read by the others, the in-memory hand-over between
// threads, their timeouts) and the communicator's own argument checks, which come before any CUDA
// or NCCL call.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "scankit/distributed/communication_error.hpp"
#include "scankit/distributed/communicator.hpp"
#include "scankit/distributed/unique_id.hpp"
#include "scankit/error.hpp"

namespace {

using namespace scankit::distributed;
using namespace std::chrono_literals;

unique_id some_id(char seed) {
  unique_id id;
  for (std::size_t i = 0; i < id.bytes.size(); ++i) id.bytes[i] = static_cast<char>(seed + i * 7);
  return id;
}

std::string fresh_path(const char* name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("scankit-id-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
                    std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

TEST(DistributedUniqueId, FileRoundTrip) {
  const auto path = fresh_path("id");
  write_unique_id_file(path, some_id(3));
  EXPECT_EQ(read_unique_id_file(path, 1, 2, 1s), some_id(3));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp")) << "the temporary file was renamed into place";
}

TEST(DistributedUniqueId, ReaderWaitsForALateWriter) {
  const auto path = fresh_path("late");
  std::thread writer([&] {
    std::this_thread::sleep_for(100ms);
    write_unique_id_file(path, some_id(9));
  });
  EXPECT_EQ(read_unique_id_file(path, 3, 4, 10s), some_id(9));
  writer.join();
}

TEST(DistributedUniqueId, MissingFileTimesOutNamingTheRank) {
  const auto path = fresh_path("never");
  try {
    (void)read_unique_id_file(path, 2, 4, 50ms);
    FAIL() << "no exception";
  } catch (const communication_error& e) {
    EXPECT_EQ(e.rank(), 2);
    EXPECT_NE(std::string(e.what()).find("rank 2 of 4"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(DistributedUniqueId, ShortFileIsAnError) {
  const auto path = fresh_path("short");
  std::ofstream(path) << "abc";
  EXPECT_THROW((void)read_unique_id_file(path, 1, 2, 1s), communication_error);
  EXPECT_THROW(write_unique_id_file("", some_id(1)), scankit::error);
  EXPECT_THROW(write_unique_id_file(fresh_path("x") + "/no/such/dir/id", some_id(1)), scankit::error);
}

TEST(DistributedUniqueId, ThreadsShareThePublishedId) {
  shared_unique_id shared;
  unique_id seen[3];
  std::thread waiters[3];
  for (int r = 0; r < 3; ++r) waiters[r] = std::thread([&, r] { seen[r] = shared.wait(r + 1, 4, 10s); });
  std::this_thread::sleep_for(20ms);
  shared.publish(some_id(5));
  for (auto& t : waiters) t.join();
  for (const auto& id : seen) EXPECT_EQ(id, some_id(5));
}

TEST(DistributedUniqueId, NothingPublishedTimesOut) {
  shared_unique_id shared;
  EXPECT_THROW((void)shared.wait(1, 2, 30ms), communication_error);
}

TEST(DistributedCommunicator, RejectsBadRanksBeforeAnyCudaOrNcclCall) {
  const unique_id id{};
  EXPECT_THROW(communicator(id, 0, 0, 0), scankit::error);
  EXPECT_THROW(communicator(id, 2, 2, 0), scankit::error);
  EXPECT_THROW(communicator(id, -1, 2, 0), scankit::error);
  EXPECT_THROW(communicator(id, 0, 1, 0, communicator_options{std::chrono::milliseconds(0)}), scankit::error);
}

TEST(DistributedCommunicator, ErrorsNameRankStepAndCause) {
  const communication_error e(3, 4, "scankit::distributed::sort_keys/uint32: all-to-all of the keys", "timed out");
  EXPECT_STREQ(e.what(), "scankit::distributed rank 3 of 4: scankit::distributed::sort_keys/uint32: all-to-all of the keys: timed out");
  EXPECT_EQ(e.rank(), 3);
  EXPECT_EQ(e.cause(), "timed out");
}

}  // namespace
