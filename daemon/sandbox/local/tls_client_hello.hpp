// The server name (SNI) a TLS ClientHello asks for, read from the first bytes a client sends
// into a CONNECT tunnel, so the egress proxy can refuse a tunnel to an allowed host that asks
// for another name inside (domain fronting through a shared front end). Pure parsing.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kg::sandbox {

// Whether `bytes` start a TLS handshake record (content type 22, version 3.x).
bool starts_tls_handshake(std::string_view bytes);

// How many bytes the first TLS record takes (5-byte header plus its length), or 0 when fewer
// than 5 bytes are there yet.
std::size_t tls_record_size(std::string_view bytes);

// The host_name of the server_name extension of the ClientHello in the first record of `record`
// (the whole record), lowercased; nullopt when the hello names none. Throws
// std::invalid_argument when the record is not a well-formed ClientHello.
std::optional<std::string> tls_server_name(std::string_view record);

}  // namespace kg::sandbox
