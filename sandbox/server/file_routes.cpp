// GET /download/<path>, /list/<path>, /exists/<path>: <path> is percent-encoded ('/' may come
// as %2F) and confined to the workdir.
#include <sys/stat.h>

#include <algorithm>
#include <vector>

#include "sandbox_api/file_answers.hpp"
#include "sandbox_routes.hpp"

namespace kg::sandbox {
namespace {

struct RequestedPath {
  std::string decoded;
  ConfinedPath confined;
};

RequestedPath requested_path(const RouteContext& context, const Exchange& exchange) {
  std::string decoded = percent_decode(exchange.path_tail);
  ConfinedPath confined = context.confinement.resolve(decoded);
  return RequestedPath{std::move(decoded), std::move(confined)};
}

HttpError not_found(const std::string& decoded) {
  return HttpError(404, "Nothing at \"" + decoded + "\" in the workdir");
}

using wire::sandbox_api::ListEntry;

std::vector<ListEntry> list_directory(const std::filesystem::path& directory) {
  std::vector<ListEntry> entries;
  for (const auto& item : std::filesystem::directory_iterator(directory)) {
    struct stat info {};
    if (::lstat(item.path().c_str(), &info) != 0) continue;  // removed meanwhile
    entries.push_back(ListEntry{item.path().filename().string(),
                                static_cast<std::uint64_t>(info.st_size), S_ISDIR(info.st_mode),
                                static_cast<double>(info.st_mtim.tv_sec) +
                                    static_cast<double>(info.st_mtim.tv_nsec) / 1e9});
  }
  std::sort(entries.begin(), entries.end(),
            [](const ListEntry& a, const ListEntry& b) { return a.name < b.name; });
  return entries;
}

}  // namespace

void serve_download(RouteContext& context, Exchange& exchange) {
  const RequestedPath path = requested_path(context, exchange);
  if (!path.confined.exists) throw not_found(path.decoded);
  if (std::filesystem::is_directory(path.confined.real_path)) {
    throw HttpError(400, "\"" + path.decoded + "\" is a directory: use /list/ to see what it holds");
  }
  if (!std::filesystem::is_regular_file(path.confined.real_path)) {
    throw HttpError(400, "\"" + path.decoded + "\" is not a regular file and cannot be downloaded");
  }
  exchange.response.sendFile(path.confined.real_path.string(), "application/octet-stream");
}

void serve_list(RouteContext& context, Exchange& exchange) {
  const RequestedPath path = requested_path(context, exchange);
  if (!path.confined.exists) throw not_found(path.decoded);
  if (!std::filesystem::is_directory(path.confined.real_path)) {
    throw HttpError(400, "\"" + path.decoded + "\" is a file, not a directory: use /download/");
  }
  send_json(exchange.response, 200,
            wire::sandbox_api::encode_list_answer(list_directory(path.confined.real_path)));
}

void serve_exists(RouteContext& context, Exchange& exchange) {
  const RequestedPath path = requested_path(context, exchange);
  send_json(exchange.response, 200,
            wire::sandbox_api::encode_exists_answer({path.decoded, path.confined.exists}));
}

}  // namespace kg::sandbox
