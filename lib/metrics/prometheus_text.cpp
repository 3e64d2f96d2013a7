#include "prometheus_text.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace kg::metrics {
namespace {

std::string number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<long long>(value));
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

std::string label_text(const Labels& labels) {
  if (labels.empty()) return "";
  std::string out = "{";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) out += ',';
    out += labels[i].first;
    out += "=\"";
    out += escape_label_value(labels[i].second);
    out += '"';
  }
  out += '}';
  return out;
}

// HELP text escapes only \ and newline.
std::string escape_help(std::string_view help) {
  std::string out;
  for (const char c : help) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

}  // namespace

std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

void PrometheusText::family(std::string_view name, std::string_view type, std::string_view help) {
  text_ += "# HELP ";
  text_ += name;
  text_ += ' ';
  text_ += escape_help(help);
  text_ += "\n# TYPE ";
  text_ += name;
  text_ += ' ';
  text_ += type;
  text_ += '\n';
}

void PrometheusText::sample(std::string_view name, const Labels& labels, double value) {
  text_ += name;
  text_ += label_text(labels);
  text_ += ' ';
  text_ += number(value);
  text_ += '\n';
}

void PrometheusText::histogram(std::string_view name, const Labels& labels,
                               const std::vector<double>& upper_bounds,
                               const std::vector<std::uint64_t>& cumulative, double sum,
                               std::uint64_t count) {
  if (upper_bounds.size() != cumulative.size()) {
    throw std::invalid_argument("histogram " + std::string(name) +
                                ": one cumulative count per upper bound");
  }
  const std::string bucket = std::string(name) + "_bucket";
  for (std::size_t i = 0; i < upper_bounds.size(); ++i) {
    Labels with_bound = labels;
    with_bound.emplace_back("le", number(upper_bounds[i]));
    sample(bucket, with_bound, static_cast<double>(cumulative[i]));
  }
  Labels infinite = labels;
  infinite.emplace_back("le", "+Inf");
  sample(bucket, infinite, static_cast<double>(count));
  sample(std::string(name) + "_sum", labels, sum);
  sample(std::string(name) + "_count", labels, static_cast<double>(count));
}

}  // namespace kg::metrics
