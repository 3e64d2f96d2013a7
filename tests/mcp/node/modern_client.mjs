// `kode-gopher serve` driven by the v2 TypeScript client (@modelcontextprotocol/client) with
// version negotiation "auto": it probes with server/discover and, finding a modern server, speaks
// protocol 2026-07-28 (no initialize; per-request _meta; results carry resultType).
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  assertMatchesSchema, cli, config, curatedPackages, freshSnippet, progressBeforeAnswer, recordWire,
  runChecks,
} from "./mcp_test_support.mjs";

const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const SERVER_INFO = "io.modelcontextprotocol/serverInfo";

const transport = new StdioClientTransport({
  command: cli(),
  args: ["--config", config(), "serve", "--log-level", "debug"],
  stderr: "pipe",
});
let serverLog = "";
transport.stderr?.on("data", (chunk) => (serverLog += chunk));
const wire = recordWire(transport);
const client = new Client({ name: "kode-gopher-modern-client-test", version: "1.0.0" },
  { versionNegotiation: { mode: "auto" } });
let tools;

// The wire answer to the last request of `method` this client sent.
function answerTo(method) {
  const request = wire.sent.filter((m) => m.method === method).at(-1);
  assert.ok(request, `no ${method} request was sent`);
  return wire.received.find((m) => m.id === request.id && !m.method);
}

await runChecks("modern-client", [
  ["server/discover makes the client speak 2026-07-28 without initialize", async () => {
    await client.connect(transport);
    assert.equal(client.getProtocolEra(), "modern");
    assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
    const discover = client.getDiscoverResult();
    assert.deepEqual(discover.supportedVersions, ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]);
    assert.deepEqual(discover.capabilities.tools, { listChanged: false });
    assert.deepEqual(discover.capabilities.prompts, { listChanged: false });
    assert.equal(discover.cacheScope, "public");
    assert.equal(discover.ttlMs, 3600000);
    assert.equal(wire.sent.filter((m) => m.method === "initialize").length, 0);
  }],

  ["tools/list is cacheable, carries resultType and the server's identity", async () => {
    tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
    assert.deepEqual([...tools.keys()], ["execute_go_code", "gcp_auth_status", "lookup_package_docs"]);
    const request = wire.sent.filter((m) => m.method === "tools/list").at(-1);
    assert.equal(request.params._meta[PROTOCOL_VERSION], "2026-07-28");
    const answer = answerTo("tools/list").result;
    assert.equal(answer.resultType, "complete");
    assert.equal(answer.ttlMs, 3600000);
    assert.equal(answer.cacheScope, "public");
    assert.equal(answer._meta[SERVER_INFO].name, "kode-gopher");
  }],

  ["prompts/list is cacheable; prompts/get returns the system prompt with resultType", async () => {
    const listed = await client.listPrompts();
    assert.deepEqual(listed.prompts.map((p) => p.name), ["kode_gopher_system_prompt"]);
    const list = answerTo("prompts/list").result;
    assert.equal(list.resultType, "complete");
    assert.equal(list.ttlMs, 3600000);
    assert.equal(list.cacheScope, "public");
    const prompt = await client.getPrompt({ name: "kode_gopher_system_prompt" });
    assert.equal(prompt.messages.length, 1);
    assert.equal(prompt.messages[0].role, "user");
    for (const pkg of curatedPackages()) {
      assert.ok(prompt.messages[0].content.text.includes(`  - ${pkg}\n`), pkg);
    }
    assert.equal(answerTo("prompts/get").result.resultType, "complete");
  }],

  ["tools/call runs a snippet, with progress and resultType", async () => {
    const delivered = [];
    const result = await client.callTool(
      { name: "execute_go_code", arguments: { code: freshSnippet('\treturn "modern", nil') } },
      { timeout: 15 * 60 * 1000, onprogress: (p) => delivered.push(p.progress) });
    // What the server sent; the SDK may drop the last one if it reads it with the answer.
    const progress = progressBeforeAnswer(wire, "tools/call").progress.map((p) => p.progress);
    assert.ok(delivered.length >= 2, JSON.stringify(delivered));
    assert.equal(result.isError, false);
    assert.equal(result.structuredContent.status, "ok");
    assert.deepEqual(result.structuredContent.result, { kind: "ok", value: "modern" });
    assertMatchesSchema(result.structuredContent, tools.get("execute_go_code").outputSchema,
      "execute_go_code's structuredContent");
    assert.deepEqual(progress, [1, 2, 3]);
    const answer = answerTo("tools/call").result;
    assert.equal(answer.resultType, "complete");
    assert.equal(answer._meta[SERVER_INFO].name, "kode-gopher");
  }],

  ["gcp_auth_status and lookup_package_docs answer in the modern era too", async () => {
    const auth = await client.callTool({ name: "gcp_auth_status", arguments: {} });
    assert.equal(auth.structuredContent.mode, "none");
    const docs = await client.callTool({
      name: "lookup_package_docs",
      arguments: { package: "k8s.io/client-go/kubernetes", symbol: "NewForConfig" },
    }, { timeout: 5 * 60 * 1000 });
    assert.equal(docs.isError, false);
    assert.ok(docs.structuredContent.docs.includes("func NewForConfig(c *rest.Config) (*Clientset, error)"),
      docs.structuredContent.docs);
  }],

  ["close", async () => {
    await client.close();
  }],
], () => `--- kode-gopher serve stderr ---\n${serverLog}`);
