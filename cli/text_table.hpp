// Left-aligned columns for the listing commands (sessions, stats, plugins): a header row and
// rows, columns two spaces apart, no trailing spaces. Widths count UTF-8 code points.
// A value type; main thread.
#pragma once

#include <string>
#include <vector>

namespace kg::cli {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}

  // Cells past the header's width are dropped; missing cells are empty.
  void add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  bool empty() const noexcept { return rows_.empty(); }

  // Every line ends with '\n'.
  std::string render() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace kg::cli
