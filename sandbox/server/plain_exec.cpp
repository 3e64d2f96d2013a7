#include "plain_exec.hpp"

#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <memory>

namespace kg::sandbox {
namespace {

// Characters no shell gives a meaning to anywhere in a word (dash's quoting, expansions,
// globs, operators, comments and tilde all start with others).
bool is_plain_character(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("_./=:,+@%-").find(c) != std::string_view::npos;
}

bool is_shell_name(std::string_view name) {
  if (name.empty() || (name.front() >= '0' && name.front() <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  });
}

bool same_directory(const char* a, const char* b) {
  struct stat first {}, second {};
  return ::stat(a, &first) == 0 && ::stat(b, &second) == 0 && first.st_dev == second.st_dev &&
         first.st_ino == second.st_ino;
}

// What dash exports as PWD after starting in `workdir` (its getpwd()).
std::string shell_pwd(const std::optional<std::string>& inherited,
                      const std::filesystem::path& workdir) {
  if (inherited && inherited->starts_with('/') &&
      same_directory(inherited->c_str(), workdir.c_str())) {
    return *inherited;
  }
  const std::unique_ptr<char, decltype(&::free)> physical(::realpath(workdir.c_str(), nullptr),
                                                          &::free);
  return physical ? std::string(physical.get()) : workdir.string();
}

}  // namespace

std::optional<std::vector<std::string>> plain_exec_argv(std::string_view command) {
  std::vector<std::string> words;
  std::size_t at = 0;
  while (at < command.size()) {
    if (command[at] == ' ') {
      ++at;
      continue;
    }
    const std::size_t end = std::min(command.find(' ', at), command.size());
    const std::string_view word = command.substr(at, end - at);
    if (!std::all_of(word.begin(), word.end(), is_plain_character)) return std::nullopt;
    words.emplace_back(word);
    at = end;
  }
  if (words.size() < 2 || words.front() != "exec" || !words[1].starts_with('/')) {
    return std::nullopt;
  }
  words.erase(words.begin());
  return words;
}

std::vector<std::string> shell_exec_environment(const std::vector<std::string>& environment,
                                                const std::filesystem::path& workdir) {
  std::vector<std::string> exported;
  std::optional<std::string> pwd;
  for (const auto& entry : environment) {
    const std::string_view text(entry);
    const std::size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    const std::string_view name = text.substr(0, equals);
    if (!is_shell_name(name)) continue;
    if (name == "PWD") {
      pwd = std::string(text.substr(equals + 1));
      continue;
    }
    const auto same_name = std::find_if(exported.begin(), exported.end(), [&](const auto& kept) {
      return kept.size() > name.size() && kept.compare(0, name.size(), name) == 0 &&
             kept[name.size()] == '=';
    });
    if (same_name != exported.end()) {
      *same_name = entry;
    } else {
      exported.push_back(entry);
    }
  }
  exported.push_back("PWD=" + shell_pwd(pwd, workdir));
  return exported;
}

}  // namespace kg::sandbox
