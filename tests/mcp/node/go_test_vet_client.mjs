// execute_go_code's actions test and vet (docs/mcp.md, "go test and go vet") through the
// official TypeScript SDK client against `kode-gopher serve` and a real daemon, real Go
// toolchain and real sandboxes. The SDK validates every structuredContent against the tool's
// outputSchema (and this client checks it again with ajv), so the shape of `tests` and of vet's
// diagnostics is held to the schema the agent is shown.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { assertMatchesSchema, cli, config, runChecks } from "./mcp_test_support.mjs";

const transport = new StdioClientTransport({
  command: cli(), args: ["--config", config(), "serve"], stderr: "pipe",
});
let serverLog = "";
transport.stderr.on("data", (chunk) => (serverLog += chunk));
const client = new Client({ name: "kode-gopher-go-test-vet", version: "1.0.0" });
const execute = (args) => client.callTool({ name: "execute_go_code", arguments: args }, undefined,
  { timeout: 15 * 60 * 1000 });
let outputSchema;

const program = `package main

import "fmt"

func add(a, b int) int { return a + b }

func main() { fmt.Println(add(1, 2)) }
`;
const tests = `package main

import "testing"

func TestAdd(t *testing.T) {
	if add(1, 2) != 3 {
		t.Fatal("add is broken")
	}
	t.Log("add works")
}

func TestWrong(t *testing.T) { t.Errorf("got %d, want %d", add(1, 1), 3) }

func TestLater(t *testing.T) { t.Skip("not today") }

func TestTable(t *testing.T) {
	t.Run("one", func(t *testing.T) {})
	t.Run("two", func(t *testing.T) { t.Error("two broke") })
}
`;

const byName = (cases) => Object.fromEntries(cases.map((c) => [c.name, c]));

