#include "default_daemon_id.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <system_error>

#include "kube_client.hpp"

namespace kg::sandbox {
namespace {

constexpr std::size_t kSuffixDigits = 8;
constexpr std::size_t kMaxLabel = 63;

bool is_valid_id(const std::string& id) {
  return !id.empty() && id.size() <= kMaxLabel && is_dns1123_name(id) &&
         id.find('.') == std::string::npos;
}

std::string random_suffix() {
  std::random_device random;
  std::uniform_int_distribution<int> digit(0, 15);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string suffix;
  for (std::size_t i = 0; i < kSuffixDigits; ++i) suffix += kHex[digit(random)];
  return suffix;
}

}  // namespace

std::string host_name_label(std::size_t max_size) {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') return "kode-gopher";
  std::string id;
  for (const char* c = host; *c != '\0' && *c != '.' && id.size() < max_size; ++c) {
    const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(*c)));
    id += (lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9') ? lower : '-';
  }
  while (!id.empty() && id.front() == '-') id.erase(id.begin());
  while (!id.empty() && id.back() == '-') id.pop_back();
  return id.empty() ? "kode-gopher" : id;
}

std::string default_daemon_id(const std::string& state_dir) {
  const std::filesystem::path file = std::filesystem::path(state_dir) / "kubernetes-daemon-id";
  {
    std::ifstream in(file);
    std::string kept;
    if (in && std::getline(in, kept) && is_valid_id(kept)) return kept;
  }
  const std::string id = host_name_label(kMaxLabel - 1 - kSuffixDigits) + "-" + random_suffix();
  const std::filesystem::path temporary = file.string() + ".new";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << id << "\n";
    out.close();
    if (!out) {
      throw std::runtime_error("Cannot write the Kubernetes daemon id to " + temporary.string() +
                               " (the default of [kubernetes] daemon_id)");
    }
  }
  std::error_code error;
  std::filesystem::permissions(temporary, std::filesystem::perms::owner_read |
                                              std::filesystem::perms::owner_write, error);
  std::filesystem::rename(temporary, file, error);
  if (error) {
    throw std::runtime_error("Cannot keep the Kubernetes daemon id in " + file.string() + ": " +
                             error.message() + " (the default of [kubernetes] daemon_id)");
  }
  return id;
}

}  // namespace kg::sandbox
