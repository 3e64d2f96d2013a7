#include "random_id.hpp"

#include <sys/random.h>

#include <stdexcept>
#include <vector>

namespace kg::codec {

std::string random_hex_id(std::size_t bytes, std::string_view what) {
  std::vector<unsigned char> random(bytes);
  std::size_t got = 0;
  while (got < bytes) {
    const ssize_t n = ::getrandom(random.data() + got, bytes - got, 0);
    if (n < 0) throw std::runtime_error("getrandom failed: cannot make " + std::string(what));
    got += static_cast<std::size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  id.reserve(2 * bytes);
  for (const unsigned char byte : random) {
    id += kHex[byte >> 4];
    id += kHex[byte & 15];
  }
  return id;
}

}  // namespace kg::codec
