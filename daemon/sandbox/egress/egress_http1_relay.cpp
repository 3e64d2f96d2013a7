#include "egress_http1_relay.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/String.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <charconv>
#include <chrono>
#include <sstream>

namespace kg::sandbox {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxHeadBytes = 64 * 1024;
constexpr std::size_t kMaxLineBytes = 8 * 1024;
constexpr std::uint64_t kMaxJsonPeek = 64 * 1024;

// A bad request from the program: answered with `status` and the message, then closed.
struct BadRequest {
  int status;
  std::string message;
};

// Reads from a TLS stream through a buffer: heads and chunk lines by delimiter, bodies by size.
class BufferedReader {
 public:
  explicit BufferedReader(TlsStream& stream) : stream_(stream) {}

  // Everything up to and including the blank line. Empty when the peer closed before a byte.
  std::string head(const char* whose) {
    for (;;) {
      const auto end = buffer_.find("\r\n\r\n");
      if (end != std::string::npos) return take_prefix(end + 4);
      if (buffer_.size() > kMaxHeadBytes) {
        throw BadRequest{431, std::string(whose) + " head is larger than 64 KiB"};
      }
      if (!fill()) {
        if (buffer_.empty()) return {};
        throw TlsStreamError(std::string(whose) + " closed the connection inside a head");
      }
    }
  }
  std::string line() {
    for (;;) {
      const auto end = buffer_.find("\r\n");
      if (end != std::string::npos) return take_prefix(end + 2);
      if (buffer_.size() > kMaxLineBytes) throw BadRequest{400, "A chunk line is too long"};
      if (!fill()) throw TlsStreamError("the connection closed inside a chunked body");
    }
  }
  // Up to `most` bytes; empty only when the peer closed.
  std::string some(std::uint64_t most) {
    if (buffer_.empty() && !fill()) return {};
    return take_prefix(static_cast<std::size_t>(std::min<std::uint64_t>(most, buffer_.size())));
  }

 private:
  bool fill() {
    char chunk[16384];
    const std::size_t got = stream_.read_some(chunk, sizeof chunk);
    if (got == 0) return false;
    buffer_.append(chunk, got);
    return true;
  }
  std::string take_prefix(std::size_t size) {
    std::string part = buffer_.substr(0, size);
    buffer_.erase(0, size);
    return part;
  }

  TlsStream& stream_;
  std::string buffer_;
};

enum class Framing { none, length, chunked, until_close };

struct BodyFraming {
  Framing framing = Framing::none;
  std::uint64_t length = 0;
};

std::uint64_t parse_length(const std::string& text) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    throw BadRequest{400, "Content-Length \"" + text + "\" is not a number"};
  }
  return value;
}

BodyFraming framing_of(const Poco::Net::HTTPMessage& message, bool request) {
  if (message.has("Transfer-Encoding")) {
    if (Poco::icompare(message.get("Transfer-Encoding"), "chunked") != 0) {
      throw BadRequest{501, "Transfer-Encoding other than chunked is not relayed"};
    }
    return {Framing::chunked, 0};
  }
  if (message.has("Content-Length")) return {Framing::length, parse_length(message.get("Content-Length"))};
  return {request ? Framing::none : Framing::until_close, 0};
}

std::uint64_t copy_length(BufferedReader& from, TlsStream& to, std::uint64_t length) {
  std::uint64_t left = length;
  while (left > 0) {
    const std::string part = from.some(left);
    if (part.empty()) throw TlsStreamError("the connection closed inside a body");
    to.write_all(part);
    left -= part.size();
  }
  return length;
}

