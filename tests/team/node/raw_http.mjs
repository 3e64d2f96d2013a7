// A raw HTTP probe of the daemon's endpoints, for the cases no SDK client will produce: malformed
// or oversized bodies, a foreign Origin or Host, a missing, bogus, replayed or revoked token, a
// wrong MCP-Protocol-Version, a stale session id, bursts for the rate limit. It uses node:http(s)
// rather than fetch, so Host and every other header go out exactly as given. It sends the request
// (--repeat times, one after another) and prints each answer: status, all headers, the body (as
// JSON, or as SSE events when it is a stream), and how long it took.
//
// usage: node raw_http.mjs --url URL [--method M] [--header 'Name: value']... [--token T]
//          [--body TEXT | --body-file PATH | --rpc METHOD [--params JSON] [--id ID]
//           [--stateless]] [--pad-to BYTES] [--protocol-version V] [--session ID]
//          [--repeat N] [--timeout-ms N] [--ca PATH] [--max-body-chars N]
//   --rpc builds a JSON-RPC request (with Content-Type and an Accept of both JSON and SSE);
//   --stateless adds what 2026-07-28 wants on it: the _meta envelope and the Mcp-Method and
//   Mcp-Name headers (any --header given wins over them). --pad-to grows the body to that many
//   bytes with whitespace (still valid JSON), for the size cap.
// Prints one JSON line: {"ok", "request": {...}, "responses": [{status, headers, body, json?,
// events?, elapsed_ms}]}; a connection that fails (reset, refused, timeout) is a response with
// "error" instead of a status.
import { readFile } from "node:fs/promises";
import http from "node:http";
import https from "node:https";
import { describeError, parseOptions, printObservation } from "./team_support.mjs";

const USAGE = "node raw_http.mjs --url URL [--method M] [--header 'Name: value']... [--token T] " +
  "[--body TEXT | --body-file PATH | --rpc METHOD [--params JSON] [--id ID] [--stateless]] " +
  "[--pad-to BYTES] [--protocol-version V] [--session ID] [--repeat N] [--timeout-ms N] " +
  "[--ca PATH] [--max-body-chars N]";
const values = parseOptions(USAGE, {
  url: { type: "string" },
  method: { type: "string" },
  header: { type: "string", multiple: true, default: [] },
  token: { type: "string" },
  body: { type: "string" },
  "body-file": { type: "string" },
  rpc: { type: "string" },
  params: { type: "string" },
  id: { type: "string", default: "1" },
  stateless: { type: "boolean", default: false },
  "pad-to": { type: "string" },
  "protocol-version": { type: "string" },
  session: { type: "string" },
  repeat: { type: "string", default: "1" },
  "timeout-ms": { type: "string", default: "30000" },
  ca: { type: "string" },
  "max-body-chars": { type: "string", default: "20000" },
}, ["url"]);

const PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion";
const url = new URL(values.url);
const headers = {};
let body;

if (values.rpc !== undefined) {
  const params = values.params === undefined ? undefined : JSON.parse(values.params);
  const id = /^-?\d+$/.test(values.id) ? Number(values.id) : values.id;
  const withMeta = values.stateless ? statelessParams(params) : params;
  body = JSON.stringify({ jsonrpc: "2.0", id, method: values.rpc, ...(withMeta ? { params: withMeta } : {}) });
  headers["content-type"] = "application/json";
  headers.accept = "application/json, text/event-stream";
  if (values.stateless) {
    headers["mcp-method"] = values.rpc;
    const name = mcpName(values.rpc, params);
    if (name !== undefined) headers["mcp-name"] = name;
    headers["mcp-protocol-version"] = withMeta._meta[PROTOCOL_VERSION_META];
  }
} else if (values["body-file"] !== undefined) {
  body = await readFile(values["body-file"], "utf8");
} else {
  body = values.body;
}
if (values["pad-to"] !== undefined) body = padTo(body ?? "", Number(values["pad-to"]));
if (values["protocol-version"] !== undefined) headers["mcp-protocol-version"] = values["protocol-version"];
if (values.session !== undefined) headers["mcp-session-id"] = values.session;
if (values.token !== undefined) headers.authorization = `Bearer ${values.token}`;
for (const line of values.header) {
  const colon = line.indexOf(":");
  if (colon <= 0) {
    process.stderr.write(`--header wants 'Name: value', not ${JSON.stringify(line)}\n`);
    process.exit(2);
  }
  headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
}
const method = values.method ?? (body === undefined ? "GET" : "POST");
const ca = values.ca === undefined ? undefined : await readFile(values.ca);

