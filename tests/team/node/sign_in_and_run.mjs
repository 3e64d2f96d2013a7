// A user signs in and runs Go code: the official TypeScript SDK client
// (@modelcontextprotocol/sdk, protocol 2025-11-25, StreamableHTTPClientTransport) against the
// daemon's /mcp with an OAuthClientProvider, browser-less. The first request gets 401; the SDK
// reads the protected-resource metadata (RFC 9728, from WWW-Authenticate), the authorization
// server's metadata (RFC 8414), registers itself (RFC 7591 DCR) and hands us the authorize URL.
// Where a browser would go, this client follows the redirects with fetch (redirect: "manual"):
// the daemon's /oauth/authorize -> the upstream mock's /authorize -> the daemon's
// /oauth/callback -> our redirect_uri, whose `code` it hands to transport.finishAuth (PKCE token
// exchange). Then it connects again with the token: initialize, tools/list, one tools/call with
// progress, and DELETE (transport.terminateSession()) unless --keep-session.
//
// usage: node sign_in_and_run.mjs --url URL [--login-hint EMAIL] [--code SRC | --code-file PATH |
//          --arguments JSON] [--tool NAME] [--token ACCESS_TOKEN] [--keep-session]
//          [--redirect-uri URI] [--client-name NAME] [--timeout-ms N]
// Prints one JSON line (see README.md in this directory for the fields).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { BrowserlessOAuthProvider } from "./browserless_oauth.mjs";
import {
  describeError, interestingHeaders, parseOptions, printObservation, programSource,
  recordingFetch, withDeadline,
} from "./team_support.mjs";

const USAGE = "node sign_in_and_run.mjs --url URL [--login-hint EMAIL] [--code SRC | --code-file PATH | " +
  "--arguments JSON] [--tool NAME] [--token ACCESS_TOKEN] [--keep-session] [--redirect-uri URI] " +
  "[--client-name NAME] [--timeout-ms N]";
const values = parseOptions(USAGE, {
  url: { type: "string" },
  "login-hint": { type: "string" },
  code: { type: "string" },
  "code-file": { type: "string" },
  arguments: { type: "string" },
  tool: { type: "string", default: "execute_go_code" },
  token: { type: "string" },
  "keep-session": { type: "boolean", default: false },
  // Nothing listens there: the client takes the code from the redirect's Location, as a native
  // app's loopback listener would receive it.
  "redirect-uri": { type: "string", default: "http://127.0.0.1:53682/callback" },
  "client-name": { type: "string", default: "kode-gopher team test" },
  "timeout-ms": { type: "string", default: "900000" }, // a first call may prewarm the Go cache
}, ["url"]);

const url = new URL(values.url);
const timeout = Number(values["timeout-ms"]);
const http = [];
const observation = { ok: false, url: url.href, http };
withDeadline(timeout + 60_000, observation, "sign_in_and_run");

const provider = new BrowserlessOAuthProvider({
  redirectUrl: values["redirect-uri"],
  clientName: values["client-name"],
  loginHint: values["login-hint"],
  accessToken: values.token,
  // With --token the run checks what the server does with that token: no new sign-in.
  signIn: values.token === undefined,
  fetch: recordingFetch(http),
});
observation.authorization = provider.authorization;
const fetchLogged = recordingFetch(http);

let toolArguments;
if (values.arguments !== undefined) toolArguments = JSON.parse(values.arguments);
else {
  const code = await programSource(values);
  if (code !== undefined) toolArguments = { code };
}

function newTransport() {
  return new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: fetchLogged });
}

let transport = newTransport();
let client = new Client({ name: values["client-name"], version: "1.0.0" });
try {
  try {
    await client.connect(transport);
  } catch (error) {
    // The SDK's way to say "the user must authorize first": after redirectToAuthorization (which
    // followed the redirects and kept the code) connect fails with UnauthorizedError.
    if (!(error instanceof UnauthorizedError) || provider.authorization.code === undefined) throw error;
    await transport.finishAuth(provider.authorization.code);
    transport = newTransport();
    client = new Client({ name: values["client-name"], version: "1.0.0" });
    await client.connect(transport);
  }
  const tokens = provider.tokens();
  observation.client_id = provider.clientInformation()?.client_id;
  observation.access_token = tokens?.access_token;
  observation.refresh_token = tokens?.refresh_token;
  observation.token_response = tokens &&
    { token_type: tokens.token_type, expires_in: tokens.expires_in, scope: tokens.scope };
  observation.discovered = provider.discovered();
  observation.session_id = transport.sessionId;
  observation.protocol_version = transport.protocolVersion;
  observation.server_info = client.getServerVersion();
  observation.server_capabilities = client.getServerCapabilities();

  observation.tools = (await client.listTools()).tools.map((tool) => tool.name);

  if (toolArguments !== undefined) {
    observation.progress = [];
    observation.result = await client.callTool({ name: values.tool, arguments: toolArguments },
      undefined, {
        timeout,
        onprogress: (p) => observation.progress.push({ ...p, at: Date.now() }),
      });
    observation.returned_at = Date.now();
  }

  if (!values["keep-session"]) {
    await transport.terminateSession();
    observation.terminate = { status: http.findLast((e) => e.method === "DELETE")?.status };
    observation.after_delete = await postWithOldSession(observation.session_id, observation.access_token);
  }
  observation.ok = true;
} catch (error) {
  observation.error = describeError(error);
  observation.session_id ??= transport.sessionId;
  const tokens = provider.tokens();
  observation.access_token ??= tokens?.access_token;
} finally {
  await client.close().catch(() => {});
}
await printObservation(observation);
process.exit(0);

// After DELETE the session must be gone: a request naming it should get 404 (not run anything).
async function postWithOldSession(sessionId, accessToken) {
  if (sessionId === undefined) return undefined;
  const response = await fetchLogged(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": sessionId,
      "mcp-protocol-version": observation.protocol_version ?? "2025-11-25",
      ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 99, method: "tools/list" }),
  });
  return { status: response.status, headers: interestingHeaders(response.headers),
    body: (await response.text()).slice(0, 2000) };
}
