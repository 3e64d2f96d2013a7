#include "protocol_writer.hpp"

#include <cerrno>
#include <string>

#include <unistd.h>

namespace kg::mcp {
namespace {

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(fd, data, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += written;
    size -= static_cast<std::size_t>(written);
  }
  return true;
}

}  // namespace

void ProtocolWriter::write_line(std::string_view line) {
  std::string framed;
  framed.reserve(line.size() + 1);
  framed.append(line);
  framed += '\n';
  std::lock_guard lock(mutex_);
  if (broken_) return;
  if (!write_all(fd_, framed.data(), framed.size())) broken_ = true;
}

bool ProtocolWriter::broken() const {
  std::lock_guard lock(mutex_);
  return broken_;
}

}  // namespace kg::mcp