const observation = {
  ok: true,
  request: {
    method, url: url.href, body_bytes: body === undefined ? 0 : Buffer.byteLength(body),
    // The token's value is the runner's own; naming that one was sent is enough here.
    headers: { ...headers, ...(headers.authorization ? { authorization: "Bearer (given)" } : {}) },
  },
  responses: [],
};
for (let i = 0; i < Number(values.repeat); i += 1) {
  observation.responses.push(await exchange());
}
await printObservation(observation);
process.exit(0);

// 2026-07-28: every request carries the client's protocol version, identity and capabilities.
function statelessParams(params) {
  return {
    ...params,
    _meta: {
      [PROTOCOL_VERSION_META]: values["protocol-version"] ?? "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "kode-gopher team raw probe", version: "1.0.0" },
      "io.modelcontextprotocol/clientCapabilities": {},
      ...params?._meta,
    },
  };
}

// SEP-2243: Mcp-Name is the tool or prompt name, or the resource URI, of the request.
function mcpName(rpcMethod, params) {
  if (rpcMethod === "tools/call" || rpcMethod === "prompts/get") return params?.name;
  if (rpcMethod === "resources/read") return params?.uri;
  return undefined;
}

// Whitespace after the JSON keeps it valid, so a size check is what rejects it, not the parser.
function padTo(text, bytes) {
  const missing = bytes - Buffer.byteLength(text);
  return missing > 0 ? text + " ".repeat(missing) : text;
}

function exchange() {
  const started = performance.now();
  const transport = url.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    let settled = false; // a destroyed stream may still report its end or an error: first wins
    const finish = (answer) => {
      if (settled) return;
      settled = true;
      resolve({ ...answer, elapsed_ms: Math.round(performance.now() - started) });
    };
    const request = transport.request(url, {
      method,
      headers: { ...headers, ...(body !== undefined ? { "content-length": Buffer.byteLength(body) } : {}) },
      ...(ca ? { ca } : {}),
      timeout: Number(values["timeout-ms"]),
    }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => (text += chunk));
      const done = (error) => finish({
        status: response.statusCode,
        headers: response.headers,
        ...describeBody(text, response.headers["content-type"]),
        ...(error ? { error: describeError(error) } : {}),
      });
      response.on("end", () => done());
      response.on("error", (error) => done(error));
      // An SSE stream may stay open (a GET stream, a long call): stop at the deadline and
      // report what came, rather than waiting forever.
      request.setTimeout(Number(values["timeout-ms"]), () => {
        response.destroy();
        done({ name: "Timeout", message: `no end of the response within ${values["timeout-ms"]} ms` });
      });
    });
    request.on("timeout", () => request.destroy(new Error(`no answer within ${values["timeout-ms"]} ms`)));
    request.on("error", (error) => finish({ error: describeError(error) }));
    if (body !== undefined) request.write(body);
    request.end();
  });
}

function describeBody(text, contentType = "") {
  const limit = Number(values["max-body-chars"]);
  const described = { body: text.length > limit ? text.slice(0, limit) : text, body_chars: text.length };
  if (contentType.startsWith("application/json")) {
    try {
      described.json = JSON.parse(text);
    } catch {
      // not JSON after all: the body says what it is
    }
  } else if (contentType.startsWith("text/event-stream")) {
    described.events = sseEvents(text);
  }
  return described;
}

// Each SSE event's id, event name and data (parsed as JSON when it is).
function sseEvents(text) {
  return text.split(/\r?\n\r?\n/).filter((block) => block.trim() !== "").map((block) => {
    const event = {};
    const data = [];
    for (const line of block.split(/\r?\n/)) {
      const colon = line.indexOf(":");
      if (colon === 0) continue; // an SSE comment
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "data") data.push(value);
      else if (field === "id" || field === "event" || field === "retry") event[field] = value;
    }
    if (data.length > 0) {
      const joined = data.join("\n");
      try {
        event.data = JSON.parse(joined);
      } catch {
        event.data = joined;
      }
    }
    return event;
  });
}
