// The server name (SNI) a TLS ClientHello asks for, read from the first bytes a client sends
// into a CONNECT tunnel, so the egress proxy can refuse a tunnel to an allowed host that asks
// for another name inside, or for none (domain fronting through a shared front end). Pure
// parsing.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kg::sandbox {

// Whether `bytes` start a TLS handshake record (content type 22, version 3.x).
bool starts_tls_handshake(std::string_view bytes);

// How many bytes the first TLS record takes (5-byte header plus its length), or 0 when fewer
// than 5 bytes are there yet.
std::size_t tls_record_size(std::string_view bytes);

// The largest record a ClientHello may come in (RFC 8446 §5.1: 2^14 bytes of plaintext).
inline constexpr std::size_t kMaxTlsRecordSize = 5 + 16384;

// The host_name of the server_name extension of the ClientHello in `record` (the whole first
// record), as sent (the caller validates it, net::HostName); nullopt when the hello names none.
// Strict, since a lenient reader is one a client can make see another name than the server
// does: throws std::invalid_argument when the record is not exactly one complete ClientHello
// (truncated, split across records, trailing bytes at any level), repeats an extension, or
// holds a server_name extension that is empty, has trailing bytes, names a type other than
// host_name or more than one name.
std::optional<std::string> tls_server_name(std::string_view record);

// What the proxy reads of a ClientHello: its server name (as above) and the application
// protocols it offers (ALPN, in the client's order; empty when it offers none), so the proxy
// knows whether a client it would terminate TLS for speaks HTTP/1.1. Same checks and errors.
struct ClientHelloFacts {
  std::optional<std::string> server_name;
  std::vector<std::string> alpn;
};
ClientHelloFacts read_client_hello(std::string_view record);

}  // namespace kg::sandbox
