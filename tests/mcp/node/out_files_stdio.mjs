// Files out (docs/mcp.md, "Files out") through the official TypeScript SDK client over stdio
// (`kode-gopher serve`, cli/mcp/daemon_resource_reads.cpp): a program writes a CSV and a binary
// file under /app/out; both come back as resource_link items, resources/read returns them byte
// for byte (the CSV as text, the binary as a base64 blob), resources/list lists them, and a uri
// no call left, or one of another connection's session, is -32002 (the other connection still
// reads its own); the other connection's files go when it ends.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { cli, config, daemonGet, runChecks } from "./mcp_test_support.mjs";

const CSV = "bucket,objects\nlogs,3\nbackups,12\n";
// Every byte value twice, then bytes that are not UTF-8 in any order (no text type fits).
const BINARY = Buffer.concat([Buffer.from([...Array(256).keys()]), Buffer.from([...Array(256).keys()]),
                              Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28])]);

const goBytes = (bytes) => `[]byte{${[...bytes].join(", ")}}`;
const writer = (nonce) => `package main

import "os"

// ${nonce}
func main() {
\tmust(os.WriteFile("/app/out/report.csv", []byte(${JSON.stringify(CSV)}), 0o644))
\tmust(os.MkdirAll("/app/out/raw", 0o755))
\tmust(os.WriteFile("/app/out/raw/bytes.bin", ${goBytes(BINARY)}, 0o644))
}

func must(err error) {
\tif err != nil {
\t\tpanic(err)
\t}
}
`;

function connect(name) {
  const transport = new StdioClientTransport({
    command: cli(),
    args: ["--config", config(), "serve", "--log-level", "debug"],
    stderr: "pipe",
  });
  const connection = { log: "", client: new Client({ name, version: "1.0.0" }), transport };
  transport.stderr.on("data", (chunk) => (connection.log += chunk));
  return connection;
}

// The JSON-RPC error a resources/read ends in (the SDK throws McpError with its code).
async function readError(client, uri) {
  try {
    const answer = await client.readResource({ uri });
    assert.fail(`resources/read ${uri} answered ${JSON.stringify(answer)}`);
  } catch (error) {
    if (error instanceof assert.AssertionError) throw error;
    return error;
  }
}

const first = connect("kode-gopher-out-files-stdio");
const other = connect("kode-gopher-out-files-stdio-other");
let links = [];
let otherUri = "";

await runChecks("out-files-stdio", [
  ["a program writes a CSV and a binary file under /app/out: one resource_link each", async () => {
    await first.client.connect(first.transport);
    assert.ok(first.client.getServerCapabilities()?.resources, "the server offers resources");
    const result = await first.client.callTool(
      { name: "execute_go_code", arguments: { code: writer(`${process.pid}-${Date.now()}`) } },
      undefined, { timeout: 15 * 60 * 1000 });
    assert.equal(result.isError, false, JSON.stringify(result));
    links = result.content.filter((item) => item.type === "resource_link");
    assert.deepEqual(links.map((l) => l.name).sort(), ["raw/bytes.bin", "report.csv"]);
    for (const link of links) {
      assert.match(link.uri, /^kode-gopher:\/\/sessions\/[^/]+\/calls\/\d+\/files\//);
    }
    const files = result.structuredContent.files;
    assert.deepEqual(files.map((f) => [f.name, f.size]).sort(),
                     [["raw/bytes.bin", BINARY.length], ["report.csv", Buffer.byteLength(CSV)]]);
  }],
  ["resources/read: the CSV as text, byte for byte", async () => {
    const link = links.find((l) => l.name === "report.csv");
    const { contents } = await first.client.readResource({ uri: link.uri });
    assert.equal(contents.length, 1);
    assert.equal(contents[0].uri, link.uri);
    assert.equal(contents[0].mimeType, "text/csv");
    assert.equal(contents[0].blob, undefined);
    assert.equal(contents[0].text, CSV);
  }],
  ["resources/read: the binary as a base64 blob, byte for byte", async () => {
    const link = links.find((l) => l.name === "raw/bytes.bin");
    const { contents } = await first.client.readResource({ uri: link.uri });
    assert.equal(contents.length, 1);
    assert.equal(contents[0].mimeType, "application/octet-stream");
    assert.equal(contents[0].text, undefined);
    assert.ok(Buffer.from(contents[0].blob, "base64").equals(BINARY), "the blob's bytes differ");
  }],
  ["resources/list lists both files of the connection's session", async () => {
    const { resources } = await first.client.listResources();
    assert.deepEqual(resources.map((r) => r.uri).sort(), links.map((l) => l.uri).sort());
    const csv = resources.find((r) => r.name === "report.csv");
    assert.equal(csv.mimeType, "text/csv");
  }],
  ["a uri no call left is -32002 naming the uri", async () => {
    const csv = links.find((l) => l.name === "report.csv").uri;
    for (const uri of [csv.replace("report.csv", "missing.csv"),
                       csv.replace(/\/calls\/\d+\//, "/calls/999999/")]) {
      const error = await readError(first.client, uri);
      assert.equal(error.code, -32002, String(error));
      assert.equal(error.data?.uri, uri, JSON.stringify(error.data));
    }
  }],
  ["another connection's session: its file is -32002 here and readable there", async () => {
    await other.client.connect(other.transport);
    const result = await other.client.callTool(
      { name: "execute_go_code", arguments: { code: writer(`other-${process.pid}-${Date.now()}`) } },
      undefined, { timeout: 15 * 60 * 1000 });
    assert.equal(result.isError, false, JSON.stringify(result));
    otherUri = result.content.find((item) => item.type === "resource_link" && item.name === "report.csv").uri;
    assert.notEqual(otherUri.split("/calls/")[0], links[0].uri.split("/calls/")[0],
                    "each connection has a session of its own");
    const error = await readError(first.client, otherUri);
    assert.equal(error.code, -32002, String(error));
    // And the other way round: this connection's file is not the other's to read.
    assert.equal((await readError(other.client, links[0].uri)).code, -32002);
    assert.equal((await other.client.readResource({ uri: otherUri })).contents[0].text, CSV);
    // Each lists only its own.
    const listed = (await first.client.listResources()).resources.map((r) => r.uri);
    assert.ok(!listed.includes(otherUri), JSON.stringify(listed));
  }],
  ["after its connection ends, its session's files go with the session", async () => {
    const path = `/v1/sessions/${otherUri.split("/")[3]}/files`;
    assert.equal((await daemonGet(path)).files.length, 2);
    await other.client.close();
    // serve closes its session as it exits; the daemon then answers 404 for the files.
    let gone = false;
    for (let i = 0; i < 60 && !gone; i++) {
      gone = await daemonGet(path).then(() => false, (error) => /: 404 /.test(error.message));
      if (!gone) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    assert.ok(gone, `${path} still answered 30 s after the connection ended`);
    assert.equal((await first.client.readResource({ uri: links[0].uri })).contents.length, 1);
    await first.client.close();
  }],
], () => `first serve's stderr:\n${first.log}\nother serve's stderr:\n${other.log}`);
