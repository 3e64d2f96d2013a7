// Long calls as MCP tasks (2025-11-25) through the official TypeScript SDK client's own task API
// (@modelcontextprotocol/sdk: client.experimental.tasks), against `kode-gopher serve` on stdio
// and a real daemon: the tasks capability and execute_go_code's taskSupport, a task that sleeps
// ~2 s seen working then completed and its result fetched (also after it finished), a failed
// task, a cancelled one whose program stops (the session's sandbox is free again at once), the
// protocol errors for unknown tasks, and a 2025-06-18 connection that is offered no tasks.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { cli, config, freshSnippet, recordWire, runChecks } from "./mcp_test_support.mjs";

const LONG = { timeout: 15 * 60 * 1000 }; // a first call of a fresh build dir prewarms the Go cache

function serve() {
  const transport = new StdioClientTransport({
    command: cli(), args: ["--config", config(), "serve", "--log-level", "debug"], stderr: "pipe",
  });
  let log = "";
  transport.stderr.on("data", (chunk) => (log += chunk));
  return { transport, log: () => log };
}

const server = serve();
const wire = recordWire(server.transport);
const client = new Client({ name: "kode-gopher-tasks-test", version: "1.0.0" });
const tasks = () => client.experimental.tasks;

const sleeper = (ms, label) => freshSnippet(
  `\ttime.Sleep(${ms} * time.Millisecond)\n\treturn "${label}", nil`).replace(
  'import "context"', 'import (\n\t"context"\n\t"time"\n)');

async function expectRpcError(promise, code, pattern) {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof McpError, String(error));
    assert.equal(error.code, code, error.message);
    assert.match(error.message, pattern);
    return true;
  });
}

// Polls tasks/get until `done(task)`, at the task's own pollInterval.
async function pollUntil(taskId, done, seen = []) {
  for (;;) {
    const task = await tasks().getTask(taskId);
    seen.push(task);
    if (done(task)) return task;
    await new Promise((resolve) => setTimeout(resolve, Math.min(task.pollInterval ?? 200, 200)));
  }
}

