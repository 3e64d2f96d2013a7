#include "daemon_binary_run.hpp"

#include <Poco/Exception.h>
#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>

#include <iterator>

#include "cli_errors.hpp"

namespace kg::cli {

DaemonBinaryOutput run_daemon_binary(const std::string& binary,
                                     const std::vector<std::string>& arguments, bool merge_stderr) {
  std::string command = binary;
  for (const std::string& argument : arguments) command += " " + argument;
  try {
    Poco::Pipe out;
    Poco::ProcessHandle process =
        Poco::Process::launch(binary, arguments, nullptr, &out, merge_stderr ? &out : nullptr);
    Poco::PipeInputStream stream(out);
    DaemonBinaryOutput result;
    result.output.assign(std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>());
    result.exit_code = process.wait();
    // Poco reports a process ended by a signal as -1, and a child that could not exec the
    // binary exits 72 having printed nothing.
    if (result.exit_code < 0 || (result.exit_code == 72 && result.output.empty())) {
      throw DaemonUnavailableError("`" + command + "` did not run to completion (it could not be "
                                   "executed, or a signal ended it): run it by hand to see why, "
                                   "or reinstall kode-gopher");
    }
    return result;
  } catch (const Poco::Exception& e) {
    throw DaemonUnavailableError("Cannot run `" + command + "`: " + e.displayText());
  }
}

}  // namespace kg::cli
