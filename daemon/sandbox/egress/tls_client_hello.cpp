#include "tls_client_hello.hpp"

#include <set>
#include <stdexcept>

namespace kg::sandbox {
namespace {

// Reads big-endian fields off the front of a byte range, refusing to run past its end.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  std::size_t number(std::size_t width) {
    need(width);
    std::size_t value = 0;
    for (std::size_t i = 0; i < width; ++i) {
      value = (value << 8) | static_cast<unsigned char>(bytes_[i]);
    }
    bytes_.remove_prefix(width);
    return value;
  }
  std::string_view take(std::size_t size) {
    need(size);
    const auto part = bytes_.substr(0, size);
    bytes_.remove_prefix(size);
    return part;
  }
  // A field prefixed with its length in `width` bytes.
  std::string_view vector(std::size_t width) { return take(number(width)); }
  bool empty() const { return bytes_.empty(); }

 private:
  void need(std::size_t size) const {
    if (bytes_.size() < size) throw std::invalid_argument("truncated TLS ClientHello");
  }
  std::string_view bytes_;
};

}  // namespace

bool starts_tls_handshake(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 22 &&
         static_cast<unsigned char>(bytes[1]) == 3;
}

std::size_t tls_record_size(std::string_view bytes) {
  if (bytes.size() < 5) return 0;
  return 5 + ((static_cast<std::size_t>(static_cast<unsigned char>(bytes[3])) << 8) |
              static_cast<unsigned char>(bytes[4]));
}

ClientHelloFacts read_client_hello(std::string_view record) {
  if (record.size() > kMaxTlsRecordSize) throw std::invalid_argument("TLS record too large");
  Reader outer(record);
  if (outer.number(1) != 22) throw std::invalid_argument("not a TLS handshake record");
  if (outer.number(2) >> 8 != 3) throw std::invalid_argument("not a TLS record version");
  Reader handshake(outer.vector(2));
  if (!outer.empty()) throw std::invalid_argument("bytes after the first TLS record");
  if (handshake.number(1) != 1) throw std::invalid_argument("not a ClientHello");
  // The whole hello must sit in this first record (clients send it so; a split hello is refused).
  Reader hello(handshake.take(handshake.number(3)));
  if (!handshake.empty()) throw std::invalid_argument("bytes after the ClientHello");
  hello.take(2 + 32);  // version, random
  hello.vector(1);     // session id
  hello.vector(2);     // cipher suites
  hello.vector(1);     // compression methods
  ClientHelloFacts facts;
  if (hello.empty()) return facts;  // no extensions
  Reader extensions(hello.vector(2));
  if (!hello.empty()) throw std::invalid_argument("bytes after the ClientHello's extensions");
  std::set<std::size_t> seen;
  while (!extensions.empty()) {
    const std::size_t type = extensions.number(2);
    Reader data(extensions.vector(2));
    if (!seen.insert(type).second) throw std::invalid_argument("a repeated TLS extension");
    if (type == 16) {  // application_layer_protocol_negotiation (RFC 7301)
      Reader protocols(data.vector(2));
      if (!data.empty()) throw std::invalid_argument("bytes after the ALPN protocol list");
      while (!protocols.empty()) facts.alpn.emplace_back(protocols.vector(1));
      continue;
    }
    if (type != 0) continue;  // server_name
    Reader names(data.vector(2));
    if (!data.empty()) throw std::invalid_argument("bytes after the server_name list");
    if (names.empty()) throw std::invalid_argument("an empty server_name list");
    if (names.number(1) != 0) throw std::invalid_argument("a server name that is not a host_name");
    facts.server_name = std::string(names.vector(2));
    if (!names.empty()) throw std::invalid_argument("more than one server name");
  }
  return facts;
}

std::optional<std::string> tls_server_name(std::string_view record) {
  return read_client_hello(record).server_name;
}

}  // namespace kg::sandbox
