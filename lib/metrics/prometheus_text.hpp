// Prometheus' text exposition format (version 0.0.4), written: HELP and TYPE once per metric
// family, then its samples, label values escaped as the format requires. Histograms take the
// cumulative bucket counts and write the _bucket, _sum and _count series, +Inf included.
// A value type; build one per scrape on any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kg::metrics {

// What a scrape answers with in Content-Type.
inline constexpr std::string_view kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

using Labels = std::vector<std::pair<std::string, std::string>>;

class PrometheusText {
 public:
  // type: "counter", "gauge" or "histogram". Families must be distinct; each is written once.
  void family(std::string_view name, std::string_view type, std::string_view help);
  void sample(std::string_view name, const Labels& labels, double value);
  // upper_bounds ascending; cumulative[i] = observations <= upper_bounds[i]; count is the +Inf
  // bucket and the _count series.
  void histogram(std::string_view name, const Labels& labels,
                 const std::vector<double>& upper_bounds,
                 const std::vector<std::uint64_t>& cumulative, double sum, std::uint64_t count);

  const std::string& text() const noexcept { return text_; }

 private:
  std::string text_;
};

// A label value with \, " and newline escaped.
std::string escape_label_value(std::string_view value);

}  // namespace kg::metrics
