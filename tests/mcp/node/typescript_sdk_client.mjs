// `kode-gopher serve` driven by the official TypeScript SDK client (@modelcontextprotocol/sdk,
// protocol 2025-11-25) over stdio: tools/list, outputSchema checks of every structuredContent
// (the SDK's own and ajv's), progress, cancellation, each tool's result, and the prompt.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  assertMatchesSchema, cli, config, curatedPackages, daemonGet, freshSnippet, progressBeforeAnswer,
  recordWire, runChecks,
} from "./mcp_test_support.mjs";

const transport = new StdioClientTransport({
  command: cli(),
  args: ["--config", config(), "serve", "--log-level", "debug"],
  stderr: "pipe",
});
let serverLog = "";
transport.stderr.on("data", (chunk) => (serverLog += chunk));
const wire = recordWire(transport);
const client = new Client({ name: "kode-gopher-typescript-sdk-test", version: "1.0.0" });

const tools = new Map();
const outputSchema = (name) => tools.get(name).outputSchema;

async function call(name, args, options = {}) {
  const result = await client.callTool({ name, arguments: args }, undefined, {
    timeout: 15 * 60 * 1000, // the first call of a fresh build dir prewarms the Go cache
    ...options,
  });
  if (result.structuredContent !== undefined) {
    assertMatchesSchema(result.structuredContent, outputSchema(name), `${name}'s structuredContent`);
  }
  return result;
}

let cancelledRequestId;

