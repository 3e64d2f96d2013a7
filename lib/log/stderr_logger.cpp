#include "stderr_logger.hpp"
#include "utc_time.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <stdexcept>
#include <string>

namespace kg {
namespace {

std::string_view level_name(log::LogLevel level) {
  switch (level) {
    case log::LogLevel::error: return "error";
    case log::LogLevel::warn: return "warn";
    case log::LogLevel::info: return "info";
    case log::LogLevel::debug: return "debug";
  }
  return "info";
}

}  // namespace

void StderrLogger::log(log::LogLevel level, std::string_view message) noexcept {
  if (static_cast<int>(level) > static_cast<int>(threshold_)) return;
  try {
    std::string line = utc::to_rfc3339_millis(std::chrono::system_clock::now());
    line += ' ';
    line += level_name(level);
    line += ' ';
    line += message;
    line += '\n';
    std::lock_guard lock(mutex_);
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
  } catch (...) {
    // Logging must never take a caller down.
  }
}

log::LogLevel parse_log_level(std::string_view text) {
  if (text == "error") return log::LogLevel::error;
  if (text == "warn") return log::LogLevel::warn;
  if (text == "info") return log::LogLevel::info;
  if (text == "debug") return log::LogLevel::debug;
  throw std::invalid_argument("log level must be one of error, warn, info, debug");
}

}  // namespace kg