// Relays a chunked body as it came; returns its data bytes and keeps its trailer lines.
std::uint64_t copy_chunked(BufferedReader& from, TlsStream& to, std::string& trailers) {
  std::uint64_t bytes = 0;
  for (;;) {
    const std::string size_line = from.line();
    to.write_all(size_line);
    std::uint64_t size = 0;
    const auto digits = size_line.substr(0, size_line.find_first_of(";\r"));
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), size, 16);
    if (digits.empty() || error != std::errc() || end != digits.data() + digits.size()) {
      throw BadRequest{400, "A chunk size is not hexadecimal"};
    }
    if (size == 0) break;
    bytes += copy_length(from, to, size);
    const std::string crlf = from.line();
    if (crlf != "\r\n") throw BadRequest{400, "A chunk does not end with CRLF"};
    to.write_all(crlf);
  }
  for (;;) {
    const std::string trailer = from.line();
    to.write_all(trailer);
    if (trailer == "\r\n") return bytes;
    trailers += trailer;
  }
}

std::uint64_t copy_until_close(BufferedReader& from, TlsStream& to) {
  std::uint64_t bytes = 0;
  for (;;) {
    const std::string part = from.some(64 * 1024);
    if (part.empty()) return bytes;
    to.write_all(part);
    bytes += part.size();
  }
}

template <class Message>
Message parse_head(const std::string& head, const char* whose) {
  Message message;
  try {
    std::istringstream in(head);
    message.read(in);
  } catch (const Poco::Exception& e) {
    throw BadRequest{400, std::string(whose) + " head is not HTTP/1.1: " + e.displayText()};
  }
  return message;
}

bool wants_close(const Poco::Net::HTTPMessage& message) {
  return message.has("Connection") && Poco::icompare(message.get("Connection"), "close") == 0;
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r' ||
                           text.back() == '\n')) {
    text.remove_suffix(1);
  }
  return std::string(text);
}

// The head with "Authorization: Bearer <placeholder>" made "Bearer <token>"; any other value
// (another token, another scheme) is left as it is.
std::string swap_placeholder(const std::string& head, const SealedToken& sealed) {
  std::string out;
  std::size_t start = 0;
  while (start < head.size()) {
    const auto end = head.find("\r\n", start);
    const std::size_t next = end == std::string::npos ? head.size() : end + 2;
    std::string line = head.substr(start, next - start);
    const auto colon = line.find(':');
    if (colon != std::string::npos && lower(line.substr(0, colon)) == "authorization") {
      const std::string value = trim(std::string_view(line).substr(colon + 1));
      if (value.size() > 7 && lower(value.substr(0, 7)) == "bearer " &&
          trim(std::string_view(value).substr(7)) == sealed.placeholder) {
        line = line.substr(0, colon) + ": Bearer " + sealed.access_token + "\r\n";
      }
    }
    out += line;
    start = next;
  }
  return out;
}

// The Host header's name when it names `host` (with or without the tunnel's port), else why not.
std::optional<std::string> host_problem(const Poco::Net::HTTPRequest& request,
                                        const std::string& host, int port) {
  if (!request.has("Host")) return "the request has no Host header";
  const std::string asked = lower(trim(request.getHost()));
  if (asked == host || asked == host + ":" + std::to_string(port)) return std::nullopt;
  return "the request's Host " + asked + " is not " + host +
         ", the host this connection was admitted for";
}

bool is_grpc(const Poco::Net::HTTPMessage& message) {
  return lower(message.getContentType()).starts_with("application/grpc");
}

std::optional<int> grpc_status_in(const Poco::Net::HTTPMessage& response,
                                  const std::string& trailers) {
  std::string value;
  if (response.has("grpc-status")) {
    value = response.get("grpc-status");
  } else {
    const auto at = lower(trailers).find("grpc-status:");
    if (at == std::string::npos) return std::nullopt;
    value = trim(trailers.substr(at + 12, trailers.find("\r\n", at) - at - 12));
  }
  int status = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), status);
  if (error != std::errc() || end != value.data() + value.size()) return std::nullopt;
  return status;
}

