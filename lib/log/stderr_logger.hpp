// The daemon's logger: one line per message on stderr, "2026-12-02T09:00:00.123Z info message".
// Thread-safe (a mutex keeps lines whole). Owned by Instance and lent to plugins as their Logger.
#pragma once

#include <mutex>
#include <string_view>

#include "logger.hpp"

namespace kg {

class StderrLogger final : public log::Logger {
 public:
  explicit StderrLogger(log::LogLevel threshold) : threshold_(threshold) {}
  void log(log::LogLevel level, std::string_view message) noexcept override;

 private:
  std::mutex mutex_;
  log::LogLevel threshold_;
};

// Parses "error|warn|info|debug"; throws std::invalid_argument otherwise.
log::LogLevel parse_log_level(std::string_view text);

}  // namespace kg
