// The labels /metrics counts egress refusals by (docs/metrics.md, kode_gopher_egress_refusals_total).
#include "egress_call.hpp"

namespace kg::sandbox {

std::string_view egress_refusal_label(EgressRefusalKind kind) noexcept {
  switch (kind) {
    case EgressRefusalKind::host_not_allowed: return "host_not_allowed";
    case EgressRefusalKind::port_not_allowed: return "port_not_allowed";
    case EgressRefusalKind::ip_literal: return "ip_literal";
    case EgressRefusalKind::address_not_public: return "address_not_public";
    case EgressRefusalKind::bad_target: return "bad_target";
    case EgressRefusalKind::tls_hello: return "tls_hello";
    case EgressRefusalKind::tls_to_proxy: return "tls_to_proxy";
    case EgressRefusalKind::upstream_tls: return "upstream_tls";
    case EgressRefusalKind::head_timeout: return "head_timeout";
    case EgressRefusalKind::connection_limit: return "connection_limit";
  }
  return "other";
}

}  // namespace kg::sandbox
