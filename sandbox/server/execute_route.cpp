// POST /execute: {"command", "env"?, "timeout_ms"?, "output_limit_bytes"?, "limits"?,
// "read_file"?, "credentials"?, "stream"?} → the command's outcome (with "stream": NDJSON lines of
// its output while it runs, then the outcome) (and, with read_file, one file of the
// workdir as it was when the command ended). With credentials, a metadata emulator serves the
// token to this command alone (metadata_emulator.hpp). The body and the answer are read and
// written by their codecs in lib/wire/sandbox_api, the same the daemon's SandboxClient uses.
#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/StreamSocket.h>

#include <algorithm>
#include <optional>

#include "command_runner.hpp"
#include "command_state.hpp"
#include "file_after_command.hpp"
#include "malformed_message.hpp"
#include "metadata_emulator.hpp"
#include "output_streamer.hpp"
#include "sandbox_api/execute_answer.hpp"
#include "sandbox_api/execute_request.hpp"
#include "sandbox_api/execute_stream.hpp"
#include "sandbox_routes.hpp"

namespace kg::sandbox {
namespace {

namespace wire = kg::wire::sandbox_api;

// The body as the codec reads it (lib/wire/sandbox_api); what it refuses is a 400.
wire::ExecuteRequest decode_body(const std::string& text) {
  try {
    return wire::decode_execute_request(text);
  } catch (const kg::wire::MalformedMessage& e) {
    throw HttpError(400, e.what());
  }
}

CommandRequest command_request(const RouteContext& context, const wire::ExecuteRequest& body) {
  CommandRequest request;
  request.command = body.command;
  request.env = body.env;
  request.timeout = std::chrono::milliseconds(body.timeout_ms);
  // A larger limit than the server's cap is lowered to the cap, so clients need not know it.
  request.output_limit_bytes = std::min<std::uint64_t>(
      body.output_limit_bytes.value_or(context.options.stream_cap_bytes),
      context.options.stream_cap_bytes);
  request.limits = CommandLimits{body.limits.cpu_seconds, body.limits.file_size_bytes,
                                 body.limits.open_files};
  request.workdir = context.confinement.workdir();
  request.reap_strays = context.options.reap_strays;
  request.launcher = context.launcher.get();
  request.clean_state = body.clean_state;
  request.prestart_arguments = body.prestart_arguments;
  return request;
}

// The connection's socket, watched so that a client that hangs up stops its command.
int connection_socket(Poco::Net::HTTPServerRequest& request) {
  auto* impl = dynamic_cast<Poco::Net::HTTPServerRequestImpl*>(&request);
  return impl == nullptr ? -1 : impl->socket().impl()->sockfd();
}

// "credentials": only for a sandbox whose loopback is its own.
std::optional<MetadataIdentity> command_identity(const RouteContext& context,
                                                 const wire::ExecuteRequest& body) {
  if (!body.credentials) return std::nullopt;
  if (context.options.shares_host_network) {
    throw HttpError(
        400,
        "\"credentials\" refused: this sandbox shares the host's network ([sandbox] network = "
        "host), so its metadata emulator would serve the token to every process on the host; "
        "use network = allowlist, egress or none for credentialed runs");
  }
  return identity_for_command(*body.credentials, std::chrono::system_clock::now());
}

// Sets name=value in env, replacing an earlier value.
void set_variable(std::vector<std::pair<std::string, std::string>>& env, const std::string& name,
                  const std::string& value) {
  for (auto& [existing, old_value] : env) {
    if (existing == name) {
      old_value = value;
      return;
    }
  }
  env.emplace_back(name, value);
}

wire::ExecuteAnswer answer_of(const CommandResult& result, std::optional<FileAfterCommand> file) {
  wire::ExecuteAnswer answer;
  answer.stdout_text = result.stdout_text;
  answer.stderr_text = result.stderr_text;
  answer.exit_code = result.exit_code;
  answer.signal = result.signal;
  answer.timed_out = result.timed_out;
  answer.cpu_limit_exceeded = result.cpu_limit_exceeded;
  answer.stdout_truncated = result.stdout_truncated;
  answer.stderr_truncated = result.stderr_truncated;
  answer.stdout_discarded_bytes = result.stdout_discarded_bytes;
  answer.stderr_discarded_bytes = result.stderr_discarded_bytes;
  answer.duration_ms = result.duration_ms;
  answer.file = std::move(file);
  return answer;
}

// A "prestart" call: taken by the process started for it after the previous such call when
// that one was born exactly as this call asks, else by one started now. Either way the process
// gets its call the same way, on its stdin.
CommandResult run_prestarted(RouteContext& context, const CommandRequest& command) {
  const PrestartShape shape = prestart_shape_of(command);
  context.prestart_shape = shape;
  std::unique_ptr<PrestartedCommand> process = std::move(context.prestarted);
  if (!process || !(process->shape() == shape) || !process->waiting()) {
    process.reset();
    process = std::make_unique<PrestartedCommand>(shape, command.launcher);
  }
  const auto started = std::chrono::steady_clock::now();
  ShellProcess child =
      process->take(overlay_environment(command.env), *command.prestart_arguments);
  return run_started_command(std::move(child), command, started);
}

// After the answer went out, once a "prestart" call ran in this sandbox: the process for the
// next such call, born once every process of the command that just ended is gone
// (run_command reaped them) and with nothing of it. After any command, not only after a
// prestart call: a session that mixes runtimes (auto's compiled calls, builds) still finds its
// runner waiting, and the next ordinary command kills it first. Never throws: the next call
// starts its own then.
void prestart_next(RouteContext& context, CommandLauncher* launcher) noexcept {
  try {
    const std::lock_guard one_command_at_a_time(context.execute_mutex);
    context.dying.reset();
    if (context.prestarted || !context.prestart_shape) return;
    context.prestarted = std::make_unique<PrestartedCommand>(*context.prestart_shape, launcher);
  } catch (const std::exception& e) {
    context.logger.log(log::LogLevel::warn,
                       std::string("Cannot prestart the next call's command: ") + e.what());
  }
}

// Runs the command under the route's lock: one command at a time.
struct Ran {
  CommandResult result;
  std::optional<FileAfterCommand> file;
};

Ran run_locked(RouteContext& context, const wire::ExecuteRequest& body, CommandRequest& command,
               std::optional<MetadataIdentity>& credentials) {
  Ran ran;
  const std::lock_guard one_command_at_a_time(context.execute_mutex);
  // No command runs beside a prestarted process (prestarted_command.hpp): killed now, reaped
  // once the command has ended (its teardown takes milliseconds the command need not wait).
  if (!command.prestart_arguments && context.prestarted) {
    context.prestarted->kill_now();
    context.dying = std::move(context.prestarted);
    command.dying_process = context.dying->pid();
  }
  if (command.clean_state) {
    prepare_clean_state(context.options);
  } else {
    link_persist_folder(context.options);
    make_out_folder(context.options);
  }
  // Lives exactly as long as the command: no later command sees the token.
  std::optional<MetadataEmulator> metadata;
  if (credentials) {
    metadata.emplace(std::move(*credentials));
    for (const auto& [name, value] : metadata->environment()) {
      set_variable(command.env, name, value);
    }
  }
  ran.result = command.prestart_arguments ? run_prestarted(context, command) : run_command(command);
  metadata.reset();
  // Still under the lock: no other command can change the file in between.
  if (body.read_file && !ran.result.cancelled) {
    ran.file = read_file_after_command(context.confinement, body.read_file->path,
                                       body.read_file->max_bytes);
  }
  return ran;
}

// "stream": 200 and NDJSON from the start (docs/sandbox-api.md, "Streamed output"): the output
// as it is printed, then the outcome, or an error line for a failure after the headers went out.
Ran run_streamed(RouteContext& context, Exchange& exchange, const wire::ExecuteRequest& body,
                 CommandRequest& command, std::optional<MetadataIdentity>& credentials) {
  exchange.response.setStatus(Poco::Net::HTTPResponse::HTTP_OK);
  exchange.response.setContentType("application/x-ndjson");
  exchange.response.setChunkedTransferEncoding(true);
  std::ostream& out = exchange.response.send();
  OutputStreamer streamer(out, *body.stream);
  command.output = &streamer;
  Ran ran;
  std::string last_line;
  try {
    ran = run_locked(context, body, command, credentials);
    streamer.finish();
    last_line = wire::encode_stream_result(answer_of(ran.result, std::move(ran.file)));
  } catch (const std::exception& e) {
    streamer.finish();
    context.logger.log(log::LogLevel::warn, std::string("A streamed command failed: ") + e.what());
    last_line = wire::encode_stream_error(e.what());
    ran.result.cancelled = true;  // no prestart after a command that did not run through
  }
  try {
    out << last_line << '\n' << std::flush;
  } catch (...) {
    // The client is gone; the command is over either way.
  }
  return ran;
}

}  // namespace

void serve_execute(RouteContext& context, Exchange& exchange) {
  const std::string text =
      read_body(exchange.request, context.options.max_json_bytes, "The /execute body");
  const wire::ExecuteRequest body = decode_body(text);
  CommandRequest command = command_request(context, body);
  std::optional<MetadataIdentity> credentials = command_identity(context, body);
  if (context.egress_bridge) {
    // The proxy variables come first, so a request may still name its own NO_PROXY.
    auto env = context.egress_bridge->environment();
    for (const auto& [name, value] : command.env) set_variable(env, name, value);
    command.env = std::move(env);
  }
  command.cancel_watch_fd = connection_socket(exchange.request);
  if (body.stream) {
    const Ran ran = run_streamed(context, exchange, body, command, credentials);
    if (ran.result.cancelled) {
      context.logger.log(log::LogLevel::info, "The client hung up: command killed");
    } else {
      prestart_next(context, command.launcher);
    }
    return;
  }
  Ran ran = run_locked(context, body, command, credentials);
  if (ran.result.cancelled) {
    context.logger.log(log::LogLevel::info, "The client hung up: command killed");
  }
  send_json(exchange.response, 200,
            wire::encode_execute_answer(answer_of(ran.result, std::move(ran.file))));
  if (!ran.result.cancelled) prestart_next(context, command.launcher);
}

}  // namespace kg::sandbox