// The answer the proxy itself gives a request (refused, upstream unreachable, malformed): a
// Google-style JSON error, or for gRPC a trailers-only answer with grpc-status and
// grpc-message. Always closes the connection (the request's body was not read).
std::string own_answer(int status, const std::string& message, bool grpc, int grpc_code) {
  if (grpc) {
    std::string escaped;
    for (const unsigned char c : message) {
      if (c < 0x20 || c >= 0x7f || c == '%') {
        char hex[4];
        std::snprintf(hex, sizeof hex, "%%%02X", c);
        escaped += hex;
      } else {
        escaped += static_cast<char>(c);
      }
    }
    return "HTTP/1.1 200 OK\r\nContent-Type: application/grpc\r\ngrpc-status: " +
           std::to_string(grpc_code) + "\r\ngrpc-message: " + escaped +
           "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
  }
  const char* google_status = status == 403 ? "PERMISSION_DENIED"
                              : status == 502 ? "UNAVAILABLE"
                                              : "INVALID_ARGUMENT";
  const std::string body = google_error_json(status, message, google_status);
  const std::string reason = Poco::Net::HTTPResponse::getReasonForStatus(
      static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
  return "HTTP/1.1 " + std::to_string(status) + " " + reason +
         "\r\nContent-Type: application/json; charset=UTF-8\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

std::uint64_t micros_since(Clock::time_point start) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
}

// Records the exchange when it goes out of scope, however the request ended.
struct ExchangeRecorder {
  const Http1RelayContext& context;
  ApiExchange exchange;
  Clock::time_point started = Clock::now();
  bool armed = false;
  ~ExchangeRecorder() {
    if (!armed) return;
    exchange.duration_us = micros_since(started);
    try {
      context.record(std::move(exchange));
    } catch (...) {
      // Recording must not turn a finished request into a failure.
    }
  }
};

}  // namespace

RelayedTarget read_relayed_target(std::string_view target, const std::string& host, int port) {
  if (target.starts_with('/')) return {std::string(target), std::nullopt};
  const auto shown = [&] {
    std::string text(target.substr(0, 200));
    for (char& c : text) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    }
    return text + (target.size() > 200 ? "..." : "");
  };
  std::string_view rest;
  for (const std::string_view scheme : {"https://", "http://"}) {
    if (lower(std::string(target.substr(0, scheme.size()))) == scheme) {
      rest = target.substr(scheme.size());
      break;
    }
  }
  if (rest.data() == nullptr) {
    return {{}, "the request target " + shown() + " is neither a path nor an absolute URI"};
  }
  const auto end = rest.find_first_of("/?#");
  const std::string authority = lower(std::string(rest.substr(0, end)));
  if (authority != host && authority != host + ":" + std::to_string(port)) {
    return {{}, "the request target " + shown() + " names another authority than " + host +
                    ", the host this connection was admitted for"};
  }
  std::string path(end == std::string_view::npos ? std::string_view() : rest.substr(end));
  if (!path.starts_with('/')) path.insert(0, "/");
  return {std::move(path), std::nullopt};
}

std::string google_error_json(int code, const std::string& message, const std::string& status) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("error");
  w.StartObject();
  w.Key("code");
  w.Int(code);
  w.Key("message");
  w.String(message.c_str(), static_cast<rapidjson::SizeType>(message.size()));
  w.Key("status");
  w.String(status.c_str(), static_cast<rapidjson::SizeType>(status.size()));
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

