#include "out_files_saver.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "daemon_client.hpp"
#include "unix_http_client.hpp"

namespace kg::cli {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kUriPrefix = "kode-gopher://sessions/";

// The daemon checked the name already; a name that would still leave DIR is refused here too.
fs::path target_in(const fs::path& dir, const std::string& name) {
  const fs::path relative = fs::path(name).lexically_normal();
  if (name.empty() || relative.is_absolute() || relative.empty() ||
      *relative.begin() == "..") {
    throw std::runtime_error("The daemon listed a file named \"" + name +
                             "\", which would not land inside " + dir.string());
  }
  return dir / relative;
}

}  // namespace

std::size_t save_out_files(const std::string& socket_path,
                           const std::vector<wire::daemon_api::OutFile>& files,
                           const std::string& dir, std::ostream& err) {
  std::size_t saved = 0;
  for (const auto& file : files) {
    const std::string& name = file.name;
    const std::string& uri = file.uri;
    if (!uri.starts_with(kUriPrefix)) continue;
    kg::net::HttpRequestOptions options;
    options.max_response_bytes = 64ull << 20;
    const kg::net::HttpResponse response = kg::net::UnixHttpClient(socket_path).request(
        "GET", "/v1/sessions/" + uri.substr(kUriPrefix.size()), {}, options);
    if (response.status < 200 || response.status > 299) {
      throw daemon_error_from_answer(response.status, response.body);
    }
    const fs::path target = target_in(dir, name);
    std::error_code error;
    fs::create_directories(target.parent_path(), error);
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    out.write(response.body.data(), static_cast<std::streamsize>(response.body.size()));
    out.close();
    if (error || !out) {
      throw std::runtime_error("Cannot write " + target.string() +
                               (error ? ": " + error.message() : ""));
    }
    err << "saved /app/out/" << name << " to " << target.string() << '\n';
    ++saved;
  }
  return saved;
}

}  // namespace kg::cli
