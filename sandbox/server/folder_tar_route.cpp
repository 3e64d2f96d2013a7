// GET /download-tar/<path>?max_files=&max_file_bytes=&max_total_bytes=: the folder at <path>
// (relative to the workdir, never through a link) as a tar of its regular files, within the
// bounds the query names (folder_tar.hpp). The daemon collects a program's /app/out this way
// after every call, from a local sandbox and a Kubernetes pod alike (docs/sandbox-api.md).
#include <Poco/URI.h>
#include <sys/stat.h>

#include <charconv>

#include "folder_tar.hpp"
#include "sandbox_routes.hpp"

namespace kg::sandbox {
namespace {

std::uint64_t bound(const std::string& name, const std::string& value) {
  std::uint64_t parsed = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (error != std::errc() || end != value.data() + value.size() || parsed == 0) {
    throw HttpError(400, "\"" + name + "\" must be a positive integer, not \"" + value + "\"");
  }
  return parsed;
}

FolderTarLimits limits_of(const std::string& query) {
  Poco::URI uri;
  uri.setRawQuery(query);
  FolderTarLimits limits;
  for (const auto& [name, value] : uri.getQueryParameters()) {
    if (name == "max_files") limits.max_files = bound(name, value);
    if (name == "max_file_bytes") limits.max_file_bytes = bound(name, value);
    if (name == "max_total_bytes") limits.max_total_bytes = bound(name, value);
  }
  return limits;
}

}  // namespace

void serve_download_tar(RouteContext& context, Exchange& exchange) {
  const FolderTarLimits limits = limits_of(exchange.query);
  const std::string decoded = percent_decode(exchange.path_tail);
  const ConfinedPath confined = context.confinement.resolve(decoded);
  if (!confined.exists) throw HttpError(404, "Nothing at \"" + decoded + "\" in the workdir");
  // The folder itself must not be a link either (even one that stays inside the workdir).
  const std::filesystem::path asked = context.confinement.workdir() / decoded;
  struct stat info {};
  if (::lstat(asked.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    throw HttpError(400, "\"" + decoded + "\" is not a folder (a link to one is refused)");
  }
  const std::string tar = pack_folder(asked, limits);
  exchange.response.setStatus(Poco::Net::HTTPResponse::HTTP_OK);
  exchange.response.setContentType("application/x-tar");
  exchange.response.setContentLength64(static_cast<Poco::Int64>(tar.size()));
  exchange.response.send().write(tar.data(), static_cast<std::streamsize>(tar.size()));
}

}  // namespace kg::sandbox
