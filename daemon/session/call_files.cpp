#include "call_files.hpp"

#include <Poco/URI.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>

#include "form_encoding.hpp"
#include "media_type.hpp"
#include "owner_folder.hpp"

namespace kg::session {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kUriPrefix = "kode-gopher://sessions/";

// Session ids are the daemon's own ("s-" and hex); anything else names no folder here.
bool is_session_id(std::string_view id) {
  return !id.empty() && id.size() <= 64 &&
         std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
         });
}

std::string read_whole(const fs::path& path) {
  // O_NOFOLLOW: only the daemon writes here, but a link would never be its own.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) throw CallFileNotFoundError("No such file");
  struct stat info {};
  std::string content;
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
    content.resize(static_cast<std::size_t>(info.st_size));
    std::size_t got = 0;
    while (got < content.size()) {
      const ssize_t n = ::read(fd, content.data() + got, content.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    content.resize(got);
  }
  ::close(fd);
  if (!S_ISREG(info.st_mode)) throw CallFileNotFoundError("No such file");
  return content;
}

}  // namespace

CallFileStore::CallFileStore(fs::path root) : root_(std::move(root)) {
  std::error_code error;
  fs::remove_all(root_, error);
  fs::create_directories(root_, error);
  if (error || ::chmod(root_.c_str(), 0700) != 0) {
    throw std::runtime_error("Cannot make the folder for the files calls leave, " + root_.string() +
                             ": " + (error ? error.message() : std::strerror(errno)));
  }
}

fs::path CallFileStore::session_folder(const std::string& owner,
                                       const std::string& session_id) const {
  if (!is_session_id(session_id)) throw CallFileNotFoundError("No such session");
  return root_ / sandbox::owner_folder_name(owner) / session_id;
}

std::vector<OutFile> CallFileStore::keep(const std::string& owner, const std::string& session_id,
                                         std::int64_t call_id,
                                         const std::vector<sandbox::FolderFile>& files) {
  std::vector<OutFile> kept;
  if (files.empty()) return kept;
  const fs::path call_folder = session_folder(owner, session_id) / std::to_string(call_id);
  for (const auto& file : files) {
    // The name was checked (sandbox::checked_out_file_name): relative, no '.' or '..' segment.
    const fs::path target = call_folder / file.name;
    std::error_code error;
    fs::create_directories(target.parent_path(), error);
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    out.write(file.content.data(), static_cast<std::streamsize>(file.content.size()));
    out.close();
    if (error || !out) {
      throw std::runtime_error("Cannot keep " + std::string(kOutFolderInSandbox) + "/" + file.name +
                               " in " + call_folder.string() +
                               (error ? ": " + error.message() : ""));
    }
    kept.push_back(OutFile{file.name, file.content.size(), guess_media_type(file.name, file.content),
                           out_file_uri(session_id, call_id, file.name)});
  }
  return kept;
}

OutFileContent CallFileStore::read(const std::string& owner, const std::string& session_id,
                                   std::int64_t call_id, const std::string& name) const {
  const std::string checked = sandbox::checked_out_file_name(name);
  if (checked.empty() || call_id <= 0) throw CallFileNotFoundError("No such file");
  std::string content =
      read_whole(session_folder(owner, session_id) / std::to_string(call_id) / checked);
  std::string media_type = guess_media_type(checked, content);
  return OutFileContent{std::move(content), std::move(media_type)};
}

std::vector<OutFile> CallFileStore::list(const std::string& owner,
                                         const std::string& session_id) const {
  std::vector<OutFile> files;
  const fs::path folder = session_folder(owner, session_id);
  std::error_code error;
  std::map<std::int64_t, fs::path> calls;
  for (const auto& item : fs::directory_iterator(folder, error)) {
    std::int64_t id = 0;
    const std::string name = item.path().filename().string();
    const auto [end, problem] = std::from_chars(name.data(), name.data() + name.size(), id);
    if (problem == std::errc() && end == name.data() + name.size()) calls.emplace(id, item.path());
  }
  for (const auto& [call_id, call_folder] : calls) {
    std::vector<OutFile> of_call;
    for (auto it = fs::recursive_directory_iterator(call_folder, error);
         it != fs::recursive_directory_iterator(); it.increment(error)) {
      if (error) break;
      if (!it->is_regular_file(error) || it->is_symlink(error)) continue;
      const std::string name = fs::relative(it->path(), call_folder, error).generic_string();
      // Sniffing needs only the start; the extension decides for most names.
      std::string head(512, '\0');
      std::ifstream in(it->path(), std::ios::binary);
      in.read(head.data(), static_cast<std::streamsize>(head.size()));
      head.resize(static_cast<std::size_t>(in.gcount()));
      of_call.push_back(OutFile{name, static_cast<std::uint64_t>(it->file_size(error)),
                                guess_media_type(name, head),
                                out_file_uri(session_id, call_id, name)});
    }
    std::sort(of_call.begin(), of_call.end(),
              [](const OutFile& a, const OutFile& b) { return a.name < b.name; });
    files.insert(files.end(), of_call.begin(), of_call.end());
  }
  return files;
}

void CallFileStore::drop_session(const std::string& owner, const std::string& session_id) noexcept {
  try {
    std::error_code error;
    fs::remove_all(session_folder(owner, session_id), error);
    fs::remove(root_ / sandbox::owner_folder_name(owner), error);  // only when empty
  } catch (...) {
  }
}

std::string out_file_uri(const std::string& session_id, std::int64_t call_id,
                         const std::string& name) {
  std::string uri = std::string(kUriPrefix) + net::percent_encode(session_id) + "/calls/" +
                    std::to_string(call_id) + "/files";
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find('/', start);
    if (end == std::string::npos) end = name.size();
    uri += "/" + net::percent_encode(name.substr(start, end - start));
    start = end + 1;
  }
  return uri;
}

bool parse_out_file_uri(std::string_view uri, OutFileAddress& address) {
  if (!uri.starts_with(kUriPrefix)) return false;
  std::string path;
  try {
    Poco::URI::decode(std::string(uri.substr(kUriPrefix.size())), path);
  } catch (const std::exception&) {
    return false;
  }
  // <session>/calls/<call>/files/<name>
  const auto first = path.find('/');
  if (first == std::string::npos) return false;
  address.session_id = path.substr(0, first);
  const std::string_view rest = std::string_view(path).substr(first + 1);
  if (!rest.starts_with("calls/")) return false;
  const std::string_view after_calls = rest.substr(6);
  const auto slash = after_calls.find('/');
  if (slash == std::string_view::npos) return false;
  const std::string_view call = after_calls.substr(0, slash);
  const auto [end, problem] = std::from_chars(call.data(), call.data() + call.size(), address.call_id);
  if (problem != std::errc() || end != call.data() + call.size()) return false;
  const std::string_view after_call = after_calls.substr(slash + 1);
  if (!after_call.starts_with("files/")) return false;
  address.name = std::string(after_call.substr(6));
  return !address.name.empty();
}

}  // namespace kg::session
