#include "stderr_logger.hpp"
#include "utc_time.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <stdexcept>
#include <string>

namespace kg {
namespace {

std::string_view level_name(plugin::LogLevel level) {
  switch (level) {
    case plugin::LogLevel::error: return "error";
    case plugin::LogLevel::warn: return "warn";
    case plugin::LogLevel::info: return "info";
    case plugin::LogLevel::debug: return "debug";
  }
  return "info";
}

}  // namespace

void StderrLogger::log(plugin::LogLevel level, std::string_view message) noexcept {
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

plugin::LogLevel parse_log_level(std::string_view text) {
  if (text == "error") return plugin::LogLevel::error;
  if (text == "warn") return plugin::LogLevel::warn;
  if (text == "info") return plugin::LogLevel::info;
  if (text == "debug") return plugin::LogLevel::debug;
  throw std::invalid_argument("log level must be one of error, warn, info, debug");
}

}  // namespace kg
