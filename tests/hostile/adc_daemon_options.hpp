// The daemon the credential cases of hostile-egress run: creds-adc against loopback Google
// endpoints (LoopbackGoogle), an ADC file in a folder outside the daemon's reach, and the one
// test-specific step, the proxy trusting the fake storage.googleapis.com's certificate
// ([sandbox] egress_upstream_ca_file). No network option: the sandbox is on the default allowlist.
#pragma once

#include <string>

#include "daemon_fixture.hpp"
#include "loopback_google.hpp"

namespace kg::test::egress {

// `mode`: the creds-adc mode ("" leaves it out: sealed, the default). `adc_dir` keeps the ADC
// file; it must outlive the daemon.
DaemonFixtureOptions adc_daemon_options(const LoopbackGoogle& google, const std::string& adc_dir,
                                        const std::string& mode = "");

}  // namespace kg::test::egress
