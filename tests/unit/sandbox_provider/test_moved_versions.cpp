#include <doctest/doctest.h>

#include "module_tidier.hpp"

TEST_CASE("versions that go mod tidy moved are listed, new modules are not") {
  const std::string before =
      "module kode_gopher_user\n\ngo 1.26.0\n\nrequire (\n\tcloud.google.com/go/storage v1.71.0\n"
      "\tgolang.org/x/net v0.40.0 // indirect\n)\n\nrequire k8s.io/client-go v0.37.2\n";
  const std::string after =
      "module kode_gopher_user\n\ngo 1.26.0\n\nrequire (\n\tcloud.google.com/go/storage v1.71.0\n"
      "\tgithub.com/dustin/go-humanize v1.0.1\n\tgolang.org/x/net v0.41.0 // indirect\n)\n\n"
      "require k8s.io/client-go v0.38.0\n";
  CHECK(kg::sandbox::moved_versions(before, after) ==
        std::vector<std::string>{"go mod tidy moved golang.org/x/net from v0.40.0 to v0.41.0",
                                 "go mod tidy moved k8s.io/client-go from v0.37.2 to v0.38.0"});
  CHECK(kg::sandbox::moved_versions(before, before).empty());
}
