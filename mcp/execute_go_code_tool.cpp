#include "execute_go_code_tool.hpp"

#include "daemon_api/execute_request.hpp"
#include "execute_result_schema.hpp"
#include "json_rpc.hpp"
#include "json_text.hpp"
#include "malformed_message.hpp"
#include "out_file_resources.hpp"
#include "result_renderer.hpp"
#include "tool_definition.hpp"
#include "tool_descriptions.hpp"
#include "tool_failure.hpp"

namespace kg::mcp {
namespace {

using wire::daemon_api::ExecuteResult;

constexpr std::string_view kTool = "execute_go_code";

// The runtime property: an enum of what the daemon offers when it said, else any name (the daemon
// then answers for it).
std::string runtime_property(const std::optional<OfferedRuntimes>& offered) {
  const std::string names = offered ? runtime_names_json(offered->callable) : "";
  return std::string(R"json("runtime": {"type": "string", )json") +
         (offered ? "\"enum\": " + names + ", " : "") + R"json("description": )json" +
         kg::cli::quoted_json(runtime_parameter_description(offered)) + "}";
}

std::string input_schema(const std::optional<OfferedRuntimes>& offered) {
  return R"json({
  "type": "object",
  "properties": {
    "code": {"type": "string",
             "description": "The source of main.go: a snippet (package other than main with func run(ctx context.Context) (any, error)) or a package main program. Give this or files."},
    "files": {"type": "object", "additionalProperties": {"type": "string"},
              "description": "Path -> source for several files, e.g. {\"main.go\": \"...\", \"util/util.go\": \"...\"}; may include go.mod and go.sum. Give this or code."},
    "extra_imports": {"type": "array", "items": {"type": "string"},
                      "description": "Import paths to blank-import, e.g. to register drivers"},
    )json" + runtime_property(offered) + R"json(,
    "action": {"type": "string", "enum": ["run", "test", "vet"],
               "description": "run (the default): build and run the program. test: go test over every package sent; the *_test.go files' tests (and subtests) come back in the result's tests, one entry each (package, name, outcome pass/fail/skip, elapsed_ms, output), failures first in the text; a snippet (func run) has tests only if you send a _test.go file beside it that calls run. vet: go vet; its findings come back as diagnostics with the analyzer's name. test and vet need compiled-go (auto picks it; yaegi is refused). timeout_ms bounds the tests' run."},
    "timeout_ms": {"type": "integer", "minimum": 1,
                   "description": )json" + kg::cli::quoted_json(timeout_parameter_description(offered)) + R"json(},
    "api_policy": {
      "type": "object",
      "description": "Narrows what the program's Google API requests may do (never more than the daemon allows; holds in local sandboxes with network allowlist, else the call is not run). A refused request gets HTTP 403 or gRPC PERMISSION_DENIED in the program and a warning in the result.",
      "properties": {
        "read_only": {"type": "boolean", "description": "true: only reads (GET/HEAD, read RPCs such as Get*/List*/Read*, BigQuery dry runs)"},
        "projects": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                     "description": "Project IDs requests may name"},
        "buckets": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                    "description": "Cloud Storage buckets storage requests may name"}
      },
      "additionalProperties": false
    }
  },
  "additionalProperties": false
})json";
}

constexpr std::string_view kAnnotations = R"json({
  "title": "Run Go code",
  "readOnlyHint": false,
  "destructiveHint": true,
  "idempotentHint": false,
  "openWorldHint": true
})json";

// The agent sees at most this many API requests, in the text and the structured result; the
// totals still count them all.
constexpr std::size_t kAgentApiCalls = 10;

// The agent sees the first kAgentApiCalls requests; the rest count as dropped.
ExecuteResult shortened_for_agent(ExecuteResult result) {
  if (!result.api_calls || result.api_calls->calls.size() <= kAgentApiCalls) return result;
  auto& calls = result.api_calls->calls;
  result.api_calls->dropped += calls.size() - kAgentApiCalls;
  calls.resize(kAgentApiCalls);
  return result;
}

}  // namespace

wire::daemon_api::ExecuteRequest execute_request_for(
    const rapidjson::Value* arguments, const std::optional<OfferedRuntimes>& offered) {
  const ToolArguments args(kTool, arguments,
                           {"code", "files", "extra_imports", "runtime", "timeout_ms", "api_policy",
                            "action"});
  const std::optional<std::string> code = args.optional_string("code");
  const rapidjson::Value* files = args.optional_string_map("files");
  if (code && files != nullptr) {
    throw ToolArgumentError(std::string(kTool) +
                            ": give exactly one of \"code\" or \"files\", not both");
  }
  if (!code && files == nullptr) {
    throw ToolArgumentError(std::string(kTool) +
                            ": give the program as \"code\" (the source of main.go) or as "
                            "\"files\" (an object mapping paths to sources)");
  }
  const auto extra_imports = args.optional_string_list("extra_imports");
  const std::optional<std::string> runtime = args.optional_string("runtime");
  const std::optional<std::uint32_t> timeout_ms = args.optional_positive_integer("timeout_ms");
  if (runtime && offered && !offered->can_call(*runtime)) {
    throw ToolArgumentError(std::string(kTool) + ": " + offered->unavailable_message(*runtime));
  }
  const std::optional<std::string> action = args.optional_string("action");
  if (action) {
    if (auto problem = wire::daemon_api::action_problem(*action)) {
      throw ToolArgumentError(std::string(kTool) + ": " + *problem);
    }
  }

  wire::daemon_api::ExecuteRequest request;
  request.code = code;
  if (files != nullptr) {
    for (const auto& member : files->GetObject()) {
      request.files.emplace_back(
          std::string(member.name.GetString(), member.name.GetStringLength()),
          std::string(member.value.GetString(), member.value.GetStringLength()));
    }
  }
  request.extra_imports = extra_imports;
  request.runtime = runtime;
  request.timeout_ms = timeout_ms;
  if (action && *action != "run") request.action = action;
  if (const rapidjson::Value* policy = args.optional_object("api_policy")) {
    try {
      request.api_policy = wire::daemon_api::decode_api_policy(*policy);
    } catch (const wire::MalformedMessage& e) {
      throw ToolArgumentError(std::string(kTool) + ": " + e.what());
    }
  }
  return request;
}

rapidjson::Document ExecuteGoCodeTool::definition(const ProtocolFeatures& features) const {
  const std::optional<OfferedRuntimes> offered = runtimes_.get();
  return build_tool_definition({std::string(kTool), "Run Go code",
                                execute_go_code_description(offered), input_schema(offered),
                                execute_result_schema(offered),
                                std::string(kAnnotations)},
                               features);
}

ToolResult ExecuteGoCodeTool::call(const rapidjson::Value* arguments, ToolCallContext& context) {
  try {
    const ExecuteResult result = daemon_.execute(
        execute_request_for(arguments, runtimes_.get()),
        [&](std::string_view phase, std::string_view detail) {
          context.phase_reached(phase, detail);
        },
        [&](const ProgramOutput& output) { context.output_printed(output); });
    ToolResult tool_result;
    tool_result.is_error = result.is_error;
    tool_result.text = kg::cli::render_execute_result(result, kAgentApiCalls);
    tool_result.structured = wire::daemon_api::encode_execute_result(shortened_for_agent(result));
    tool_result.links = out_file_links(result.files);
    return tool_result;
  } catch (...) {
    return tool_failure(kTool, std::current_exception());
  }
}

}  // namespace kg::mcp
