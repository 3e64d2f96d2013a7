// The k8s-sealed suite's main. What needs the internet is done first (the prewarmed caches, the
// images built and unpacked, kustomize), then the process moves into the hostile egress suite's
// private network (tests/hostile/egress_world.hpp: its own network and mount namespace with a
// veth to an "internet" namespace holding fake-gcs-server at 198.51.100.1, and an /etc/hosts
// naming storage.googleapis.com there) while it still has one thread. The cluster (etcd, the API
// server, the controllers, the router and every pod of the kubelet player) is then started inside
// that network, all on its own loopback, so the daemon's egress gateway reaches the fake as the
// real API host name and the pods reach the gateway.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <unistd.h>

#include <exception>
#include <iostream>

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
  } catch (const std::exception& e) {
    std::cerr << "k8s sealed tests: the images or the test network could not be made: "
              << e.what() << std::endl;
    return 1;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
