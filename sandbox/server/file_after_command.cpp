#include "file_after_command.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "unique_fd.hpp"

namespace kg::sandbox {

FileAfterCommand read_file_after_command(const WorkdirConfinement& confinement,
                                         std::string_view path, std::uint64_t max_bytes) {
  FileAfterCommand file;
  file.path = std::string(path);
  ConfinedPath confined;
  try {
    confined = confinement.resolve(path);
  } catch (const std::exception& e) {
    file.error = e.what();
    return file;
  }
  if (!confined.exists) return file;
  file.exists = true;
  // resolve() followed every link already; a link appearing since is refused, not followed.
  const UniqueFd fd(::open(confined.real_path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  struct stat info {};
  if (!fd || ::fstat(fd.get(), &info) != 0) {
    file.error = "cannot open \"" + file.path + "\": " + std::strerror(errno);
    return file;
  }
  if (!S_ISREG(info.st_mode)) {
    file.error = "\"" + file.path + "\" is not a regular file";
    return file;
  }
  if (static_cast<std::uint64_t>(info.st_size) > max_bytes) {
    file.error = "\"" + file.path + "\" is larger than " + std::to_string(max_bytes) + " bytes";
    return file;
  }
  file.content.resize(static_cast<std::size_t>(info.st_size));
  std::size_t done = 0;
  while (done < file.content.size()) {
    const ssize_t n = ::read(fd.get(), file.content.data() + done, file.content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      file.error = "cannot read \"" + file.path + "\": " + std::strerror(errno);
      file.content.clear();
      return file;
    }
    if (n == 0) break;  // shrank since fstat (nothing runs now, but never read past the end)
    done += static_cast<std::size_t>(n);
  }
  file.content.resize(done);
  return file;
}

}  // namespace kg::sandbox
