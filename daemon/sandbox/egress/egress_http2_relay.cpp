#include "egress_http2_relay.hpp"

#include <nghttp2/nghttp2.h>
#include <poll.h>

#include <charconv>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kg::sandbox {
namespace {

using Clock = std::chrono::steady_clock;
using Headers = std::vector<std::pair<std::string, std::string>>;

constexpr std::uint64_t kMaxJsonPeek = 64 * 1024;
constexpr std::chrono::milliseconds kPollSlice(500);

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string header(const Headers& headers, const std::string& name) {
  for (const auto& [key, value] : headers) {
    if (key == name) return value;
  }
  return {};
}

bool has_header(const Headers& headers, const std::string& name) {
  for (const auto& entry : headers) {
    if (entry.first == name) return true;
  }
  return false;
}

std::optional<int> number(const std::string& text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// gRPC's percent-encoding of grpc-message (every byte outside printable ASCII, and '%').
std::string grpc_message(const std::string& message) {
  std::string out;
  for (const unsigned char c : message) {
    if (c < 0x20 || c >= 0x7f || c == '%') {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// Bytes one side sent for the other that the other has not taken yet.
struct Pipe {
  std::string data;
  bool ended = false;        // the sender ended its side
  Headers trailers;          // sent after the data, when there are any
};

struct StreamPair {
  std::int32_t client_id = 0;
  std::int32_t upstream_id = 0;
  Headers request;
  Headers response;
  bool request_head_done = false;
  bool response_head_done = false;
  bool decided = false;
  bool hold_for_json = false;
  bool answered_here = false;  // the proxy answered it (refused, no upstream)
  bool client_closed = false;
  bool upstream_closed = false;
  bool recorded = false;
  Pipe request_body;
  Pipe response_body;
  ApiExchange exchange;
  Clock::time_point started = Clock::now();
};

class Http2Relay {
 public:
  Http2Relay(TlsStream& client, TlsStream* upstream, const Http1RelayContext& context,
             const TlsWaits& waits)
      : client_(client), upstream_(upstream), context_(context), waits_(waits) {}

  ~Http2Relay() {
    if (server_ != nullptr) nghttp2_session_del(server_);
    if (up_ != nullptr) nghttp2_session_del(up_);
    for (auto& [id, pair] : streams_) record(*pair);
  }

  void run() {
    start_sessions();
    auto last_activity = Clock::now();
    char buffer[16384];
    for (;;) {
      flush();
      if (!nghttp2_session_want_read(server_) && !nghttp2_session_want_write(server_)) return;
      bool moved = false;
      moved |= pump(client_, server_, buffer, sizeof buffer, client_done_);
      if (upstream_ != nullptr && !upstream_done_) {
        moved |= pump(*upstream_, up_, buffer, sizeof buffer, upstream_done_);
        if (upstream_done_) {
          // The upstream is gone: its streams fail, and the program is told to open a new
          // connection for more.
          for (auto& [id, pair] : streams_) {
            if (!pair->client_closed && !pair->answered_here) {
              nghttp2_submit_rst_stream(server_, NGHTTP2_FLAG_NONE, id, NGHTTP2_INTERNAL_ERROR);
            }
          }
          nghttp2_session_terminate_session(server_, NGHTTP2_NO_ERROR);
        }
      }
      if (client_done_) return;
      if (moved) {
        last_activity = Clock::now();
        continue;
      }
      flush();
      if (waits_.stopping != nullptr && waits_.stopping->load()) return;
      if (Clock::now() - last_activity > waits_.idle_timeout) {
        throw TlsStreamError("nothing moved on an HTTP/2 connection for " +
                             std::to_string(waits_.idle_timeout.count()) + " ms");
      }
      pollfd watched[2] = {{client_.fd(), POLLIN, 0}, {-1, POLLIN, 0}};
      if (upstream_ != nullptr && !upstream_done_) watched[1].fd = upstream_->fd();
      ::poll(watched, 2, static_cast<int>(kPollSlice.count()));
    }
  }

 private:
  // Reads what `stream` has without waiting and feeds it to `session`. True when bytes came.
  bool pump(TlsStream& stream, nghttp2_session* session, char* buffer, std::size_t size,
            bool& done) {
    bool moved = false;
    for (;;) {
      const long got = stream.read_ready(buffer, size);
      if (got < 0) return moved;
      if (got == 0) {
        done = true;
        return moved;
      }
      moved = true;
      const auto fed = nghttp2_session_mem_recv(
          session, reinterpret_cast<const std::uint8_t*>(buffer), static_cast<std::size_t>(got));
      if (fed < 0) {
        throw TlsStreamError(std::string("HTTP/2 error from ") +
                             (session == server_ ? "the program" : context_.host) + ": " +
                             nghttp2_strerror(static_cast<int>(fed)));
      }
    }
  }

  void flush() {
    for (;;) {
      bool sent = false;
      const std::uint8_t* data = nullptr;
      for (ssize_t n; (n = nghttp2_session_mem_send(server_, &data)) > 0;) {
        client_.write_all(std::string_view(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n)));
        sent = true;
      }
      if (up_ != nullptr && !upstream_done_) {
        for (ssize_t n; (n = nghttp2_session_mem_send(up_, &data)) > 0;) {
          upstream_->write_all(std::string_view(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n)));
          sent = true;
        }
      }
      if (!sent) return;
    }
  }

  void start_sessions() {
    nghttp2_option* option = nullptr;
    nghttp2_option_new(&option);
    // Windows are given back only when the other side took the bytes (consume()).
    nghttp2_option_set_no_auto_window_update(option, 1);
    nghttp2_session_callbacks* callbacks = nullptr;
    nghttp2_session_callbacks_new(&callbacks);
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, &Http2Relay::on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, &Http2Relay::on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &Http2Relay::on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &Http2Relay::on_data);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &Http2Relay::on_stream_close);
    nghttp2_session_server_new2(&server_, callbacks, this, option);
    if (upstream_ != nullptr) nghttp2_session_client_new2(&up_, callbacks, this, option);
    nghttp2_session_callbacks_del(callbacks);
    nghttp2_option_del(option);
    const nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100}};
    nghttp2_submit_settings(server_, NGHTTP2_FLAG_NONE, settings, 1);
    if (up_ != nullptr) nghttp2_submit_settings(up_, NGHTTP2_FLAG_NONE, nullptr, 0);
  }

  StreamPair* by_client(std::int32_t id) {
    const auto found = streams_.find(id);
    return found == streams_.end() ? nullptr : found->second.get();
  }
  StreamPair* by_upstream(std::int32_t id) {
    const auto found = upstream_streams_.find(id);
    return found == upstream_streams_.end() ? nullptr : found->second;
  }

  // --- nghttp2 callbacks (both sessions; `session` says which) ---

  static int on_begin_headers(nghttp2_session* session, const nghttp2_frame* frame, void* self) {
    auto& relay = *static_cast<Http2Relay*>(self);
    if (session == relay.server_ && frame->hd.type == NGHTTP2_HEADERS &&
        frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
      auto pair = std::make_unique<StreamPair>();
      pair->client_id = frame->hd.stream_id;
      relay.streams_[frame->hd.stream_id] = std::move(pair);
    }
    return 0;
  }

  static int on_header(nghttp2_session* session, const nghttp2_frame* frame,
                       const std::uint8_t* name, std::size_t name_size, const std::uint8_t* value,
                       std::size_t value_size, std::uint8_t, void* self) {
    auto& relay = *static_cast<Http2Relay*>(self);
    std::pair<std::string, std::string> entry(
        std::string(reinterpret_cast<const char*>(name), name_size),
        std::string(reinterpret_cast<const char*>(value), value_size));
    if (session == relay.server_) {
      if (auto* pair = relay.by_client(frame->hd.stream_id)) {
        (pair->request_head_done ? pair->request_body.trailers : pair->request).push_back(std::move(entry));
      }
    } else if (auto* pair = relay.by_upstream(frame->hd.stream_id)) {
      (pair->response_head_done ? pair->response_body.trailers : pair->response).push_back(std::move(entry));
    }
    return 0;
  }

  static int on_frame_recv(nghttp2_session* session, const nghttp2_frame* frame, void* self) {
    auto& relay = *static_cast<Http2Relay*>(self);
    const bool ends = (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
    if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) return 0;
    if (session == relay.server_) {
      auto* pair = relay.by_client(frame->hd.stream_id);
      if (pair == nullptr) return 0;
      if (ends) pair->request_body.ended = true;
      if (frame->hd.type == NGHTTP2_HEADERS && !pair->request_head_done) {
        pair->request_head_done = true;
        if (relay.context_.started) relay.context_.started();
        relay.request_head(*pair);
      } else if (pair->hold_for_json && pair->request_body.ended && !pair->decided) {
        relay.decide(*pair);
      }
      if (pair->upstream_id != 0) nghttp2_session_resume_data(relay.up_, pair->upstream_id);
    } else {
      auto* pair = relay.by_upstream(frame->hd.stream_id);
      if (pair == nullptr) return 0;
      if (frame->hd.type == NGHTTP2_HEADERS && !pair->response_head_done) {
        const auto status = number(header(pair->response, ":status"));
        if (status && *status >= 100 && *status < 200) {
          pair->response.clear();  // an interim answer: the final one follows
          return 0;
        }
        pair->response_head_done = true;
        pair->exchange.http_status = status.value_or(0);
        if (ends) pair->response_body.ended = true;
        relay.answer_head(*pair);
        return 0;
      }
      if (ends) pair->response_body.ended = true;
      if (!pair->answered_here) nghttp2_session_resume_data(relay.server_, pair->client_id);
    }
    return 0;
  }

  static int on_data(nghttp2_session* session, std::uint8_t, std::int32_t stream_id,
                     const std::uint8_t* data, std::size_t size, void* self) {
    auto& relay = *static_cast<Http2Relay*>(self);
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    if (session == relay.server_) {
      auto* pair = relay.by_client(stream_id);
      if (pair == nullptr || pair->answered_here) {
        nghttp2_session_consume(session, stream_id, size);  // dropped
        return 0;
      }
      pair->request_body.data.append(bytes);
      pair->exchange.request_bytes += size;
      if (pair->hold_for_json && pair->request_body.data.size() > kMaxJsonPeek) {
        pair->hold_for_json = false;  // longer than announced: decided without the body
        relay.decide(*pair);
      }
      if (pair->upstream_id != 0) nghttp2_session_resume_data(relay.up_, pair->upstream_id);
    } else {
      auto* pair = relay.by_upstream(stream_id);
      if (pair == nullptr || pair->client_closed) {
        nghttp2_session_consume(session, stream_id, size);
        return 0;
      }
      pair->response_body.data.append(bytes);
      pair->exchange.response_bytes += size;
      nghttp2_session_resume_data(relay.server_, pair->client_id);
    }
    return 0;
  }

  static int on_stream_close(nghttp2_session* session, std::int32_t stream_id,
                             std::uint32_t error_code, void* self) {
    auto& relay = *static_cast<Http2Relay*>(self);
    if (session == relay.server_) {
      auto* pair = relay.by_client(stream_id);
      if (pair == nullptr) return 0;
      pair->client_closed = true;
      relay.record(*pair);
      if (pair->upstream_id != 0 && !pair->upstream_closed) {
        nghttp2_submit_rst_stream(relay.up_, NGHTTP2_FLAG_NONE, pair->upstream_id, NGHTTP2_CANCEL);
      }
      relay.forget_if_done(*pair);
    } else {
      auto* pair = relay.by_upstream(stream_id);
      if (pair == nullptr) return 0;
      pair->upstream_closed = true;
      if (!pair->client_closed && (error_code != NGHTTP2_NO_ERROR || !pair->response_body.ended)) {
        nghttp2_submit_rst_stream(relay.server_, NGHTTP2_FLAG_NONE, pair->client_id,
                                  error_code != NGHTTP2_NO_ERROR ? error_code
                                                                 : static_cast<std::uint32_t>(NGHTTP2_INTERNAL_ERROR));
      }
      relay.forget_if_done(*pair);
    }
    return 0;
  }

  // Data providers: the bytes one side sent, to the other, and the window given back to the
  // sender for exactly what was taken.
  static ssize_t read_request_body(nghttp2_session*, std::int32_t, std::uint8_t* buffer,
                                   std::size_t size, std::uint32_t* flags, nghttp2_data_source* source,
                                   void* self) {
    auto& relay = *static_cast<Http2Relay*>(self);
    auto& pair = *static_cast<StreamPair*>(source->ptr);
    return relay.take(pair.request_body, relay.up_, pair.upstream_id, relay.server_, pair.client_id,
                      buffer, size, flags);
  }
  static ssize_t read_response_body(nghttp2_session*, std::int32_t, std::uint8_t* buffer,
                                    std::size_t size, std::uint32_t* flags, nghttp2_data_source* source,
                                    void* self) {
    auto& relay = *static_cast<Http2Relay*>(self);
    auto& pair = *static_cast<StreamPair*>(source->ptr);
    return relay.take(pair.response_body, relay.server_, pair.client_id,
                      pair.answered_here ? nullptr : relay.up_, pair.upstream_id, buffer, size, flags);
  }

  ssize_t take(Pipe& pipe, nghttp2_session* to, std::int32_t to_id, nghttp2_session* from,
               std::int32_t from_id, std::uint8_t* buffer, std::size_t size, std::uint32_t* flags) {
    const std::size_t n = std::min(size, pipe.data.size());
    if (n == 0 && !pipe.ended) return NGHTTP2_ERR_DEFERRED;
    std::memcpy(buffer, pipe.data.data(), n);
    pipe.data.erase(0, n);
    if (from != nullptr && n > 0) nghttp2_session_consume(from, from_id, n);
    if (pipe.data.empty() && pipe.ended) {
      *flags |= NGHTTP2_DATA_FLAG_EOF;
      if (!pipe.trailers.empty()) {
        *flags |= NGHTTP2_DATA_FLAG_NO_END_STREAM;
        const auto nva = name_values(pipe.trailers, {});
        nghttp2_submit_trailer(to, to_id, nva.data(), nva.size());
      }
    }
    return static_cast<ssize_t>(n);
  }

  // --- per stream ---

  void request_head(StreamPair& pair) {
    ApiRequestFacts& facts = pair.exchange.request;
    facts.host = context_.host;
    facts.http_method = header(pair.request, ":method");
    facts.path = header(pair.request, ":path");
    facts.grpc = lower(header(pair.request, "content-type")).starts_with("application/grpc");
    facts.request_params = header(pair.request, "x-goog-request-params");
    pair.started = Clock::now();
    const std::string port = ":" + std::to_string(context_.port);
    for (const char* name : {":authority", "host"}) {
      if (!has_header(pair.request, name)) continue;
      const std::string asked = lower(header(pair.request, name));
      if (asked != context_.host && asked != context_.host + port) {
        const std::string problem = "the request's " + std::string(name) + " " + asked + " is not " +
                                    context_.host + ", the host this connection was admitted for";
        pair.exchange.refusal = problem;
        answer_here(pair, 403, "kode-gopher egress proxy refused the request: " + problem);
        return;
      }
    }
    const auto length = number(header(pair.request, "content-length"));
    if (!pair.request_body.ended && length && *length >= 0 &&
        static_cast<std::uint64_t>(*length) <= kMaxJsonPeek &&
        lower(header(pair.request, "content-type")).find("json") != std::string::npos) {
      pair.hold_for_json = true;  // decided once the body is in (on_frame_recv)
      return;
    }
    decide(pair);
  }

  void decide(StreamPair& pair) {
    pair.decided = true;
    if (pair.hold_for_json) pair.exchange.request.json_body = pair.request_body.data;
    const EgressCallSetup setup = context_.setup();
    if (setup.refuse) {
      if (auto refusal = setup.refuse(pair.exchange.request)) {
        pair.exchange.refusal = *refusal;
        answer_here(pair, 403, *refusal);
        return;
      }
    }
    if (up_ == nullptr) {
      // Recorded as refused by the proxy itself (docs/api-policy.md: `refused: proxy`).
      pair.exchange.refusal = "kode-gopher egress proxy: " + context_.upstream_failure +
                              "; the request was not sent";
      answer_here(pair, 403, *pair.exchange.refusal);
      return;
    }
    if (upstream_done_) {
      answer_here(pair, 502, "kode-gopher egress proxy: " + context_.host + " closed the connection");
      return;
    }
    std::optional<std::string> swapped;
    if (setup.sealed) {
      const std::string value = header(pair.request, "authorization");
      if (value.size() > 7 && lower(value.substr(0, 7)) == "bearer " &&
          value.substr(7) == setup.sealed->placeholder) {
        swapped = "Bearer " + setup.sealed->access_token;
      }
    }
    const auto nva = name_values(pair.request, swapped);
    nghttp2_data_provider provider{};
    provider.source.ptr = &pair;
    provider.read_callback = &Http2Relay::read_request_body;
    const bool no_body = pair.request_body.ended && pair.request_body.data.empty() &&
                         pair.request_body.trailers.empty();
    const std::int32_t id = nghttp2_submit_request(up_, nullptr, nva.data(), nva.size(),
                                                   no_body ? nullptr : &provider, &pair);
    if (id < 0) {
      answer_here(pair, 502, std::string("kode-gopher egress proxy: cannot open a stream to ") +
                                 context_.host + ": " + nghttp2_strerror(id));
      return;
    }
    pair.upstream_id = id;
    upstream_streams_[id] = &pair;
    // What arrived while the request waited for its decision was held back from the program's
    // window; it is given back as the upstream takes it (take()).
  }

  void answer_head(StreamPair& pair) {
    if (pair.client_closed) return;
    const std::string grpc_status = header(pair.response, "grpc-status");
    if (!grpc_status.empty()) pair.exchange.grpc_status = number(grpc_status);
    const auto nva = name_values(pair.response, std::nullopt);
    nghttp2_data_provider provider{};
    provider.source.ptr = &pair;
    provider.read_callback = &Http2Relay::read_response_body;
    nghttp2_submit_response(server_, pair.client_id, nva.data(), nva.size(),
                            pair.response_body.ended ? nullptr : &provider);
  }

  // The proxy's own answer: a Google-style JSON error, or gRPC trailers-only.
  void answer_here(StreamPair& pair, int status, const std::string& message) {
    pair.answered_here = true;
    pair.decided = true;
    // What the program sent is dropped: give its window back.
    if (!pair.request_body.data.empty()) {
      nghttp2_session_consume(server_, pair.client_id, pair.request_body.data.size());
      pair.request_body.data.clear();
    }
    if (pair.exchange.request.grpc) {
      const int code = status == 403 ? 7 : 14;  // PERMISSION_DENIED, UNAVAILABLE
      pair.exchange.http_status = 200;
      pair.exchange.grpc_status = code;
      const Headers headers = {{":status", "200"},
                               {"content-type", "application/grpc"},
                               {"grpc-status", std::to_string(code)},
                               {"grpc-message", grpc_message(message)}};
      const auto nva = name_values(headers, std::nullopt);
      nghttp2_submit_response(server_, pair.client_id, nva.data(), nva.size(), nullptr);
      return;
    }
    pair.exchange.http_status = status;
    pair.response_body.data =
        google_error_json(status, message, status == 403 ? "PERMISSION_DENIED" : "UNAVAILABLE");
    pair.response_body.ended = true;
    const Headers headers = {{":status", std::to_string(status)},
                             {"content-type", "application/json; charset=UTF-8"},
                             {"content-length", std::to_string(pair.response_body.data.size())}};
    const auto nva = name_values(headers, std::nullopt);
    nghttp2_data_provider provider{};
    provider.source.ptr = &pair;
    provider.read_callback = &Http2Relay::read_response_body;
    nghttp2_submit_response(server_, pair.client_id, nva.data(), nva.size(), &provider);
  }

  void record(StreamPair& pair) {
    if (pair.recorded || !pair.request_head_done) return;
    pair.recorded = true;
    if (!pair.exchange.grpc_status) {
      const std::string trailer = header(pair.response_body.trailers, "grpc-status");
      if (!trailer.empty()) pair.exchange.grpc_status = number(trailer);
    }
    pair.exchange.duration_us = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - pair.started).count());
    try {
      context_.record(pair.exchange);
    } catch (...) {
      // Recording must not end the connection.
    }
  }

  void forget_if_done(StreamPair& pair) {
    if (!pair.client_closed || (pair.upstream_id != 0 && !pair.upstream_closed)) return;
    if (pair.upstream_id != 0) upstream_streams_.erase(pair.upstream_id);
    streams_.erase(pair.client_id);
  }

  // Name-value pairs for nghttp2 (which copies them), the Authorization value replaced when
  // `authorization` is set.
  struct NameValues {
    std::vector<nghttp2_nv> list;
    std::vector<std::string> keep;
    const nghttp2_nv* data() const { return list.data(); }
    std::size_t size() const { return list.size(); }
  };
  static NameValues name_values(const Headers& headers, const std::optional<std::string>& authorization) {
    NameValues out;
    out.keep.reserve(headers.size());
    for (const auto& [name, value] : headers) {
      const std::string& sent = (authorization && name == "authorization") ? *authorization : value;
      out.keep.push_back(sent);
      nghttp2_nv nv{};
      nv.name = reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data()));
      nv.namelen = name.size();
      nv.value = reinterpret_cast<std::uint8_t*>(out.keep.back().data());
      nv.valuelen = out.keep.back().size();
      nv.flags = name == "authorization" ? NGHTTP2_NV_FLAG_NO_INDEX : NGHTTP2_NV_FLAG_NONE;
      out.list.push_back(nv);
    }
    return out;
  }

  TlsStream& client_;
  TlsStream* upstream_;
  const Http1RelayContext& context_;
  TlsWaits waits_;
  nghttp2_session* server_ = nullptr;
  nghttp2_session* up_ = nullptr;
  bool client_done_ = false;
  bool upstream_done_ = false;
  std::map<std::int32_t, std::unique_ptr<StreamPair>> streams_;
  std::map<std::int32_t, StreamPair*> upstream_streams_;
};

}  // namespace

void relay_http2(TlsStream& client, TlsStream* upstream, const Http1RelayContext& context,
                 const TlsWaits& waits) {
  Http2Relay relay(client, upstream, context, waits);
  relay.run();
}

}  // namespace kg::sandbox
