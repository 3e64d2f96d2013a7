// POST /upload-tar[?dir=<relative dir>][&replace=1]: the body is a tar, extracted under the
// workdir (or the confined `dir`, created when missing) in one round trip. With replace=1 the
// workdir is emptied first (what POST /reset does), so a new program replaces the last one in
// that same round trip.
#include <Poco/URI.h>

#include <istream>

#include "sandbox_api/workdir_answers.hpp"
#include "sandbox_routes.hpp"
#include "tar_extractor.hpp"
#include "workdir_reset.hpp"

namespace kg::sandbox {
namespace {

constexpr std::uint64_t kMaxTarEntries = 100'000;

struct UploadParameters {
  std::string dir;
  bool replace = false;
};

UploadParameters upload_parameters(const std::string& query) {
  Poco::URI uri;
  uri.setRawQuery(query);
  UploadParameters parameters;
  for (const auto& [name, value] : uri.getQueryParameters()) {
    if (name == "dir") {
      parameters.dir = value;
    } else if (name == "replace") {
      if (value != "0" && value != "1" && value != "true" && value != "false") {
        throw HttpError(400, "\"replace\" must be 1 or 0 (true or false), not \"" + value + "\"");
      }
      parameters.replace = value == "1" || value == "true";
    }
  }
  return parameters;
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
  const UploadParameters parameters = upload_parameters(exchange.query);
  if (parameters.replace) {
    try {
      remove_workdir_contents(context.confinement.workdir());
    } catch (...) {
      discard_rest_of_body(exchange);  // so the client reads this answer, not a reset
      throw;
    }
  }
  const std::filesystem::path destination = prepare_target(context, parameters.dir);
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
  send_json(exchange.response, 200,
            wire::sandbox_api::encode_upload_tar_answer({summary.files, summary.bytes}));
}

}  // namespace kg::sandbox
