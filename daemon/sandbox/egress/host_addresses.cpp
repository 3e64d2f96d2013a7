#include "host_addresses.hpp"

#include <ifaddrs.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace kg::sandbox {

std::vector<IpPrefix> host_interface_addresses() {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) {
    throw std::runtime_error(std::string("Cannot list the host's network addresses: ") +
                             std::strerror(errno));
  }
  std::vector<IpPrefix> addresses;
  for (const ifaddrs* entry = list; entry != nullptr; entry = entry->ifa_next) {
    if (entry->ifa_addr == nullptr) continue;
    const int family = entry->ifa_addr->sa_family;
    if (family != AF_INET && family != AF_INET6) continue;
    auto prefix = IpPrefix::of_address(entry->ifa_addr);
    if (std::find(addresses.begin(), addresses.end(), prefix) == addresses.end()) {
      addresses.push_back(std::move(prefix));
    }
  }
  ::freeifaddrs(list);
  return addresses;
}

}  // namespace kg::sandbox
