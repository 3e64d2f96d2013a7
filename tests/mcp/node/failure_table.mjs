// docs/mcp.md's failure table ("What a failed call tells the agent") checked row by row through
// the official TypeScript SDK client against `kode-gopher serve` and a real daemon: each row
// whose first cell is an `id` is made here as the agent would make it, and the message the table
// shows must be in what the agent reads (the text block, or any string of structuredContent).
// A row without a call here, or a call without a row, fails too, so the table cannot drift
// from the code silently. A message cell is a ``code span``, in which `…` stands for text that
// varies, and \n and \t for a newline and a tab.
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

const transport = new StdioClientTransport({
  command: cli(), args: ["--config", config(), "serve"], stderr: "pipe",
});
let serverLog = "";
transport.stderr.on("data", (chunk) => (serverLog += chunk));
const client = new Client({ name: "kode-gopher-failure-table-test", version: "1.0.0" });

const call = (name, args) => client.callTool({ name, arguments: args }, undefined,
  { timeout: 15 * 60 * 1000 });
const execute = (args) => call("execute_go_code", args);
const snippet = (imports, body) => `package snippet\n\nimport (\n${imports.map((i) => `\t"${i}"\n`).join("")})\n\n${body}\n`;

// id -> [the call, isError expected, an extra check or undefined]
const rows = {
  "both-program-forms": [() => execute({ code: "package main", files: { "main.go": "package main" } }), true],
  "unknown-runtime": [() => execute({ code: "package main\nfunc main() {}\n", runtime: "tinygo" }), true],
  "timeout-above-maximum": [() => execute({ code: "package main\nfunc main() {}\n", timeout_ms: 9999999 }), true],
  "timeout-not-a-number": [() => execute({ code: "package main\nfunc main() {}\n", timeout_ms: "60s" }), true],
  "no-entry-point": [() => execute({ code: "package main\n\nfunc helper() {}\n" }), true],
  "cgo": [() => execute({ code: "package main\n\nimport \"C\"\n\nfunc main() {}\n" }), true],
  "compile-error": [() => execute({ code: "package main\n\nfunc main() {\n\t_ = undefinedName\n}\n" }), true,
    (r) => assert.equal(r.structuredContent.status, "compile_error")],
  "returned-error": [() => execute({ code: freshSnippet('\treturn nil, errors.New("bucket not found")').replace('import "context"', 'import (\n\t"context"\n\t"errors"\n)') }), true,
    (r) => assert.equal(r.structuredContent.result.kind, "error")],
  "exit-code": [() => execute({ code: "package main\n\nimport \"os\"\n\nfunc main() { os.Exit(3) }\n" }), true],
  "panic": [() => execute({ code: snippet(["context"], "func run(ctx context.Context) (any, error) {\n\tvar m map[string]int\n\tm[\"boom\"] = 1\n\treturn nil, nil\n}") }), true,
    (r) => {
      assert.equal(r.structuredContent.status, "panic");
      assert.doesNotMatch(r.structuredContent.result.stack, /kg_wrapper\.go|runtime\/debug\.Stack|kodeGopher/);
    }],
  "nan-in-result": [() => execute({ code: snippet(["context", "math"], "type Score struct {\n\tName  string  `json:\"name\"`\n\tScore float64 `json:\"score\"`\n}\n\nfunc run(ctx context.Context) (any, error) {\n\titems := []Score{{\"a\", 1}, {\"b\", 2}, {\"c\", 3}, {\"d\", math.NaN()}}\n\treturn map[string]any{\"items\": items}, nil\n}") }), true,
    (r) => assert.equal(r.structuredContent.result.kind, "marshal_error")],
  "timeout": [() => execute({ code: "package main\n\nimport \"time\"\n\nfunc main() { time.Sleep(5 * time.Second) }\n", timeout_ms: 500 }), true,
    (r) => assert.equal(r.structuredContent.status, "timeout")],
  "output-limit": [() => execute({ code: "package main\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\nfunc main() {\n\tline := strings.Repeat(\"x\", 1023) + \"\\n\"\n\tfor i := 0; i < 5000; i++ {\n\t\tfmt.Print(line)\n\t}\n\tfmt.Println(\"THE END\")\n}\n" }), true,
    (r) => {
      assert.equal(r.structuredContent.status, "output_limit");
      assert.match(r.structuredContent.stdout, /\nTHE END\n$/);
    }],
  "no-network": [() => execute({ code: "package main\n\nimport (\n\t\"fmt\"\n\t\"net/http\"\n)\n\nfunc main() {\n\t_, err := http.Get(\"https://storage.googleapis.com/\")\n\tfmt.Println(err)\n}\n" }), false],
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
const checks = [["connect", () => client.connect(transport)],
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
checks.push(["close", () => client.close()]);
await runChecks("failure-table", checks, () => `--- kode-gopher serve stderr ---\n${serverLog}`);
