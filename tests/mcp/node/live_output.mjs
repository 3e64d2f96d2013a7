// Output while it runs (docs/mcp.md), through the official TypeScript SDK client
// (@modelcontextprotocol/sdk) over stdio: a program that prints a line, sleeps, prints another;
// the first line arrives in a notifications/progress message before the call returns, progress
// keeps increasing, and a flood is cut at the per-call bound with a message that says so.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { cli, config, progressBeforeAnswer, recordWire, runChecks } from "./mcp_test_support.mjs";

const transport = new StdioClientTransport({
  command: cli(),
  args: ["--config", config(), "serve", "--log-level", "debug"],
  stderr: "pipe",
});
let serverLog = "";
transport.stderr.on("data", (chunk) => (serverLog += chunk));
const wire = recordWire(transport);
const client = new Client({ name: "kode-gopher-live-output-test", version: "1.0.0" });

// `progress` is what the server sent before the answer, read off the wire
// (mcp_test_support.mjs, progressBeforeAnswer); `delivered` what the SDK handed to onprogress.
async function callWithProgress(args) {
  const delivered = [];
  const result = await client.callTool({ name: "execute_go_code", arguments: args }, undefined, {
    timeout: 15 * 60 * 1000,
    onprogress: (p) => delivered.push(p),
  });
  const { progress, answeredAt } = progressBeforeAnswer(wire, "tools/call");
  return { result, progress, delivered, returnedAt: answeredAt };
}

const twoLines = (nonce) => `package main

import (
\t"fmt"
\t"os"
\t"time"
)

// ${nonce}
func main() {
\tfmt.Println("first line")
\ttime.Sleep(1500 * time.Millisecond)
\tfmt.Fprintln(os.Stderr, "second line")
}
`;

function checkTwoLines({ result, progress, delivered, returnedAt }) {
  assert.equal(result.isError, false, JSON.stringify(result));
  const first = progress.find((p) => p.message.includes("first line"));
  assert.ok(first, JSON.stringify(progress));
  // The SDK hands it to the caller too: it came long before the answer.
  assert.ok(delivered.some((p) => p.message.includes("first line")), JSON.stringify(delivered));
  // Before the call returned, while the program slept.
  assert.ok(returnedAt - first.at >= 1000, `first line ${returnedAt - first.at}ms before the end`);
  assert.equal(first.total, undefined);
  assert.ok(progress.some((p) => p.message.includes("second line")), JSON.stringify(progress));
  for (let i = 1; i < progress.length; i++) {
    assert.ok(progress[i].progress > progress[i - 1].progress, "progress increases");
  }
  // The result is the same as without streaming.
  assert.equal(result.structuredContent.stdout, "first line\n");
}

await runChecks("live-output", [
  ["connect", async () => {
    await client.connect(transport);
  }],

  ["compiled-go: the first line arrives before the call returns", async () => {
    checkTwoLines(await callWithProgress({ code: twoLines(`compiled ${Date.now()}`) }));
  }],

  ["yaegi: the first line arrives before the call returns, no runner lines", async () => {
    const call = await callWithProgress({ code: twoLines(`yaegi ${Date.now()}`), runtime: "yaegi" });
    checkTwoLines(call);
    assert.ok(!call.progress.some((p) => p.message.includes("kode-gopher-yaegi[")));
  }],

  ["without a progress token nothing is streamed, the result is whole", async () => {
    const result = await client.callTool({
      name: "execute_go_code", arguments: { code: twoLines(`plain ${Date.now()}`) },
    }, undefined, { timeout: 15 * 60 * 1000 });
    assert.equal(result.structuredContent.stdout, "first line\n");
  }],

  ["a flood: at most 64 KiB of text per call, and the last message says it stopped", async () => {
    const flood = `package main

import "fmt"

func main() {
\tfor i := 0; i < 200000; i++ {
\t\tfmt.Printf("flood line %06d\\n", i)
\t}
}
`;
    const { result, progress } = await callWithProgress({ code: flood });
    assert.equal(result.isError, false);
    assert.ok(result.structuredContent.stdout.startsWith("flood line 000000\n"));
    const output = progress.filter((p) => p.total === undefined);
    const text = output.map((p) => p.message).join("");
    assert.ok(text.startsWith("flood line 000000\n"), text.slice(0, 100));
    assert.ok(text.length <= 64 * 1024 + 300, `${text.length} characters streamed`);
    assert.ok(output.length < 200, `${output.length} notifications`);
    assert.match(output.at(-1).message, /output streaming stopped after 65536 bytes/);
  }],
], () => `server log:\n${serverLog}`);
await client.close();
