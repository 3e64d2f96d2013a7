// The 2026-07-28 era over HTTP: the v2 TypeScript client (@modelcontextprotocol/client,
// StreamableHTTPClientTransport) pinned to protocol 2026-07-28 (or negotiating with --era auto)
// against the daemon's /mcp with a bearer token the runner already has (from sign_in_and_run).
// No initialize and no session: every request carries _meta (protocolVersion, clientInfo,
// clientCapabilities) and the Mcp-Method / Mcp-Name / MCP-Protocol-Version headers, which the
// client adds itself; the HTTP log shows what it sent and what came back.
// server/discover, tools/list, then one tools/call with progress.
//
// usage: node stateless_call.mjs --url URL [--token ACCESS_TOKEN] [--era modern|auto]
//          [--code SRC | --code-file PATH | --arguments JSON] [--tool NAME] [--timeout-ms N]
// Prints one JSON line (see README.md in this directory for the fields).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  describeError, parseOptions, printObservation, programSource, recordingFetch, withDeadline,
} from "./team_support.mjs";

const USAGE = "node stateless_call.mjs --url URL [--token ACCESS_TOKEN] [--era modern|auto] " +
  "[--code SRC | --code-file PATH | --arguments JSON] [--tool NAME] [--timeout-ms N]";
const values = parseOptions(USAGE, {
  url: { type: "string" },
  token: { type: "string" },
  era: { type: "string", default: "modern" },
  code: { type: "string" },
  "code-file": { type: "string" },
  arguments: { type: "string" },
  tool: { type: "string", default: "execute_go_code" },
  "timeout-ms": { type: "string", default: "900000" },
}, ["url"]);
if (!["modern", "auto"].includes(values.era)) {
  process.stderr.write(`--era is modern or auto, not ${values.era}\nusage: ${USAGE}\n`);
  process.exit(2);
}

const PROTOCOL_VERSION = "2026-07-28";
const timeout = Number(values["timeout-ms"]);
const http = [];
const wire = { sent: [], received: [] };
const observation = { ok: false, url: values.url, http };
withDeadline(timeout + 60_000, observation, "stateless_call");

let toolArguments;
if (values.arguments !== undefined) toolArguments = JSON.parse(values.arguments);
else {
  const code = await programSource(values);
  if (code !== undefined) toolArguments = { code };
}

// A fixed bearer token: no sign-in here, so a 401 is the observation (UnauthorizedError).
const authProvider = values.token === undefined ? undefined : { token: async () => values.token };
const transport = new StreamableHTTPClientTransport(new URL(values.url), {
  fetch: recordingFetch(http),
  ...(authProvider ? { authProvider } : {}),
});
recordWire(transport, wire);
const client = new Client({ name: "kode-gopher team stateless test", version: "1.0.0" }, {
  versionNegotiation: { mode: values.era === "auto" ? "auto" : { pin: PROTOCOL_VERSION } },
});

// The wire answer to the last request of `method`: its result's resultType, ttl and _meta are
// what the 2026-07-28 era adds, and the SDK's typed results drop some of them.
function answerTo(method) {
  const request = wire.sent.filter((m) => m.method === method).at(-1);
  const answer = request && wire.received.find((m) => m.id === request.id && !m.method);
  if (answer === undefined) return undefined;
  if (answer.error) return { error: answer.error };
  const { resultType, ttlMs, cacheScope, _meta } = answer.result ?? {};
  return { keys: Object.keys(answer.result ?? {}), resultType, ttlMs, cacheScope, _meta };
}

try {
  await client.connect(transport);
  observation.era = client.getProtocolEra();
  observation.protocol_version = client.getNegotiatedProtocolVersion();
  observation.discover = client.getDiscoverResult?.();
  observation.session_id = transport.sessionId; // stateless: expected undefined

  observation.tools = (await client.listTools()).tools.map((tool) => tool.name);
  observation.tools_list_answer = answerTo("tools/list");

  if (toolArguments !== undefined) {
    observation.progress = [];
    observation.result = await client.callTool({ name: values.tool, arguments: toolArguments }, {
      timeout,
      onprogress: (p) => observation.progress.push(p),
    });
    observation.tools_call_answer = answerTo("tools/call");
  }
  observation.ok = true;
} catch (error) {
  observation.error = describeError(error);
  observation.era ??= client.getProtocolEra?.();
} finally {
  await client.close().catch(() => {});
}
observation.tools_call_answer ??= answerTo("tools/call");
// The _meta each request carried (the SDK attaches the 2026-07-28 envelope itself).
observation.request_meta = wire.sent.filter((m) => m.method)
  .map((m) => ({ method: m.method, _meta: m.params?._meta }));
await printObservation(observation);
process.exit(0);

// Records what crosses the transport both ways; call before client.connect(transport). The
// client chains an onmessage that is already set (Protocol.connect), which sees every message
// the HTTP transport delivers, the era probe's answer included.
function recordWire(target, log) {
  const send = target.send.bind(target);
  target.send = (message, options) => {
    log.sent.push(message);
    return send(message, options);
  };
  target.onmessage = (message) => log.received.push(message);
}
