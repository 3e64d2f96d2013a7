#include "curated_packages.hpp"

#include <fstream>
#include <stdexcept>

namespace kg::sandbox {

std::vector<std::string> read_curated_packages(const std::string& lockfile_dir) {
  const std::string path = lockfile_dir + "/curated.go";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("Cannot read the curated package list " + path);
  std::vector<std::string> packages;
  std::string line;
  while (std::getline(in, line)) {
    // Lines of the import block look like: \t_ "cloud.google.com/go/storage"
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line.compare(first, 3, "_ \"") != 0) continue;
    const auto end = line.find('"', first + 3);
    if (end != std::string::npos) packages.push_back(line.substr(first + 3, end - first - 3));
  }
  if (packages.empty()) throw std::runtime_error(path + " lists no curated package");
  return packages;
}

}  // namespace kg::sandbox
