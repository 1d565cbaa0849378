// Shared helpers of the lab tests: temporary folders, file reading, a strict JSON syntax check
// (nlohmann-json, Debian's nlohmann-json3-dev).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include <nlohmann/json.hpp>

namespace scankit::lab::testing {

// A fresh, empty folder under the system's temporary folder, removed when the object goes.
class temp_dir {
 public:
  temp_dir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string("scankit-lab-") + (info ? info->name() : "test") + "-" + std::to_string(::getpid());
    path_ = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Whether `text` is one valid JSON value (RFC 8259), with nothing but blanks after it; on failure
// the parser's message (position and reason).
inline ::testing::AssertionResult is_valid_json(const std::string& text) {
  try {
    const nlohmann::json parsed = nlohmann::json::parse(text);
    (void)parsed;
    return ::testing::AssertionSuccess();
  } catch (const nlohmann::json::parse_error& e) {
    return ::testing::AssertionFailure() << "invalid JSON: " << e.what();
  }
}

}  // namespace scankit::lab::testing
