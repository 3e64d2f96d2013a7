// What the sandbox looks like to a command before it starts, besides the workdir the client
// uploaded: /execute with "clean_state" (a build whose output may be cached for everyone) gets a
// sandbox where nothing an earlier command wrote can be read; every other command gets the
// session's persist folder linked as <workdir>/persist.
//
// Called by the /execute route under its one-command-at-a-time lock, after the previous
// command's processes are all gone (stray_process_reaper.hpp), so nothing races these steps.
#pragma once

#include "sandbox_server_options.hpp"

namespace kg::sandbox {

// Empties every scratch folder (home, /tmp, /dev/shm), removes <workdir>/persist and makes the
// persist folder unreadable until the next ordinary command. Throws std::runtime_error naming
// what could not be cleaned (the build must not run then).
void prepare_clean_state(const SandboxServerOptions& options);

// Makes the persist folder usable again and links <workdir>/persist to it (when there is one).
// Never throws: a program without its scratch folder still runs, and says so itself.
void link_persist_folder(const SandboxServerOptions& options) noexcept;

// Makes <workdir>/out, the folder whose files the daemon hands back after the call
// (docs/mcp.md, "Files out"), so a program can write there without creating it. Never throws:
// something else already there is left alone (the program's own).
void make_out_folder(const SandboxServerOptions& options) noexcept;

}  // namespace kg::sandbox