void relay_http1(TlsStream& client, TlsStream* upstream, const Http1RelayContext& context) {
  BufferedReader from_client(client);
  std::optional<BufferedReader> from_upstream;
  if (upstream != nullptr) from_upstream.emplace(*upstream);
  for (;;) {
    ExchangeRecorder recorder{context, {}};
    bool grpc = false;
    try {
      const std::string head = from_client.head("The request");
      if (head.empty()) return;
      recorder.started = Clock::now();
      const auto request = parse_head<Poco::Net::HTTPRequest>(head, "The request");
      grpc = is_grpc(request);
      if (context.started) context.started();
      recorder.armed = true;
      ApiRequestFacts& facts = recorder.exchange.request;
      facts.host = context.host;
      facts.http_method = request.getMethod();
      facts.path = request.getURI();
      facts.grpc = grpc;
      facts.request_params = request.get("x-goog-request-params", "");
      auto target = read_relayed_target(facts.path, context.host, context.port);
      if (!target.problem) target.problem = host_problem(request, context.host, context.port);
      if (target.problem) {
        recorder.exchange.refusal = *target.problem;
        throw BadRequest{403, "kode-gopher egress proxy refused the request: " + *target.problem};
      }
      facts.path = std::move(target.path);
      const BodyFraming body = framing_of(request, true);
      std::string held_body;
      if (body.framing == Framing::length && body.length <= kMaxJsonPeek &&
          lower(request.getContentType()).find("json") != std::string::npos) {
        while (held_body.size() < body.length) {
          const std::string part = from_client.some(body.length - held_body.size());
          if (part.empty()) throw TlsStreamError("the program closed the connection inside a body");
          held_body += part;
        }
        facts.json_body = held_body;
      }
      const EgressCallSetup setup = context.setup();
      if (setup.refuse) {
        if (auto refusal = setup.refuse(facts)) {
          recorder.exchange.refusal = *refusal;
          throw BadRequest{403, *refusal};
        }
      }
      if (upstream == nullptr) {
        // 403, not 502: client libraries retry a 5xx until their deadline, hiding the reason,
        // and an unverifiable upstream is no passing failure. Recorded as refused by the proxy
        // itself (docs/api-policy.md: `refused: proxy`).
        recorder.exchange.refusal = "kode-gopher egress proxy: " + context.upstream_failure +
                                    "; the request was not sent";
        throw BadRequest{403, *recorder.exchange.refusal};
      }
      upstream->write_all(setup.sealed ? swap_placeholder(head, *setup.sealed) : head);
      std::string ignored_trailers;
      if (!held_body.empty() || body.framing == Framing::none) {
        upstream->write_all(held_body);
        recorder.exchange.request_bytes = held_body.size();
      } else if (body.framing == Framing::length) {
        recorder.exchange.request_bytes = copy_length(from_client, *upstream, body.length);
      } else {
        recorder.exchange.request_bytes = copy_chunked(from_client, *upstream, ignored_trailers);
      }
      // The answer, after any interim (1xx) heads.
      for (;;) {
        const std::string answer_head = from_upstream->head("The upstream answer");
        if (answer_head.empty()) {
          throw BadRequest{502, "kode-gopher egress proxy: " + context.host +
                                    " closed the connection without answering"};
        }
        const auto response = parse_head<Poco::Net::HTTPResponse>(answer_head, "The upstream answer");
        client.write_all(answer_head);
        const int status = static_cast<int>(response.getStatus());
        recorder.exchange.http_status = status;
        if (status >= 100 && status < 200 && status != 101) continue;
        BodyFraming answer_body = framing_of(response, false);
        if (request.getMethod() == "HEAD" || status == 204 || status == 304 || status == 101) {
          answer_body = {Framing::none, 0};
        }
        std::string trailers;
        switch (answer_body.framing) {
          case Framing::none: break;
          case Framing::length:
            recorder.exchange.response_bytes = copy_length(*from_upstream, client, answer_body.length);
            break;
          case Framing::chunked:
            recorder.exchange.response_bytes = copy_chunked(*from_upstream, client, trailers);
            break;
          case Framing::until_close:
            recorder.exchange.response_bytes = copy_until_close(*from_upstream, client);
            break;
        }
        recorder.exchange.grpc_status = grpc_status_in(response, trailers);
        if (status == 101 || answer_body.framing == Framing::until_close || wants_close(request) ||
            wants_close(response)) {
          client.close();
          return;
        }
        break;
      }
    } catch (const BadRequest& bad) {
      recorder.exchange.http_status = grpc ? 200 : bad.status;
      if (grpc) recorder.exchange.grpc_status = bad.status == 403 ? 7 : bad.status == 502 ? 14 : 3;
      try {
        client.write_all(own_answer(bad.status, bad.message, grpc,
                                    recorder.exchange.grpc_status.value_or(0)));
        client.close();
      } catch (const TlsStreamError&) {
        // The program is gone.
      }
      return;
    }
  }
}

}  // namespace kg::sandbox
