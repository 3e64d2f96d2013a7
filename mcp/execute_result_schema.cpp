#include "execute_result_schema.hpp"

#include "json_text.hpp"

namespace kg::mcp {

std::string runtime_names_json(const std::vector<std::string>& names) {
  std::string json = "[";
  for (const std::string& runtime : names) {
    if (json.size() > 1) json += ',';
    json += kg::cli::quoted_json(runtime);
  }
  return json + "]";
}

// Keep in step with the ExecuteResult codec (lib/wire/daemon_api/execute_result.cpp) and
// docs/daemon-api.md.
std::string execute_result_schema(const std::optional<OfferedRuntimes>& offered) {
  const std::string runtime_enum =
      offered ? "\"enum\": " + runtime_names_json(offered->plugin_runtimes) + ",\n" : "";
  return R"json({
  "type": "object",
  "required": ["call_id", "session_id", "phase", "mode", "runtime", "status", "exit_code",
               "duration_ms", "queue_ms", "setup_ms", "build_ms", "run_ms", "tidied",
               "cache_hit", "is_error"],
  "properties": {
    "call_id": {"type": "integer", "description": "The daemon's id of this call"},
    "session_id": {"type": "string", "description": "The daemon session the call ran in"},
    "phase": {"type": "string", "enum": ["setup", "build", "run"],
              "description": "The last phase reached: setup (sandbox and files), build, run"},
    "mode": {"type": "string", "enum": ["wrapped", "verbatim"],
             "description": "wrapped: a snippet with func run; verbatim: a package main program"},
    "action": {"type": "string", "enum": ["test", "vet"],
               "description": "Present when the call ran go test or go vet instead of the program"},
    "runtime": {"type": "string", )json" + runtime_enum + R"json(
                "description": "The runtime that ran the call (with auto: the one auto chose)"},
    "runtime_reason": {"type": "string",
                       "description": "With runtime auto: why the runtime auto tries first was safe for this program, or which import or construct sent it to the other"},
    "status": {"type": "string",
               "enum": ["ok", "compile_error", "runtime_error", "test_failed", "vet_findings",
                        "panic", "timeout", "oom", "output_limit", "killed", "internal"],
               "description": "test_failed: action test, a test or a package failed; vet_findings: action vet, go vet reported diagnostics"},
    "exit_code": {"type": "integer", "description": "The program's exit code (128+N: signal N)"},
    "signal": {"type": "integer", "description": "The signal that ended the program, if any"},
    "duration_ms": {"type": "integer", "minimum": 0},
    "queue_ms": {"type": "integer", "minimum": 0},
    "setup_ms": {"type": "integer", "minimum": 0},
    "build_ms": {"type": "integer", "minimum": 0},
    "run_ms": {"type": "integer", "minimum": 0},
    "timings_us": {
      "type": "object",
      "description": "Microseconds: total, queue, setup, build, run; sandbox (waiting on the sandbox's requests) and daemon (the daemon's own work: total - queue - setup - sandbox)",
      "properties": {
        "total": {"type": "integer", "minimum": 0},
        "queue": {"type": "integer", "minimum": 0},
        "setup": {"type": "integer", "minimum": 0},
        "build": {"type": "integer", "minimum": 0},
        "run": {"type": "integer", "minimum": 0},
        "sandbox": {"type": "integer", "minimum": 0},
        "daemon": {"type": "integer", "minimum": 0}
      }
    },
    "sandbox_requests": {"type": "integer", "minimum": 0,
                         "description": "Requests the call made of its sandbox"},
    "tidied": {"type": "boolean",
               "description": "go mod tidy ran because an import is outside the curated lockfile"},
    "cache_hit": {"type": "boolean", "description": "The binary came from the build cache"},
    "is_error": {"type": "boolean",
                 "description": "exit_code != 0, status != ok, result.kind != ok, or a result warning"},
    "warnings": {"type": "array", "items": {"type": "string"}},
    "stdout": {"type": "string",
               "description": "Head and tail 8 KiB each, with a '... [N bytes elided] ...' marker"},
    "stderr": {"type": "string",
               "description": "Head and tail 8 KiB each, with a '... [N bytes elided] ...' marker"},
    "diagnostics": {
      "type": "array",
      "description": "Compiler errors; with action vet, go vet's findings, each naming its analyzer",
      "items": {
        "type": "object",
        "required": ["file", "line", "col", "message"],
        "properties": {
          "file": {"type": "string"},
          "line": {"type": "integer"},
          "col": {"type": "integer"},
          "message": {"type": "string"},
          "analyzer": {"type": "string", "description": "go vet's analyzer, e.g. printf"}
        }
      }
    },
    "tests": {
      "type": "object",
      "description": "Action test: the totals and one entry per test and subtest (Parent/Sub), in the order they finished",
      "required": ["passed", "failed", "skipped", "cases"],
      "properties": {
        "passed": {"type": "integer", "minimum": 0},
        "failed": {"type": "integer", "minimum": 0},
        "skipped": {"type": "integer", "minimum": 0},
        "cases": {
          "type": "array",
          "items": {
            "type": "object",
            "required": ["package", "name", "outcome", "elapsed_ms"],
            "properties": {
              "package": {"type": "string", "description": "The test's package (import path)"},
              "name": {"type": "string", "description": "TestXxx, or TestXxx/sub for a subtest"},
              "outcome": {"type": "string", "enum": ["pass", "fail", "skip"]},
              "elapsed_ms": {"type": "integer", "minimum": 0},
              "output": {"type": "string", "description": "What the test printed (t.Log, t.Error, a panic), head and tail 2 KiB"}
            }
          }
        }
      }
    },
    "files": {
      "type": "array",
      "description": "The files the program wrote under /app/out (at most 64, 8 MiB each, 32 MiB together; links and special files are refused with a warning). Read one with resources/read of its uri while the session is open; the result's content has a resource_link for each",
      "items": {
        "type": "object",
        "required": ["name", "size", "media_type"],
        "properties": {
          "name": {"type": "string", "description": "Relative to /app/out, e.g. report.csv or plots/a.png"},
          "size": {"type": "integer", "minimum": 0},
          "media_type": {"type": "string", "description": "From the extension, else the content, e.g. text/csv or image/png"},
          "uri": {"type": "string", "description": "kode-gopher://sessions/<session>/calls/<call>/files/<name>; absent for a one-shot call, whose files went with its session"}
        }
      }
    },
    "api_calls": {
      "type": "object",
      "description": "The Google API requests the program made that kode-gopher's egress proxy read (sealed credentials): at most 10 listed here, refused ones first; count, refused and bytes cover all of them, dropped says how many are not listed",
      "required": ["count", "refused", "bytes", "dropped", "calls"],
      "properties": {
        "count": {"type": "integer", "minimum": 0},
        "refused": {"type": "integer", "minimum": 0},
        "bytes": {"type": "integer", "minimum": 0},
        "dropped": {"type": "integer", "minimum": 0},
        "calls": {
          "type": "array",
          "items": {
            "type": "object",
            "required": ["service", "method", "read", "http_status", "duration_us",
                         "request_bytes", "response_bytes"],
            "properties": {
              "service": {"type": "string", "description": "storage, bigquery, pubsub, ..."},
              "method": {"type": "string", "description": "e.g. storage.objects.list or google.pubsub.v1.Publisher/Publish"},
              "resource": {"type": "string", "description": "e.g. b/my-bucket/o/file or projects/p/topics/t"},
              "read": {"type": "boolean", "description": "Changes nothing (docs/api-policy.md's table)"},
              "http_status": {"type": "integer"},
              "grpc_status": {"type": "integer"},
              "duration_us": {"type": "integer", "minimum": 0},
              "request_bytes": {"type": "integer", "minimum": 0},
              "response_bytes": {"type": "integer", "minimum": 0},
              "refused": {"type": "string", "enum": ["read_only", "projects", "buckets", "proxy"],
                          "description": "The rule that refused it; absent: forwarded"}
            }
          }
        }
      }
    },
    "result": {
      "type": "object",
      "description": "The snippet's outcome (result.json): the value run returned, its error, a panic, or a value that could not be encoded",
      "required": ["kind"],
      "properties": {
        "kind": {"type": "string", "enum": ["ok", "error", "panic", "marshal_error"]},
        "value": {"anyOf": [{"type": "object"}, {"type": "array"}, {"type": "string"},
                            {"type": "number"}, {"type": "boolean"}, {"type": "null"}],
                  "description": "kind ok: run's first return value as JSON"},
        "message": {"type": "string"},
        "stack": {"type": "string"},
        "type": {"type": "string"}
      }
    }
  }
})json";
}

}  // namespace kg::mcp
