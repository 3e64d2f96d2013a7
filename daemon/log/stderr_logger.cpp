#include "stderr_logger.hpp"

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

std::string utc_timestamp() {
  const auto now = std::chrono::system_clock::now();
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buffer;
}

}  // namespace

void StderrLogger::log(plugin::LogLevel level, std::string_view message) noexcept {
  if (static_cast<int>(level) > static_cast<int>(threshold_)) return;
  try {
    std::string line = utc_timestamp();
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