await runChecks("go-test-vet", [
  ["connect, and the tool offers action run|test|vet", async () => {
    await client.connect(transport);
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === "execute_go_code");
    assert.deepEqual(tool.inputSchema.properties.action.enum, ["run", "test", "vet"]);
    outputSchema = tool.outputSchema;
  }],

  ["action test: passing, failing and skipped tests and subtests, one entry each", async () => {
    const result = await execute({ files: { "main.go": program, "main_test.go": tests }, action: "test" });
    const s = result.structuredContent;
    assertMatchesSchema(s, outputSchema, "the test result");
    assert.equal(result.isError, true, result.content[0].text);
    assert.equal(s.action, "test");
    assert.equal(s.runtime, "compiled-go");
    assert.equal(s.status, "test_failed");
    assert.equal(s.phase, "run");
    assert.deepEqual([s.tests.passed, s.tests.failed, s.tests.skipped], [2, 3, 1]);
    const cases = byName(s.tests.cases);
    assert.deepEqual(Object.keys(cases).sort(),
      ["TestAdd", "TestLater", "TestTable", "TestTable/one", "TestTable/two", "TestWrong"]);
    assert.equal(cases.TestAdd.outcome, "pass");
    assert.match(cases.TestAdd.output, /main_test\.go:9: add works/);
    assert.equal(cases.TestWrong.outcome, "fail");
    assert.match(cases.TestWrong.output, /main_test\.go:12: got 2, want 3/);
    assert.doesNotMatch(cases.TestWrong.output, /--- FAIL|=== RUN/);
    assert.equal(cases.TestLater.outcome, "skip");
    assert.equal(cases["TestTable/one"].outcome, "pass");
    assert.equal(cases["TestTable/two"].outcome, "fail");
    assert.equal(cases.TestTable.outcome, "fail");
    for (const c of s.tests.cases) {
      assert.equal(typeof c.elapsed_ms, "number");
      assert.match(c.package, /\S/);
    }
    // The text: totals, then the failures with their output, before anything else.
    const text = result.content[0].text;
    assert.match(text, /^action=test phase=run mode=verbatim runtime=compiled-go exit=1 .*status=test_failed\n/);
    assert.match(text, /\ntests: 2 passed, 3 failed, 1 skipped\n── failed tests ──\n/);
    assert.match(text, /FAIL TestWrong \(\d+ms\)\n    main_test\.go:12: got 2, want 3\n/);
    assert.match(text, /── skipped tests ──\nSKIP TestLater: main_test\.go:14: not today\n/);
    assert.match(text, /── passed tests ──\nTestAdd, TestTable\/one\n/);
    assert.ok(text.indexOf("failed tests") < text.indexOf("passed tests"));
  }],

  ["action test with every test passing is not an error; auto picks compiled-go and says why", async () => {
    const passing = tests.replace(/func TestWrong[^\n]*\n/, "").replace('t.Error("two broke")', "");
    const result = await execute({ files: { "main.go": program, "main_test.go": passing }, action: "test", runtime: "auto" });
    const s = result.structuredContent;
    assertMatchesSchema(s, outputSchema, "the passing test result");
    assert.equal(result.isError, false, result.content[0].text);
    assert.equal(s.status, "ok");
    assert.equal(s.runtime, "compiled-go");
    assert.match(s.runtime_reason, /action test runs go test, so auto gives it to compiled-go/);
    assert.deepEqual([s.tests.passed, s.tests.failed, s.tests.skipped], [4, 0, 1]);
  }],

  ["a library package (no main, no run) is tested as it is, with a test in a second package", async () => {
    const result = await execute({ action: "test", files: {
      "calc.go": "package calc\n\nfunc Double(x int) int { return 2 * x }\n",
      "calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestDouble(t *testing.T) {\n\tif Double(2) != 4 {\n\t\tt.Fatal(Double(2))\n\t}\n}\n",
      "strs/strs.go": "package strs\n\nfunc Twice(s string) string { return s + s }\n",
      "strs/strs_test.go": "package strs\n\nimport \"testing\"\n\nfunc TestTwice(t *testing.T) {\n\tif Twice(\"a\") != \"aa\" {\n\t\tt.Fatal(Twice(\"a\"))\n\t}\n}\n",
    } });
    const s = result.structuredContent;
    assert.equal(result.isError, false, result.content[0].text);
    assert.deepEqual(s.tests.cases.map((c) => c.name).sort(), ["TestDouble", "TestTwice"]);
    assert.equal(new Set(s.tests.cases.map((c) => c.package)).size, 2);
  }],

  ["a compile error in a test file is a build error with its file:line:col", async () => {
    const broken = "package main\n\nimport \"testing\"\n\nfunc TestBroken(t *testing.T) {\n\t_ = notDeclared\n}\n";
    const result = await execute({ files: { "main.go": program, "broken_test.go": broken }, action: "test" });
    const s = result.structuredContent;
    assertMatchesSchema(s, outputSchema, "the build failure");
    assert.equal(result.isError, true);
    assert.equal(s.status, "compile_error");
    assert.equal(s.phase, "build");
    assert.deepEqual(s.diagnostics.map((d) => [d.file, d.line, d.col, d.message]),
      [["broken_test.go", 6, 6, "undefined: notDeclared"]]);
    assert.match(result.content[0].text, /broken_test\.go:6:6: undefined: notDeclared/);
  }],

  ["action vet: a Printf format mismatch is a diagnostic naming its analyzer", async () => {
    const code = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tname := \"gopher\"\n\tfmt.Printf(\"%d\\n\", name)\n}\n";
    const result = await execute({ code, action: "vet" });
    const s = result.structuredContent;
    assertMatchesSchema(s, outputSchema, "the vet result");
    assert.equal(result.isError, true);
    assert.equal(s.action, "vet");
    assert.equal(s.status, "vet_findings");
    assert.equal(s.diagnostics.length, 1);
    const [d] = s.diagnostics;
    assert.deepEqual([d.file, d.line, d.col, d.analyzer], ["main.go", 7, 14, "printf"]);
    assert.match(d.message, /fmt\.Printf format %d has arg name of wrong type string/);
    assert.match(result.content[0].text, /main\.go:7:14: fmt\.Printf format %d has arg name of wrong type string \(vet: printf\)/);
  }],

  ["action vet on clean code is ok", async () => {
    const result = await execute({ code: program, action: "vet" });
    assert.equal(result.isError, false, result.content[0].text);
    assert.equal(result.structuredContent.status, "ok");
    assert.equal(result.structuredContent.diagnostics, undefined);
  }],

  ["action test with runtime yaegi says to use compiled-go", async () => {
    const result = await execute({ files: { "main.go": program, "main_test.go": tests }, action: "test", runtime: "yaegi" });
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /the yaegi runtime .*cannot: call again with runtime "compiled-go"/);
  }],

  ["action test on a snippet without tests says how to add one", async () => {
    const code = "package snippet\n\nimport \"context\"\n\nfunc run(ctx context.Context) (any, error) { return 1, nil }\n";
    const result = await execute({ code, action: "test" });
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /this snippet \(package snippet, func run\) has none: send it as files with a test beside it/);
  }],

  ["an unknown action is refused naming the three", async () => {
    const result = await execute({ code: program, action: "bench" });
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /"action" must be "run" .*"test" .*"vet"/);
  }],

  ["close", () => client.close()],
], () => `--- kode-gopher serve stderr ---\n${serverLog}`);
