// What the Node MCP client tests share: the environment the `mcp` suite hands them, a wire log
// of every message between the client and `kode-gopher serve`, a JSON Schema check with ajv,
// the daemon's stats over its Unix socket, and the curated package list read from curated.go.
import { readFileSync } from "node:fs";
import http from "node:http";
import assert from "node:assert/strict";
import Ajv from "ajv";

export function requiredEnv(name) {
  const value = process.env[name];
  if (!value) throw new Error(`this test needs $${name} (set by tests/mcp/meson.build)`);
  return value;
}

export const cli = () => requiredEnv("KG_CLI");
export const config = () => requiredEnv("KG_MCP_CONFIG");

// The blank imports of curated.go: the list the tool descriptions must be generated from.
export function curatedPackages() {
  const text = readFileSync(requiredEnv("KG_CURATED_GO"), "utf8");
  return [...text.matchAll(/^\s*_\s+"([^"]+)"\s*$/gm)].map((m) => m[1]);
}

// Records what crosses a transport in both directions, and when each message arrived
// (receivedAt[i] for received[i]); call before client.connect(transport).
export function recordWire(transport) {
  const wire = { sent: [], received: [], receivedAt: [] };
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    wire.sent.push(message);
    return send(message, options);
  };
  const start = transport.start.bind(transport);
  transport.start = async () => {
    const onmessage = transport.onmessage;
    transport.onmessage = (message, extra) => {
      wire.received.push(message);
      wire.receivedAt.push(Date.now());
      onmessage?.(message, extra);
    };
    return start();
  };
  return wire;
}

// The notifications/progress the server sent for the last `method` request before its answer,
// in the order the transport read them, each with the time it arrived, and the answer's time.
// Read from the wire, not from onprogress: the TypeScript SDK 1.x hands notifications to their
// handlers a microtask later than it takes an answer, so a progress notification it reads in the
// same chunk as the answer is dropped ("unknown token", typescript-sdk#2580; docs/mcp.md,
// "Output while it runs"). What the server sent is what these tests check.
export function progressBeforeAnswer(wire, method) {
  const request = wire.sent.filter((m) => m.method === method).at(-1);
  assert.ok(request, `no ${method} request was sent`);
  const token = request.params?._meta?.progressToken;
  const progress = [];
  for (let i = 0; i < wire.received.length; i++) {
    const message = wire.received[i];
    if (message.id === request.id && !message.method) {
      return { progress, answeredAt: wire.receivedAt[i] };
    }
    if (message.method === "notifications/progress" && token !== undefined &&
        message.params?.progressToken === token) {
      const { progressToken, ...params } = message.params;
      progress.push({ ...params, at: wire.receivedAt[i] });
    }
  }
  assert.fail(`the answer to ${method} (id ${request.id}) is not on the wire`);
}

// Validates `value` against `schema` with ajv (strict: unknown keywords are schema bugs too).
const ajv = new Ajv({ strict: true, allErrors: true });
export function assertMatchesSchema(value, schema, what) {
  const validate = ajv.compile(schema);
  const valid = validate(value);
  assert.ok(valid, `${what} does not match its outputSchema: ${ajv.errorsText(validate.errors)}\n` +
    JSON.stringify(value, null, 2));
}

// GET a daemon API route over its Unix socket.
export function daemonGet(path) {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { socketPath: requiredEnv("KG_DAEMON_SOCKET"), path, method: "GET" },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => (body += chunk));
        response.on("end", () => {
          if (response.statusCode !== 200) reject(new Error(`GET ${path}: ${response.statusCode} ${body}`));
          else resolve(JSON.parse(body));
        });
      });
    request.on("error", reject);
    request.end();
  });
}

// Runs named checks in order, printing each; the first failure ends the process with status 1.
export async function runChecks(title, checks, onFailure = () => "") {
  let passed = 0;
  for (const [name, check] of checks) {
    try {
      await check();
      passed += 1;
      console.log(`ok ${passed} - ${name}`);
    } catch (error) {
      console.log(`not ok ${passed + 1} - ${name}`);
      console.log(error?.stack ?? String(error));
      const extra = await onFailure();
      if (extra) console.log(extra);
      process.exit(1);
    }
  }
  console.log(`${title}: all ${passed} checks passed`);
}

// A snippet whose source is new to the build cache, so the build phase really runs.
export function freshSnippet(body) {
  const nonce = `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  return `package snippet\n\nimport "context"\n\n// ${nonce}\nfunc run(ctx context.Context) (any, error) {\n${body}\n}\n`;
}