await runChecks("typescript-sdk", [
  ["initialize: server identity, tools capability and protocol 2025-11-25", async () => {
    await client.connect(transport);
    assert.equal(client.getServerVersion().name, "kode-gopher");
    assert.deepEqual(client.getServerCapabilities().tools, { listChanged: false });
    assert.deepEqual(client.getServerCapabilities().prompts, { listChanged: false });
    const initialize = wire.received.find((m) => m.id === wire.sent[0].id);
    assert.equal(initialize.result.protocolVersion, "2025-11-25");
    assert.match(client.getInstructions(), /execute_go_code/);
  }],

  ["tools/list: three tools with schemas and annotations", async () => {
    const listed = await client.listTools();
    assert.deepEqual(listed.tools.map((t) => t.name),
      ["execute_go_code", "gcp_auth_status", "lookup_package_docs"]);
    for (const tool of listed.tools) {
      tools.set(tool.name, tool);
      assert.equal(tool.inputSchema.type, "object", tool.name);
      assert.equal(tool.outputSchema.type, "object", tool.name);
      assert.equal(typeof tool.annotations.readOnlyHint, "boolean", tool.name);
    }
    assert.equal(tools.get("execute_go_code").annotations.readOnlyHint, false);
    assert.equal(tools.get("lookup_package_docs").annotations.readOnlyHint, true);
    assert.deepEqual(tools.get("execute_go_code").outputSchema.required,
      ["call_id", "session_id", "phase", "mode", "runtime", "status", "exit_code", "duration_ms",
        "queue_ms", "setup_ms", "build_ms", "run_ms", "tidied", "cache_hit", "is_error"]);
  }],

  ["the curated packages in the tools come from curated.go", async () => {
    const curated = curatedPackages();
    assert.equal(curated.length, 12);
    assert.deepEqual(tools.get("lookup_package_docs").inputSchema.properties.package.enum, curated);
    for (const pkg of curated) {
      assert.ok(tools.get("execute_go_code").description.includes(`  - ${pkg}\n`), pkg);
      assert.ok(tools.get("lookup_package_docs").description.includes(`  - ${pkg}\n`), pkg);
    }
  }],

  ["the system prompt: prompts/list and prompts/get, naming every curated package", async () => {
    const listed = await client.listPrompts();
    assert.deepEqual(listed.prompts.map((p) => [p.name, p.title]),
      [["kode_gopher_system_prompt", "How to use kode-gopher"]]);
    assert.equal(listed.prompts[0].arguments, undefined);
    const prompt = await client.getPrompt({ name: "kode_gopher_system_prompt" });
    assert.equal(prompt.description, listed.prompts[0].description);
    assert.equal(prompt.messages.length, 1);
    assert.equal(prompt.messages[0].role, "user");
    assert.equal(prompt.messages[0].content.type, "text");
    const text = prompt.messages[0].content.text;
    assert.match(text, /func run\(ctx context\.Context\) \(any, error\)/);
    for (const pkg of curatedPackages()) assert.ok(text.includes(`  - ${pkg}\n`), pkg);
    await assert.rejects(client.getPrompt({ name: "no_such_prompt" }),
      (error) => error.code === -32602 && /unknown prompt "no_such_prompt"/.test(error.message));
  }],

  ["a snippet runs, with progress for setup, build and run", async () => {
    const delivered = [];
    const result = await call("execute_go_code",
      { code: freshSnippet('\treturn map[string]int{"answer": 42}, nil') },
      { onprogress: (p) => delivered.push(p) });
    // What the server sent; the SDK may drop the last one if it reads it with the answer.
    const { progress } = progressBeforeAnswer(wire, "tools/call");
    assert.ok(delivered.length >= 2, JSON.stringify(delivered));
    assert.equal(result.isError, false);
    const s = result.structuredContent;
    assert.equal(s.status, "ok");
    assert.equal(s.phase, "run");
    assert.equal(s.mode, "wrapped");
    assert.equal(s.runtime, "compiled-go");
    assert.equal(s.exit_code, 0);
    assert.equal(s.is_error, false);
    assert.deepEqual(s.result, { kind: "ok", value: { answer: 42 } });
    assert.equal(result.content.length, 1);
    assert.equal(result.content[0].type, "text");
    assert.match(result.content[0].text,
      /^phase=run mode=wrapped runtime=compiled-go exit=0 \(\d+ms, build \d+ms\)\n── result ──\n\{\n  "kind": "ok",\n  "value": \{\n    "answer": 42\n  \}\n\}\n$/);
    assert.deepEqual(progress.map((p) => [p.progress, p.total, p.message.split(":")[0]]),
      [[1, 3, "setup"], [2, 3, "build"], [3, 3, "run"]]);
    assert.equal(progress[1].message, "build: compile and link");
    assert.equal(progress[2].message, "run: running the program");
  }],

  ["a compile error is an isError result with diagnostics", async () => {
    const result = await call("execute_go_code",
      { code: "package main\n\nfunc main() {\n\t_ = undefinedName\n}\n" });
    assert.equal(result.isError, true);
    const s = result.structuredContent;
    assert.equal(s.status, "compile_error");
    assert.equal(s.phase, "build");
    assert.equal(s.mode, "verbatim");
    assert.equal(s.is_error, true);
    assert.ok(s.diagnostics.length >= 1);
    assert.deepEqual(
      { file: s.diagnostics[0].file, line: s.diagnostics[0].line, col: s.diagnostics[0].col },
      { file: "main.go", line: 4, col: 6 });
    assert.equal(s.diagnostics[0].message, "undefined: undefinedName");
    assert.match(result.content[0].text, /status=compile_error/);
    assert.match(result.content[0].text, /── diagnostics ──\nmain\.go:4:6: undefined: undefinedName\n/);
  }],

  ["bad arguments are an isError result, not a protocol error", async () => {
    const result = await client.callTool({ name: "execute_go_code", arguments: {} });
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent, undefined);
    assert.equal(result.content[0].text,
      'execute_go_code: give the program as "code" (the source of main.go) or as "files" (an object mapping paths to sources)');
  }],

  ["api_policy: in the input schema; a bad value is an isError result naming it", async () => {
    const policy = tools.get("execute_go_code").inputSchema.properties.api_policy;
    assert.deepEqual(Object.keys(policy.properties), ["read_only", "projects", "buckets"]);
    assert.equal(policy.additionalProperties, false);
    const code = "package main\n\nfunc main() {}\n";
    const bad = await client.callTool({ name: "execute_go_code",
      arguments: { code, api_policy: { projects: ["My_Project"] } } });
    assert.equal(bad.isError, true);
    assert.equal(bad.structuredContent, undefined);
    assert.match(bad.content[0].text,
      /^execute_go_code: "api_policy"\."projects": "My_Project" is not a project ID \(6 to 30 lowercase letters/);
    const unknown = await client.callTool({ name: "execute_go_code",
      arguments: { code, api_policy: { readonly: true } } });
    assert.equal(unknown.isError, true);
    assert.equal(unknown.content[0].text,
      'execute_go_code: "api_policy" has the unknown key "readonly"; known: read_only, projects, buckets');
    const empty = await client.callTool({ name: "execute_go_code",
      arguments: { code, api_policy: { buckets: [] } } });
    assert.match(empty.content[0].text, /"api_policy"\."buckets" is empty/);
  }],

  ["api_policy reaches the daemon, and the call runs under it (the egress proxy reads its requests)", async () => {
    const before = (await daemonGet("/v1/stats")).calls.by_status.rejected ?? 0;
    // This daemon's sandboxes use the default network, the allowlist through the egress proxy,
    // which reads Google API requests: the policy holds there, so the call runs (it makes none).
    const result = await client.callTool({ name: "execute_go_code", arguments: {
      code: "package main\n\nfunc main() {}\n",
      api_policy: { read_only: true, buckets: ["my-bucket"] } } });
    assert.equal(result.isError, false, result.content[0].text);
    assert.equal(result.structuredContent.status, "ok");
    assert.equal(result.structuredContent.api_calls, undefined);  // no request, no audit block
    assert.equal((await daemonGet("/v1/stats")).calls.by_status.rejected ?? 0, before);
  }],

  ["cancelling a running call gets no response, and the session runs the next call", async () => {
    const before = (await daemonGet("/v1/stats")).calls.by_status.cancelled ?? 0;
    const controller = new AbortController();
    const sentBefore = wire.sent.length;
    const sleeper = call("execute_go_code", {
      code: "package main\n\nimport \"time\"\n\nfunc main() { time.Sleep(60 * time.Second) }\n",
    }, {
      signal: controller.signal,
      onprogress: (p) => { if (p.message.startsWith("run:")) controller.abort("test cancels"); },
    });
    await assert.rejects(sleeper, (error) => /test cancels|abort/i.test(String(error?.message ?? error)));
    cancelledRequestId = wire.sent.slice(sentBefore).find((m) => m.method === "tools/call").id;
    const cancel = wire.sent.find((m) => m.method === "notifications/cancelled");
    assert.equal(cancel.params.requestId, cancelledRequestId);

    const next = await call("execute_go_code", { files: { "main.go": "package main\n\nfunc main() { println(\"after the cancel\") }\n" } });
    assert.equal(next.isError, false);
    assert.equal(next.structuredContent.stderr, "after the cancel\n");
    // No answer of any kind came for the cancelled request, and the daemon counted it cancelled.
    assert.equal(wire.received.filter((m) => m.id === cancelledRequestId).length, 0);
    const after = (await daemonGet("/v1/stats")).calls.by_status.cancelled ?? 0;
    assert.equal(after, before + 1);
  }],

  ["gcp_auth_status reports mode none, and how to fix it, without a credential plugin", async () => {
    const result = await call("gcp_auth_status", {});
    assert.equal(result.isError, false);
    assert.equal(result.structuredContent.mode, "none");
    assert.match(result.structuredContent.problem, /programs run without Google credentials/);
    assert.ok(result.structuredContent.login_hint);
    assert.match(result.content[0].text, /^mode=none: programs run without Google credentials/);
  }],

  ["lookup_package_docs returns go doc output for a curated package", async () => {
    const result = await call("lookup_package_docs",
      { package: "cloud.google.com/go/storage", symbol: "NewClient" });
    assert.equal(result.isError, false);
    assert.equal(result.structuredContent.package, "cloud.google.com/go/storage");
    assert.equal(result.structuredContent.symbol, "NewClient");
    assert.ok(result.structuredContent.docs.includes(
      "func NewClient(ctx context.Context, opts ...option.ClientOption) (*Client, error)"));
    assert.equal(result.content[0].text, result.structuredContent.docs);
  }],

  ["lookup_package_docs refuses a package outside the curated list", async () => {
    const result = await call("lookup_package_docs", { package: "os/exec" });
    assert.equal(result.isError, true);
    assert.match(result.content[0].text,
      /^lookup_package_docs: "os\/exec" is not a curated package; the curated packages are:\n  - cloud\.google\.com\/go\/bigquery\n/);
  }],

  ["closing stdin ends the server and closes its daemon session", async () => {
    const session = wire.received.find((m) => m.result?.structuredContent?.session_id)
      .result.structuredContent.session_id;
    await client.close();
    const state = await daemonGet(`/v1/sessions/${session}`);
    assert.equal(state.client, "mcp");
    assert.equal(state.state, "closed");
  }],
], () => `--- kode-gopher serve stderr ---\n${serverLog}`);
