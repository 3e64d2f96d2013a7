// POST /upload-tar[?dir=<relative dir>]: the body is a tar, extracted under the workdir (or
// the confined `dir`, created when missing) in one round trip.
#include <Poco/URI.h>

#include <istream>

#include "sandbox_routes.hpp"
#include "tar_extractor.hpp"

namespace kg::sandbox {
namespace {

constexpr std::uint64_t kMaxTarEntries = 100'000;

std::string target_dir_parameter(const std::string& query) {
  Poco::URI uri;
  uri.setRawQuery(query);
  for (const auto& [name, value] : uri.getQueryParameters()) {
    if (name == "dir") return value;
  }
  return {};
}

std::filesystem::path prepare_target(const RouteContext& context, const std::string& dir) {
  const ConfinedPath target = context.confinement.resolve(dir);
  if (target.exists) {
    if (!std::filesystem::is_directory(target.real_path)) {
      throw HttpError(400, "The upload target \"" + dir + "\" is a file, not a directory");
    }
    return target.real_path;
  }
  std::error_code error;
  std::filesystem::create_directories(target.real_path, error);
  if (error) {
    throw HttpError(400, "Cannot create the upload target \"" + dir + "\": " + error.message());
  }
  return target.real_path;
}

}  // namespace

void serve_upload_tar(RouteContext& context, Exchange& exchange) {
  const std::filesystem::path destination =
      prepare_target(context, target_dir_parameter(exchange.query));
  std::istream& body = exchange.request.stream();
  const bool announced = has_body(exchange.request);
  const TarByteSource source = [&body, announced](std::span<char> buffer) -> std::size_t {
    if (!announced) return 0;
    body.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    return static_cast<std::size_t>(body.gcount());
  };
  const TarExtractionSummary summary = extract_tar(
      source, destination, TarLimits{context.options.max_upload_bytes, kMaxTarEntries});
  discard_rest_of_body(exchange);
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("files");
  writer.Uint64(summary.files);
  writer.Key("bytes");
  writer.Uint64(summary.bytes);
  writer.EndObject();
  send_json(exchange.response, buffer);
}

}  // namespace kg::sandbox