await runChecks("tasks", [
  ["initialize: the tasks capability (list, cancel, tools/call) and taskSupport optional", async () => {
    await client.connect(server.transport);
    assert.deepEqual(client.getServerCapabilities().tasks,
      { list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const listed = await client.listTools();
    const byName = new Map(listed.tools.map((tool) => [tool.name, tool]));
    assert.deepEqual(byName.get("execute_go_code").execution, { taskSupport: "optional" });
    assert.equal(byName.get("gcp_auth_status").execution, undefined);
    // Warm the build cache so the timed checks below time the program, not the first build.
    const warm = await client.callTool({ name: "execute_go_code", arguments: { code: sleeper(1, "warm") } },
      undefined, LONG);
    assert.equal(warm.isError, false, JSON.stringify(warm));
  }],

  ["a task that sleeps 2 s: created, working, completed, its result fetched", async () => {
    const events = [];
    const started = Date.now();
    for await (const message of tasks().callToolStream(
      { name: "execute_go_code", arguments: { code: sleeper(2000, "slept") } },
      CallToolResultSchema, { ...LONG, task: { ttl: 600000 } })) {
      events.push(message);
    }
    const created = events.find((m) => m.type === "taskCreated");
    assert.ok(created, JSON.stringify(events));
    assert.equal(created.task.status, "working");
    assert.equal(created.task.ttl, 600000);
    assert.ok(Date.parse(created.task.createdAt) <= Date.now());
    // The tools/call answered with the task handle, long before the program ended.
    const call = wire.sent.find((m) => m.method === "tools/call" && m.params.task);
    const handle = wire.received.find((m) => m.id === call.id);
    assert.equal(handle.result.task.taskId, created.task.taskId);
    const statuses = events.filter((m) => m.type === "taskStatus").map((m) => m.task.status);
    assert.ok(statuses.includes("working"), statuses.join(","));
    assert.equal(statuses.at(-1), "completed");
    const result = events.find((m) => m.type === "result").result;
    assert.equal(result.isError, false);
    assert.equal(result.structuredContent.result.value, "slept");
    assert.deepEqual(result._meta["io.modelcontextprotocol/related-task"],
      { taskId: created.task.taskId });
    assert.ok(Date.now() - started >= 2000);
    // Fetched again later, and listed.
    const again = await tasks().getTaskResult(created.task.taskId, CallToolResultSchema);
    assert.equal(again.structuredContent.result.value, "slept");
    const listed = await tasks().listTasks();
    assert.ok(listed.tasks.some((t) => t.taskId === created.task.taskId && t.status === "completed"));
    await expectRpcError(tasks().cancelTask(created.task.taskId), ErrorCode.InvalidParams,
      /already in terminal status 'completed'/);
  }],

  ["tasks/result blocks until the task finishes", async () => {
    const created = await client.request({
      method: "tools/call",
      params: { name: "execute_go_code", arguments: { code: sleeper(1500, "waited") }, task: {} },
    }, (await import("@modelcontextprotocol/sdk/experimental/tasks/types.js")).CreateTaskResultSchema);
    assert.equal(created.task.ttl, 3600000); // the server's default
    const before = await tasks().getTask(created.task.taskId);
    assert.equal(before.status, "working");
    const result = await tasks().getTaskResult(created.task.taskId, CallToolResultSchema, LONG);
    assert.equal(result.structuredContent.result.value, "waited");
    assert.equal((await tasks().getTask(created.task.taskId)).status, "completed");
  }],

  ["a program that does not compile: the task fails, its result says why", async () => {
    const events = [];
    for await (const message of tasks().callToolStream(
      { name: "execute_go_code", arguments: { code: "package main\n\nfunc main() { undefinedName() }\n" } },
      CallToolResultSchema, { ...LONG, task: {} })) {
      events.push(message);
    }
    const taskId = events.find((m) => m.type === "taskCreated").task.taskId;
    const last = events.filter((m) => m.type === "taskStatus").at(-1).task;
    assert.equal(last.status, "failed");
    assert.match(last.statusMessage, /isError: true/);
    const result = await tasks().getTaskResult(taskId, CallToolResultSchema);
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent.status, "compile_error");
  }],

  ["a cancelled task stops its program: status cancelled, the sandbox free again", async () => {
    const created = await client.request({
      method: "tools/call",
      params: {
        name: "execute_go_code", task: {},
        arguments: { code: sleeper(120000, "never"), timeout_ms: 300000 },
      },
    }, (await import("@modelcontextprotocol/sdk/experimental/tasks/types.js")).CreateTaskResultSchema);
    const taskId = created.task.taskId;
    // Wait until the program runs (the statusMessage names the daemon's phase).
    await pollUntil(taskId, (t) => /^run/.test(t.statusMessage ?? ""));
    const cancelled = await tasks().cancelTask(taskId);
    assert.equal(cancelled.status, "cancelled");
    assert.equal((await tasks().getTask(taskId)).status, "cancelled");
    await expectRpcError(tasks().getTaskResult(taskId, CallToolResultSchema), ErrorCode.InvalidParams,
      /was cancelled and has no result/);
    await expectRpcError(tasks().cancelTask(taskId), ErrorCode.InvalidParams,
      /already in terminal status 'cancelled'/);
    // Calls of one session run one at a time: this one could not start before the 120 s
    // program had stopped.
    const started = Date.now();
    const next = await client.callTool(
      { name: "execute_go_code", arguments: { code: sleeper(1, "free") } }, undefined, LONG);
    assert.equal(next.structuredContent.result.value, "free");
    assert.ok(Date.now() - started < 30000, `the next call waited ${Date.now() - started} ms`);
  }],

  ["unknown tasks, bad params, and a tool that is not offered as a task", async () => {
    await expectRpcError(tasks().getTask("0123456789abcdef0123456789abcdef"), ErrorCode.InvalidParams,
      /Task not found/);
    await expectRpcError(tasks().getTaskResult("nope", CallToolResultSchema), ErrorCode.InvalidParams,
      /Task not found/);
    await expectRpcError(tasks().cancelTask("nope"), ErrorCode.InvalidParams, /Task not found/);
    await expectRpcError(tasks().listTasks("some-cursor"), ErrorCode.InvalidParams, /unknown cursor/);
    await expectRpcError(client.request({
      method: "tools/call", params: { name: "gcp_auth_status", task: {} },
    }, CallToolResultSchema), ErrorCode.MethodNotFound, /does not run as a task/);
    await expectRpcError(client.request({
      method: "tools/call",
      params: { name: "execute_go_code", arguments: { code: sleeper(1, "x") }, task: { ttl: -5 } },
    }, CallToolResultSchema), ErrorCode.InvalidParams, /"ttl" must be a whole number/);
  }],

  ["a 2025-06-18 connection is offered no tasks and its `task` field is ignored", async () => {
    const old = serve();
    const oldWire = recordWire(old.transport);
    const oldClient = new Client({ name: "kode-gopher-tasks-old", version: "1.0.0" });
    // The SDK asks for its newest revision; ask for 2025-06-18 instead, as an older client would.
    const send = old.transport.send.bind(old.transport);
    old.transport.send = (message, options) => {
      if (message.method === "initialize") message.params.protocolVersion = "2025-06-18";
      return send(message, options);
    };
    await oldClient.connect(old.transport);
    try {
      assert.equal(oldClient.getServerCapabilities().tasks, undefined);
      const listed = await oldClient.listTools();
      assert.equal(listed.tools[0].execution, undefined);
      const result = await oldClient.request({
        method: "tools/call",
        params: { name: "execute_go_code", arguments: { code: sleeper(1, "plain") }, task: {} },
      }, CallToolResultSchema, LONG);
      assert.equal(result.structuredContent.result.value, "plain");
      await expectRpcError(oldClient.request({ method: "tasks/list", params: {} },
        CallToolResultSchema), ErrorCode.MethodNotFound, /tasks are part of protocol 2025-11-25 only/);
      assert.equal(oldWire.received[0].result.protocolVersion, "2025-06-18");
    } finally {
      await oldClient.close();
    }
  }],
], async () => `--- server log ---\n${server.log()}`);

await client.close();
