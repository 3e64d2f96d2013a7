// POST /upload: multipart/form-data with one file part named "file", stored in the workdir
// under its plain file name.
#include <Poco/Exception.h>
#include <Poco/Net/HTMLForm.h>
#include <Poco/Net/MessageHeader.h>
#include <Poco/Net/NameValueCollection.h>
#include <Poco/Net/PartHandler.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <istream>

#include "sandbox_api/workdir_answers.hpp"
#include "sandbox_routes.hpp"
#include "unique_fd.hpp"

namespace kg::sandbox {
namespace {

void check_plain_file_name(const std::string& name) {
  if (name.empty()) {
    throw HttpError(400, "The uploaded file has an empty name: set the part's filename");
  }
  if (name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    throw HttpError(400, "The uploaded file name \"" + name +
                             "\" is not a plain file name: use /upload-tar for paths");
  }
}

// Receives the "file" part: streams it into a temporary file in the workdir, then renames it
// into place, so a symlink of the same name is replaced rather than written through.
class WorkdirFilePart final : public Poco::Net::PartHandler {
 public:
  WorkdirFilePart(std::filesystem::path workdir, std::uint64_t max_bytes)
      : workdir_(std::move(workdir)), max_bytes_(max_bytes) {}

  void handlePart(const Poco::Net::MessageHeader& header, std::istream& stream) override {
    std::string disposition;
    Poco::Net::NameValueCollection parameters;
    Poco::Net::MessageHeader::splitParameters(header.get("Content-Disposition", ""), disposition,
                                              parameters);
    if (parameters.get("name", "") != "file") return;  // other file parts are skipped
    if (received_) throw HttpError(400, "The form has more than one part named \"file\"");
    received_ = true;
    filename_ = parameters.get("filename", "");
    check_plain_file_name(filename_);
    std::string temporary = (workdir_ / ".kg-upload-XXXXXX").string();
    UniqueFd file(::mkostemp(temporary.data(), O_CLOEXEC));
    if (!file) throw std::runtime_error("Cannot create " + temporary + ": " + std::strerror(errno));
    try {
      size_ = copy_capped(stream, file.get(), temporary);
      ::fchmod(file.get(), 0644);
      file.reset();
      store(temporary);
    } catch (...) {
      ::unlink(temporary.c_str());
      throw;
    }
  }

  bool received() const { return received_; }
  const std::string& filename() const { return filename_; }
  std::uint64_t size() const { return size_; }

 private:
  std::uint64_t copy_capped(std::istream& stream, int fd, const std::string& path) const {
    std::uint64_t total = 0;
    char buffer[64 * 1024];
    while (stream) {
      stream.read(buffer, sizeof buffer);
      const auto got = static_cast<std::size_t>(stream.gcount());
      if (got == 0) break;
      total += got;
      if (total > max_bytes_) {
        throw HttpError(413, "The uploaded file \"" + filename_ + "\" is larger than the limit of " +
                                 std::to_string(max_bytes_) + " bytes");
      }
      for (std::size_t written = 0; written < got;) {
        const ssize_t n = ::write(fd, buffer + written, got - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw std::runtime_error("Cannot write " + path + ": " + std::strerror(errno));
        written += static_cast<std::size_t>(n);
      }
    }
    return total;
  }

  void store(const std::string& temporary) const {
    const std::filesystem::path target = workdir_ / filename_;
    if (::rename(temporary.c_str(), target.c_str()) == 0) return;
    if (errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST) {
      throw HttpError(400, "Cannot store \"" + filename_ +
                               "\": a directory of that name is in the workdir");
    }
    throw std::runtime_error("Cannot store " + target.string() + ": " + std::strerror(errno));
  }

  std::filesystem::path workdir_;
  std::uint64_t max_bytes_;
  bool received_ = false;
  std::string filename_;
  std::uint64_t size_ = 0;
};

}  // namespace

void serve_upload(RouteContext& context, Exchange& exchange) {
  if (exchange.request.getContentType().rfind("multipart/form-data", 0) != 0) {
    throw HttpError(400, "/upload needs a multipart/form-data body with a file part named "
                         "\"file\" (curl -F file=@main.go)");
  }
  if (!has_body(exchange.request)) {
    throw HttpError(400, "/upload got no body: send the file as a multipart part named \"file\"");
  }
  WorkdirFilePart part(context.confinement.workdir(), context.options.max_upload_bytes);
  Poco::Net::HTMLForm form;
  try {
    form.load(exchange.request, exchange.request.stream(), part);
  } catch (const Poco::Exception& e) {
    throw HttpError(400, "The multipart body cannot be read: " + e.displayText());
  }
  if (!part.received()) {
    throw HttpError(400, form.has("file")
                             ? "The form field \"file\" is not a file: send it with a filename"
                             : "The form has no file part named \"file\"");
  }
  discard_rest_of_body(exchange);
  send_json(exchange.response, 200,
            wire::sandbox_api::encode_upload_answer({part.filename(), part.size()}));
}

}  // namespace kg::sandbox
