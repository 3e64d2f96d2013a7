// docs/mcp.md's failure table ("What a failed call tells the agent") checked row by row through
// the official TypeScript SDK client against `kode-gopher serve` and real daemons: each row
// whose first cell is an `id` is made here as the agent would make it, and the message the table
// shows must be in what the agent reads (the text block, or any string of structuredContent).
// A row without a call here, or a call without a row, fails too, so the table cannot drift
// from the code silently. A message cell is a ``code span``, in which `…` stands for text that
// varies, and \n and \t for a newline and a tab.
//
// Three daemons, each behind its own `kode-gopher serve` (tests/mcp/test_clients.cpp makes
// them): the test daemon ($KG_MCP_CONFIG: network allowlist, run_timeout_ms 20000), a tight one
// ($KG_MCP_CONFIG_TIGHT: network none, small memory and CPU limits) and one whose builds time
// out ($KG_MCP_CONFIG_SLOW_BUILD: build_timeout_ms 1000). Each row names its daemon.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { cli, config, freshSnippet, requiredEnv, runChecks } from "./mcp_test_support.mjs";

function tableRows() {
  const doc = readFileSync(requiredEnv("KG_MCP_DOC"), "utf8");
  const start = doc.indexOf("<!-- BEGIN FAILURE TABLE");
  const end = doc.indexOf("<!-- END FAILURE TABLE -->");
  assert.ok(start >= 0 && end > start, "docs/mcp.md has no failure table between its markers");
  const rows = new Map();
  for (const line of doc.slice(start, end).split("\n")) {
    const row = line.match(/^\| `([a-z0-9-]+)` \|.*\| `` (.+) `` \|$/);
    if (row) rows.set(row[1], row[2]);
  }
  return rows;
}

function messagePattern(cell) {
  const parts = cell.replaceAll("\\n", "\n").replaceAll("\\t", "\t").split("…")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(parts.join("[\\s\\S]*?"));
}

// What the agent reads: the text block and every string in structuredContent.
function readable(result) {
  const strings = [];
  const walk = (value) => {
    if (typeof value === "string") strings.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") Object.values(value).forEach(walk);
  };
  walk(result.structuredContent);
  return [...result.content.map((block) => block.text ?? ""), ...strings].join("\n");
}

let serverLog = "";
// One `kode-gopher serve` (and MCP client) per daemon config.
function connection(name, configPath) {
  const transport = new StdioClientTransport({
    command: cli(), args: ["--config", configPath, "serve"], stderr: "pipe",
  });
  transport.stderr.on("data", (chunk) => (serverLog += `[${name}] ${chunk}`));
  const client = new Client({ name: `kode-gopher-failure-table-test-${name}`, version: "1.0.0" });
  const call = (tool, args) => client.callTool({ name: tool, arguments: args }, undefined,
    { timeout: 15 * 60 * 1000 });
  return { name, client, transport, call, execute: (args) => call("execute_go_code", args) };
}
const main = connection("test", config());
const tight = connection("tight", requiredEnv("KG_MCP_CONFIG_TIGHT"));
const slowBuild = connection("slow-build", requiredEnv("KG_MCP_CONFIG_SLOW_BUILD"));
const connections = [main, tight, slowBuild];
const { call, execute } = main;
const snippet = (imports, body) => `package snippet\n\nimport (\n${imports.map((i) => `\t"${i}"\n`).join("")})\n\n${body}\n`;
const program = (imports, body) => `package main\n\nimport (\n${imports.map((i) => `\t"${i}"\n`).join("")})\n\n${body}\n`;
// A program that prints the error of one GET, so the row shows what the program saw.
const httpGet = (url) => program(["fmt", "net/http"], `func main() {\n\tresp, err := http.Get("${url}")\n\tif err == nil {\n\t\tresp.Body.Close()\n\t}\n\tfmt.Println(err)\n}`);
// Source the compiler takes seconds for on any machine (20000 functions, about 10 s of CPU
// here; 1.8 MB), and new to every cache.
function slowToCompile() {
  const nonce = `${process.pid}-${Date.now()}`;
  const funcs = Array.from({ length: 20000 }, (_, i) =>
    `func f${i}(x int) int {\n\tfor j := 0; j < x; j++ {\n\t\tx += j * ${i} % 7\n\t}\n\treturn x + ${i}\n}\n`);
  return `package main\n\n// ${nonce}\n\n${funcs.join("")}\nfunc main() { println(f1(3)) }\n`;
}
const nanSnippet = snippet(["context", "math"], "type Score struct {\n\tName  string  `json:\"name\"`\n\tScore float64 `json:\"score\"`\n}\n\nfunc run(ctx context.Context) (any, error) {\n\titems := []Score{{\"a\", 1}, {\"b\", 2}, {\"c\", 3}, {\"d\", math.NaN()}}\n\treturn map[string]any{\"items\": items}, nil\n}");
const panicSnippet = snippet(["context"], "func run(ctx context.Context) (any, error) {\n\tvar m map[string]int\n\tm[\"boom\"] = 1\n\treturn nil, nil\n}");
const noWrapperFrames = (r) => {
  assert.equal(r.structuredContent.status, "panic");
  assert.doesNotMatch(r.structuredContent.result.stack, /kg_wrapper\.go|runtime\/debug\.Stack|kodeGopher/);
};
const wrongRun = "package snippet\n\nimport \"context\"\n\nfunc run(ctx context.Context) []string {\n\treturn []string{\"a\"}\n}\n";

