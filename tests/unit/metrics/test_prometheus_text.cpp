// lib/metrics: what a Prometheus scrape parses — HELP/TYPE lines, escaped label values and the
// histogram series with a +Inf bucket.
#include <stdexcept>

#include <doctest/doctest.h>

#include "prometheus_text.hpp"

namespace kg::metrics {

TEST_CASE("families, samples and escaped label values") {
  PrometheusText out;
  out.family("kg_calls_total", "counter", "Calls.\nBy runtime \\ status.");
  out.sample("kg_calls_total", {{"runtime", "compiled-go"}, {"status", "ok"}}, 3);
  out.sample("kg_calls_total", {{"runtime", "a\"b\\c\nd"}}, 0.25);
  out.family("kg_up", "gauge", "Up.");
  out.sample("kg_up", {}, 1);
  CHECK(out.text() ==
        "# HELP kg_calls_total Calls.\\nBy runtime \\\\ status.\n"
        "# TYPE kg_calls_total counter\n"
        "kg_calls_total{runtime=\"compiled-go\",status=\"ok\"} 3\n"
        "kg_calls_total{runtime=\"a\\\"b\\\\c\\nd\"} 0.25\n"
        "# HELP kg_up Up.\n"
        "# TYPE kg_up gauge\n"
        "kg_up 1\n");
}

TEST_CASE("a histogram writes cumulative buckets, +Inf, _sum and _count") {
  PrometheusText out;
  out.family("kg_seconds", "histogram", "Durations.");
  out.histogram("kg_seconds", {{"runtime", "yaegi"}}, {0.01, 2.5}, {1, 3}, 7.5, 4);
  CHECK(out.text() ==
        "# HELP kg_seconds Durations.\n"
        "# TYPE kg_seconds histogram\n"
        "kg_seconds_bucket{runtime=\"yaegi\",le=\"0.01\"} 1\n"
        "kg_seconds_bucket{runtime=\"yaegi\",le=\"2.5\"} 3\n"
        "kg_seconds_bucket{runtime=\"yaegi\",le=\"+Inf\"} 4\n"
        "kg_seconds_sum{runtime=\"yaegi\"} 7.5\n"
        "kg_seconds_count{runtime=\"yaegi\"} 4\n");
  CHECK_THROWS_AS(out.histogram("kg_seconds", {}, {1.0}, {}, 0, 0), std::invalid_argument);
}

}  // namespace kg::metrics
