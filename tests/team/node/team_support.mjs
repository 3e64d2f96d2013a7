// What the `team` suite's Node clients share. Each client is one observation run: it takes its
// inputs from argv, does what a real client does against the daemon's /mcp over HTTP, and prints
// ONE JSON line of what it saw on stdout. Assertions live in the C++ test (tests/team/), so a
// client exits 0 whenever it could run, also when the server refused it (that is an observation);
// it exits 2 only for a usage error, with the reason on stderr.
import { parseArgs } from "node:util";

// Parses argv with node:util's strict parser; a missing required option or an unknown one is a
// usage error (exit 2), since a runner that passes the wrong flags has a bug worth stopping on.
export function parseOptions(usage, options, required = []) {
  let values;
  try {
    ({ values } = parseArgs({ args: process.argv.slice(2), options, strict: true }));
  } catch (error) {
    usageError(usage, error.message);
  }
  for (const name of required) {
    if (values[name] === undefined) usageError(usage, `--${name} is required`);
  }
  return values;
}

function usageError(usage, reason) {
  process.stderr.write(`${reason}\nusage: ${usage}\n`);
  process.exit(2);
}

// The one line on stdout. Written with a callback so a large line is flushed before exit.
export function printObservation(observation) {
  return new Promise((resolve) => process.stdout.write(JSON.stringify(observation) + "\n", resolve));
}

// An error as data: what the runner needs to tell refusals apart (HTTP status, JSON-RPC code).
export function describeError(error) {
  if (error === undefined || error === null) return undefined;
  return {
    // The class says more than `name` (the SDK's UnauthorizedError is named plain "Error").
    name: error.constructor?.name && error.constructor.name !== "Object" ? error.constructor.name : (error.name ?? typeof error),
    message: String(error.message ?? error),
    ...(error.code !== undefined ? { code: error.code } : {}),
    ...(error.data !== undefined ? { data: error.data } : {}),
  };
}

// Headers as a plain object with lowercased names (what fetch's Headers iterate as).
export function headersObject(headers) {
  return Object.fromEntries(new Headers(headers ?? {}).entries());
}

// The response headers a test asserts on; the rest (date, keep-alive, ...) is noise.
const INTERESTING_RESPONSE_HEADERS = [
  "content-type", "mcp-session-id", "mcp-protocol-version", "www-authenticate", "location",
  "retry-after", "cache-control", "access-control-allow-origin",
];

export function interestingHeaders(headers) {
  const all = headersObject(headers);
  return Object.fromEntries(INTERESTING_RESPONSE_HEADERS.filter((h) => h in all).map((h) => [h, all[h]]));
}

// A fetch that logs every exchange (method, URL without its query, status, the headers the tests
// look at) into `log`. Given to the SDK transports, it sees the MCP requests and the SDK's own
// OAuth traffic (protected-resource and authorization-server metadata, registration, token).
// Bodies are not read: an SSE response must reach the SDK unconsumed.
export function recordingFetch(log, baseFetch = fetch) {
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const requestHeaders = headersObject(init.headers ?? (input instanceof Request ? input.headers : undefined));
    const entry = {
      method: init.method ?? (input instanceof Request ? input.method : "GET"),
      url: url.origin + url.pathname,
      authorization: requestHeaders.authorization !== undefined,
      ...(requestHeaders["mcp-method"] ? { mcp_method: requestHeaders["mcp-method"] } : {}),
      ...(requestHeaders["mcp-name"] ? { mcp_name: requestHeaders["mcp-name"] } : {}),
      ...(requestHeaders["mcp-protocol-version"]
        ? { mcp_protocol_version: requestHeaders["mcp-protocol-version"] } : {}),
      ...(requestHeaders["mcp-session-id"] ? { mcp_session_id: requestHeaders["mcp-session-id"] } : {}),
      ...(typeof init.body === "string" ? { rpc: rpcSummary(init.body) } : {}),
    };
    log.push(entry);
    try {
      const response = await baseFetch(input, init);
      entry.status = response.status;
      entry.headers = interestingHeaders(response.headers);
      return response;
    } catch (error) {
      entry.error = describeError(error);
      throw error;
    }
  };
}

// The JSON-RPC method (or "response") of a request body, for the log; undefined for non-JSON.
function rpcSummary(body) {
  try {
    const message = JSON.parse(body);
    const one = (m) => m?.method ?? (m && "id" in m ? "response" : undefined);
    return Array.isArray(message) ? message.map(one) : one(message);
  } catch {
    return undefined;
  }
}

// Reads a Go source given inline (--code) or from a file (--code-file).
export async function programSource(values) {
  if (values["code-file"] !== undefined) {
    const { readFile } = await import("node:fs/promises");
    return readFile(values["code-file"], "utf8");
  }
  return values.code;
}

// A deadline for the whole run, so a hung server shows up as an observation, not a hung test:
// when it passes, what was observed so far is printed with an error saying what took too long.
export function withDeadline(milliseconds, observation, what) {
  const timer = setTimeout(async () => {
    observation.ok = false;
    observation.error = { name: "Timeout", message: `${what} took longer than ${milliseconds} ms` };
    await printObservation(observation);
    process.exit(0);
  }, milliseconds);
  timer.unref();
}
