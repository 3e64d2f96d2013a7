// The k8s-sealed suite's main. What needs the internet is done first (the prewarmed caches, the
// images built and unpacked, kustomize), then the process moves into the hostile egress suite's
// private network (tests/hostile/egress_world.hpp: its own network and mount namespace with a
// veth to an "internet" namespace holding fake-gcs-server at 198.51.100.1, and an /etc/hosts
// naming storage.googleapis.com there) while it still has one thread. The cluster (etcd, the API
// server, the controllers, the router and every pod of the kubelet player) is then started inside
// that network, all on its own loopback, so the daemon's egress gateway reaches the fake as the
// real API host name. Every pod runs in a network of its own whose only way out is the gateway's
// address (KG_K8S_POD_ONLY_REACH, tests/images/pod_network.py), as the team overlays'
// NetworkPolicy admits only the daemon's egress port.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>

#include "egress_world.hpp"
#include "test_cluster.hpp"

int main(int argc, char** argv) {
  if (::geteuid() != 0) {
    std::cerr << "k8s sealed tests not run: needs root (network namespaces, a veth pair, a "
                 "private /etc/hosts)"
              << std::endl;
    return 77;  // meson: skipped
  }
  try {
    kg::test::TestCluster::prepare_images();
    kg::test::egress::make_world();
    // The daemon's egress gateway address, fixed before the cluster starts: every pod gets a
    // network of its own whose only way out is this address (tests/images/pod_network.py).
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in where{};
    where.sin_family = AF_INET;
    where.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof where;
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&where), sizeof where) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&where), &size) != 0) {
      throw std::runtime_error("no free loopback port for the egress gateway");
    }
    ::close(fd);
    ::setenv("KG_K8S_POD_ONLY_REACH", ("127.0.0.1:" + std::to_string(ntohs(where.sin_port))).c_str(), 1);
  } catch (const std::exception& e) {
    std::cerr << "k8s sealed tests: the images or the test network could not be made: "
              << e.what() << std::endl;
    return 1;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
