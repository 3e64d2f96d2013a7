// Where kode-gopher's files live when the config does not say: the XDG base directories with
// their HOME fallbacks, and "~/" expansion of path values. Reads the environment on every call
// (nothing cached), so callers and tests see setenv() changes. Used by the config loader.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

namespace kg::config {

// $HOME when set and not empty.
std::optional<std::string> home_dir();

// A root process's default state dir, whatever its environment says.
inline constexpr const char* kRootStateDir = "/var/lib/kode-gopher";

// kRootStateDir for root (euid 0); else $XDG_STATE_HOME/kode-gopher, else
// $HOME/.local/state/kode-gopher, else /tmp/kode-gopher-<uid>.
std::string default_state_dir(uid_t euid);
// default_state_dir(geteuid()).
std::string default_state_dir();

// $XDG_RUNTIME_DIR/kode-gopher/daemon.sock, else <state_dir>/daemon.sock.
std::string default_socket_path(const std::string& state_dir);

// "~" or "~/rest" -> $HOME, $HOME/rest; anything else unchanged. nullopt when the value needs
// HOME and HOME is not set.
std::optional<std::string> expand_home(std::string_view value);

}  // namespace kg::config
