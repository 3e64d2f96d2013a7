// Files under /app/out (docs/mcp.md, "Files out") over streamable HTTP with the official
// TypeScript SDK client, for a signed-in user's token: `write` runs a program that leaves a CSV
// and a binary file there, reads both back through their resource links (resources/read) and
// drops the connection without ending its session, so the files stay; `read` is another user
// naming those uris. Assertions are the C++ test's (tests/team/test_team_sign_in.cpp).
//
// usage: node out_files_across_users.mjs --url URL --token TOKEN --action write|read
//          [--uri URI]...
// Prints one JSON line.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createHash } from "node:crypto";
import { describeError, parseOptions, printObservation, withDeadline } from "./team_support.mjs";

const USAGE = "node out_files_across_users.mjs --url URL --token TOKEN --action write|read [--uri URI]...";
const values = parseOptions(USAGE, {
  url: { type: "string" },
  token: { type: "string" },
  action: { type: "string" },
  uri: { type: "string", multiple: true, default: [] },
}, ["url", "token", "action"]);

const observation = { ok: false, action: values.action };
withDeadline(900_000, observation, "out_files_across_users");

// A CSV, and 256 bytes of every value (no text type): they must come back byte for byte.
const PROGRAM = `package main

import "os"

func main() {
	if err := os.WriteFile("/app/out/report.csv", []byte("bucket,objects\\nlogs,3\\n"), 0o644); err != nil {
		panic(err)
	}
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	if err := os.WriteFile("/app/out/bytes.bin", all, 0o644); err != nil {
		panic(err)
	}
}
`;

const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

// resources/read as the client sees it: the content's bytes (text or base64 blob), or the error.
async function readBack(client, uri) {
  try {
    const { contents } = await client.readResource({ uri });
    const item = contents[0];
    const bytes = item.blob !== undefined ? Buffer.from(item.blob, "base64") : Buffer.from(item.text, "utf8");
    return { uri: item.uri, mimeType: item.mimeType, size: bytes.length, sha256: sha256(bytes),
             kind: item.blob !== undefined ? "blob" : "text" };
  } catch (error) {
    return { error: describeError(error) };
  }
}

const transport = new StreamableHTTPClientTransport(new URL(values.url), {
  requestInit: { headers: { Authorization: `Bearer ${values.token}` } },
});
const client = new Client({ name: "kode-gopher out files test", version: "1.0.0" });

try {
  await client.connect(transport);
  observation.capabilities = client.getServerCapabilities();
  if (values.action === "write") {
    const result = await client.callTool({ name: "execute_go_code", arguments: { code: PROGRAM } },
                                         undefined, { timeout: 600_000 });
    observation.is_error = result.isError;
    observation.links = result.content.filter((item) => item.type === "resource_link");
    observation.files = result.structuredContent?.files ?? [];
    observation.reads = [];
    for (const link of observation.links) observation.reads.push(await readBack(client, link.uri));
    observation.expected = {
      "report.csv": sha256(Buffer.from("bucket,objects\nlogs,3\n")),
      "bytes.bin": sha256(Buffer.from([...Array(256).keys()])),
    };
    observation.listed = (await client.listResources()).resources.map((r) => r.uri);
    // Gone without a word: the session stays (and its files with it) until it idles out.
    await transport.close();
  } else if (values.action === "read") {
    observation.reads = [];
    for (const uri of values.uri) observation.reads.push(await readBack(client, uri));
    observation.listed = (await client.listResources()).resources.map((r) => r.uri);
  } else {
    throw new Error(`unknown --action ${values.action}`);
  }
  observation.ok = true;
} catch (error) {
  observation.error = describeError(error);
} finally {
  await client.close().catch(() => {});
}
await printObservation(observation);
