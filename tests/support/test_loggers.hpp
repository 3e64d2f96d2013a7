// Loggers for tests: one that drops every line, one that keeps them (thread-safe) for the test
// to read back. Shared by the suites (header-only; include it by relative path).
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "logger.hpp"

namespace kg::test {

class NullLogger final : public log::Logger {
 public:
  void log(log::LogLevel, std::string_view) noexcept override {}
};

class RecordingLogger final : public log::Logger {
 public:
  using Entry = std::pair<log::LogLevel, std::string>;

  void log(log::LogLevel level, std::string_view message) noexcept override {
    std::lock_guard lock(mutex_);
    entries_.emplace_back(level, std::string(message));
  }
  // Every line with its level, in order.
  std::vector<Entry> entries() const {
    std::lock_guard lock(mutex_);
    return entries_;
  }
  // Every message, in order.
  std::vector<std::string> lines() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> messages;
    for (const auto& entry : entries_) messages.push_back(entry.second);
    return messages;
  }
  // Every message, one per line.
  std::string text() const {
    std::lock_guard lock(mutex_);
    std::string all;
    for (const auto& entry : entries_) all += entry.second + "\n";
    return all;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
};

}  // namespace kg::test
