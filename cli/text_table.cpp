#include "text_table.hpp"

#include <algorithm>

namespace kg::cli {
namespace {

std::size_t display_width(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;  // not a UTF-8 continuation byte
  }));
}

}  // namespace

std::string TextTable::render() const {
  const std::size_t columns = header_.size();
  std::vector<std::size_t> widths(columns);
  auto measure = [&](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < columns && i < row.size(); ++i) {
      widths[i] = std::max(widths[i], display_width(row[i]));
    }
  };
  measure(header_);
  for (const auto& row : rows_) measure(row);

  std::string out;
  auto append = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t i = 0; i < columns; ++i) {
      const std::string cell = i < row.size() ? row[i] : std::string();
      line += cell;
      if (i + 1 < columns) line.append(widths[i] - display_width(cell) + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + '\n';
  };
  append(header_);
  for (const auto& row : rows_) append(row);
  return out;
}

}  // namespace kg::cli
