// A task (MCP 2025-11-25) over streamable HTTP with the official TypeScript SDK client's task
// API (client.experimental.tasks), for a signed-in user's token: `start` creates a task for a
// tools/call and drops the connection without ending its session (no DELETE), as a client that
// crashes would; `fetch` comes back on a new connection and a new session with the same token
// and polls, fetches and lists the task; `probe` is another user trying to read, fetch or cancel
// it. Assertions are the C++ test's (tests/team/test_team_sign_in.cpp).
//
// usage: node task_across_sessions.mjs --url URL --token TOKEN --action start|fetch|probe
//          [--code SRC] [--task-id ID] [--timeout-ms N]
// Prints one JSON line.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { CreateTaskResultSchema } from "@modelcontextprotocol/sdk/experimental/tasks/types.js";
import { describeError, parseOptions, printObservation, withDeadline } from "./team_support.mjs";

const USAGE = "node task_across_sessions.mjs --url URL --token TOKEN --action start|fetch|probe " +
  "[--code SRC] [--task-id ID] [--timeout-ms N]";
const values = parseOptions(USAGE, {
  url: { type: "string" },
  token: { type: "string" },
  action: { type: "string" },
  code: { type: "string" },
  "task-id": { type: "string" },
  "timeout-ms": { type: "string", default: "900000" },
}, ["url", "token", "action"]);

const timeout = Number(values["timeout-ms"]);
const observation = { ok: false, action: values.action };
withDeadline(timeout + 60_000, observation, "task_across_sessions");

const transport = new StreamableHTTPClientTransport(new URL(values.url), {
  requestInit: { headers: { Authorization: `Bearer ${values.token}` } },
});
const client = new Client({ name: "kode-gopher task test", version: "1.0.0" });
const tasks = () => client.experimental.tasks;

// An error as data, or the value.
async function attempt(promise) {
  try {
    return { value: await promise };
  } catch (error) {
    return { error: describeError(error) };
  }
}

try {
  await client.connect(transport);
  observation.session_id = transport.sessionId;
  observation.capabilities = client.getServerCapabilities();
  const taskId = values["task-id"];
  if (values.action === "start") {
    const created = await client.request({
      method: "tools/call",
      params: { name: "execute_go_code", arguments: { code: values.code }, task: { ttl: 600000 } },
    }, CreateTaskResultSchema, { timeout });
    observation.task = created.task;
    observation.status_after_create = (await tasks().getTask(created.task.taskId)).status;
    // Gone without a word: the HTTP connection closes, the session is left to idle out.
    await transport.close();
  } else if (values.action === "fetch") {
    observation.get = await tasks().getTask(taskId);
    observation.result = await tasks().getTaskResult(taskId, CallToolResultSchema, { timeout });
    observation.after = await tasks().getTask(taskId);
    observation.list = (await tasks().listTasks()).tasks.map((t) => t.taskId);
  } else if (values.action === "probe") {
    observation.get = await attempt(tasks().getTask(taskId));
    observation.result = await attempt(tasks().getTaskResult(taskId, CallToolResultSchema, { timeout: 10000 }));
    observation.cancel = await attempt(tasks().cancelTask(taskId));
    observation.list = (await tasks().listTasks()).tasks.map((t) => t.taskId);
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
process.exit(0);
