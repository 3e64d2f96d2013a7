// SessionManager: the files a program leaves under /app/out, fetched from the sandbox after each
// call through the runtime API (every provider: GET /download-tar), read as hostile, kept for the
// session (CallFileStore) and served only to the session's owner.
#include "error_chain.hpp"
#include "managed_session.hpp"
#include "session_errors.hpp"
#include "session_manager.hpp"

namespace kg::session {

void SessionManager::collect_out_files(Session& session, CallResult& call) noexcept {
  // A program that never ran wrote nothing; a one-shot caller still hears what it left.
  if (!files_ || !session.sandbox || call.result.status == plugin::Status::compile_error) return;
  try {
    const auto handle = session.sandbox->call_handle({.owner = session.record.owner});
    const std::optional<std::string> tar = handle->folder_tar(kOutFolder, kOutFileBounds);
    if (!tar) return;
    sandbox::FolderContents contents =
        sandbox::read_folder_tar(*tar, kOutFileBounds, std::string(kOutFolderInSandbox) + "/");
    for (auto& warning : contents.warnings) {
      call.result.warnings.push_back("Not returned: " + warning);
    }
    call.files = files_->keep(session.record.owner, session.record.id, call.call_id, contents.files);
  } catch (const std::exception& e) {
    call.result.warnings.push_back(std::string("The files under ") + kOutFolderInSandbox +
                                   " could not be returned: " + describe_error_chain(e));
  }
}

std::shared_ptr<SessionManager::Session> SessionManager::find_owned(
    const std::string& session_id, const std::optional<std::string>& owner) {
  std::shared_ptr<Session> session;
  {
    std::lock_guard lock(mutex_);
    const auto it = sessions_.find(session_id);
    if (it != sessions_.end()) session = it->second;
  }
  // Another user's session reads exactly like one that does not exist.
  if (!session || (owner && session->record.owner != *owner) || !files_) {
    throw SessionNotFoundError("No open session '" + session_id +
                               "'; a call's files are kept only while its session is open");
  }
  return session;
}

OutFileContent SessionManager::call_file(const std::string& session_id,
                                         const std::optional<std::string>& owner,
                                         std::int64_t call_id, const std::string& name) {
  const auto session = find_owned(session_id, owner);
  try {
    return files_->read(session->record.owner, session_id, call_id, name);
  } catch (const CallFileNotFoundError&) {
    throw CallFileNotFoundError("Call " + std::to_string(call_id) + " of session " + session_id +
                                " left no file \"" + name + "\" under " + kOutFolderInSandbox);
  }
}

std::vector<OutFile> SessionManager::call_files(const std::string& session_id,
                                                const std::optional<std::string>& owner) {
  const auto session = find_owned(session_id, owner);
  return files_->list(session->record.owner, session_id);
}

}  // namespace kg::session