// id -> [the call, isError expected, an extra check or undefined]
const rows = {
  "both-program-forms": [() => execute({ code: "package main", files: { "main.go": "package main" } }), true],
  "unknown-runtime": [() => execute({ code: "package main\nfunc main() {}\n", runtime: "tinygo" }), true],
  "timeout-above-maximum": [() => execute({ code: "package main\nfunc main() {}\n", timeout_ms: 9999999 }), true],
  "timeout-not-a-number": [() => execute({ code: "package main\nfunc main() {}\n", timeout_ms: "60s" }), true],
  "no-entry-point": [() => execute({ code: "package main\n\nfunc helper() {}\n" }), true],
  "cgo": [() => execute({ code: "package main\n\nimport \"C\"\n\nfunc main() {}\n" }), true],
  "cgo-yaegi": [() => execute({ code: "package main\n\nimport \"C\"\n\nfunc main() {}\n", runtime: "yaegi" }), true],
  "cgo-extra-imports": [() => execute({ code: "package main\n\nfunc main() {}\n", extra_imports: ["C"] }), true],
  "wrong-run-signature": [() => execute({ code: wrongRun }), true],
  "wrong-run-signature-yaegi": [() => execute({ code: wrongRun, runtime: "yaegi" }), true],
  "compile-error": [() => execute({ code: "package main\n\nfunc main() {\n\t_ = undefinedName\n}\n" }), true,
    (r) => assert.equal(r.structuredContent.status, "compile_error")],
  "returned-error": [() => execute({ code: freshSnippet('\treturn nil, errors.New("bucket not found")').replace('import "context"', 'import (\n\t"context"\n\t"errors"\n)') }), true,
    (r) => assert.equal(r.structuredContent.result.kind, "error")],
  "exit-code": [() => execute({ code: "package main\n\nimport \"os\"\n\nfunc main() { os.Exit(3) }\n" }), true],
  "panic": [() => execute({ code: panicSnippet }), true, noWrapperFrames],
  "panic-yaegi": [() => execute({ code: panicSnippet, runtime: "yaegi" }), true, noWrapperFrames],
  "nan-in-result": [() => execute({ code: nanSnippet }), true,
    (r) => assert.equal(r.structuredContent.result.kind, "marshal_error")],
  "nan-in-result-yaegi": [() => execute({ code: nanSnippet, runtime: "yaegi" }), true,
    (r) => assert.equal(r.structuredContent.result.kind, "marshal_error")],
  "timeout": [() => execute({ code: "package main\n\nimport \"time\"\n\nfunc main() { time.Sleep(5 * time.Second) }\n", timeout_ms: 500 }), true,
    (r) => assert.equal(r.structuredContent.status, "timeout")],
  "output-limit": [() => execute({ code: "package main\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\nfunc main() {\n\tline := strings.Repeat(\"x\", 1023) + \"\\n\"\n\tfor i := 0; i < 5000; i++ {\n\t\tfmt.Print(line)\n\t}\n\tfmt.Println(\"THE END\")\n}\n" }), true,
    (r) => {
      assert.equal(r.structuredContent.status, "output_limit");
      assert.match(r.structuredContent.stdout, /\nTHE END\n$/);
    }],
  "oom": [() => tight.execute({ code: program(["fmt"], "func main() {\n\tvar hold [][]byte\n\tfor i := 1; ; i++ {\n\t\tchunk := make([]byte, 16<<20)\n\t\tfor j := range chunk {\n\t\t\tchunk[j] = byte(j)\n\t\t}\n\t\thold = append(hold, chunk)\n\t\tfmt.Println(\"holding MiB:\", i*16)\n\t}\n}") }), true,
    (r) => assert.equal(r.structuredContent.status, "oom")],
  "cpu-limit": [() => tight.execute({ code: "package main\n\nfunc main() {\n\tfor i := 0; i < 4; i++ {\n\t\tgo func() {\n\t\t\tfor {\n\t\t\t}\n\t\t}()\n\t}\n\tselect {}\n}\n" }), true,
    (r) => {
      assert.equal(r.structuredContent.status, "timeout");
      assert.doesNotMatch(readable(r), /ran longer than/, "stopped by the CPU limit, not the wall clock");
    }],
  "build-timeout": [() => slowBuild.execute({ code: slowToCompile() }), true,
    (r) => {
      assert.equal(r.structuredContent.status, "timeout");
      assert.equal(r.structuredContent.phase, "build");
    }],
  "tidy-failure": [() => execute({ code: "package main\n\nimport \"example.invalid/no/such/module\"\n\nfunc main() { module.X() }\n" }), true,
    (r) => {
      assert.equal(r.structuredContent.status, "compile_error");
      assert.equal(r.structuredContent.tidied, true);
    }],
  "no-network": [() => tight.execute({ code: httpGet("https://storage.googleapis.com/") }), false],
  "egress-refused": [() => execute({ code: httpGet("https://example.com/") }), true,
    (r) => assert.match(r.structuredContent.stdout, /Forbidden \(kode-gopher egress proxy: refused CONNECT example\.com:443: /)],
  "egress-unreachable": [() => execute({ code: httpGet("https://kg-no-such-host.invalid/") }), true,
    (r) => assert.match(r.structuredContent.stdout,
      /^Get "https:\/\/kg-no-such-host\.invalid\/": Bad Gateway \(kode-gopher egress proxy: Cannot resolve kg-no-such-host\.invalid \(.*\): the host is allowed, but the machine running the kode-gopher daemon could not reach it; check that machine's DNS and network connection \(this is kode-gopher's answer, not the cloud API's\)\)\n$/)],
  "no-credentials": [() => call("gcp_auth_status", {}), false],
  "docs-not-curated": [() => call("lookup_package_docs", { package: "os/exec" }), true],
  "docs-misspelled-symbol": [() => call("lookup_package_docs", { package: "cloud.google.com/go/storage", symbol: "NewClinet" }), true],
  "docs-misspelled-method": [() => call("lookup_package_docs", { package: "cloud.google.com/go/storage", symbol: "Client.Bucke" }), true],
  "docs-whole-package": [() => call("lookup_package_docs", { package: "cloud.google.com/go/bigquery" }), false,
    (r) => assert.ok(r.content[0].text.length < 8000, `the index has ${r.content[0].text.length} characters`)],
  "yaegi-missing-import": [() => execute({ code: "package main\n\nimport \"golang.org/x/sync/errgroup\"\n\nfunc main() { _ = errgroup.Group{} }\n", runtime: "yaegi" }), true],
  "yaegi-go-test": [() => execute({ files: { "main.go": "package main\n\nfunc main() {}\n", "main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n" }, action: "test", runtime: "yaegi" }), true],
  "test-without-tests": [() => execute({ code: freshSnippet("\treturn 1, nil"), action: "test" }), true],
  "test-failed": [() => execute({ action: "test", files: { "sum.go": "package sum\n\nfunc Sum(a, b int) int { return a + b }\n", "sum_test.go": "package sum\n\nimport \"testing\"\n\nfunc TestSum(t *testing.T) {\n\tif got := Sum(2, 2); got != 5 {\n\t\tt.Errorf(\"got %d, want %d\", got, 5)\n\t}\n}\n" } }), true,
    (r) => assert.equal(r.structuredContent.status, "test_failed")],
  "yaegi-unsafe": [() => execute({ code: "package main\n\nimport \"unsafe\"\n\nfunc main() { println(unsafe.Sizeof(0)) }\n", runtime: "yaegi" }), true],
};

const table = tableRows();
const checks = [["connect", () => Promise.all(connections.map((c) => c.client.connect(c.transport)))],
  ["every row of the table has a call here, and every call a row", () => {
    assert.deepEqual([...table.keys()].sort(), Object.keys(rows).sort());
  }]];
for (const [id, [make, isError, extra]] of Object.entries(rows)) {
  checks.push([`${id}: ${table.get(id) ?? "(no row)"}`, async () => {
    const result = await make();
    const text = readable(result);
    assert.equal(result.isError === true, isError, `isError for ${id}:\n${text}`);
    assert.match(text, messagePattern(table.get(id)), `${id}: the agent read:\n${text}`);
    if (extra) extra(result);
  }]);
}
checks.push(["timeout_ms above the default (20000 in the test's config) and within the maximum is accepted", async () => {
  const result = await execute({ code: "package main\n\nfunc main() { println(\"in time\") }\n", timeout_ms: 30000 });
  assert.equal(result.isError, false, readable(result));
  assert.equal(result.structuredContent.stderr, "in time\n");
}]);
checks.push(["close", () => Promise.all(connections.map((c) => c.client.close()))]);
await runChecks("failure-table", checks, () => `--- kode-gopher serve stderr ---\n${serverLog}`);
