// The MCP conformance suite (@modelcontextprotocol/conformance, server mode) against a running
// /mcp endpoint, once per protocol revision: each revision's scenarios run at that revision's
// wire (2025-11-25: initialize and sessions; 2026-07-28: stateless, _meta on every request).
// Without --scenario it runs exactly what the revision requires (`--requirements REV`: the frozen
// scored list plus the not-scored extras, run for visibility); with --scenario it runs those.
// The suite writes one checks.json per scenario; this reads them back and prints a summary.
//
// usage: node conformance.mjs --url URL [--revision 2025-11-25|2026-07-28]...
//          [--scenario NAME]... [--output-dir DIR] [--timeout-ms N]
// Prints one JSON line: {"ok", "url", "conformance_version", "revisions": {REV: {"exit_code",
//   "scenarios": {NAME: {"passed", "failed", "failed_untestable", "warnings", "skipped", "scored",
//   "not_scored_reason"?, "failures": [{id, name, message, untestable?}], "warning_checks": [...]}},
//   "totals": {...}}}}.
// A scenario with failed == 0 and passed > 0 passed. The exit codes are the suite's own (1 when
// a scored scenario failed); the runner decides what must pass for kode-gopher.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseOptions, printObservation } from "./team_support.mjs";

const USAGE = "node conformance.mjs --url URL [--revision 2025-11-25|2026-07-28]... " +
  "[--scenario NAME]... [--output-dir DIR] [--timeout-ms N]";
const REVISIONS = ["2025-11-25", "2026-07-28"];
const values = parseOptions(USAGE, {
  url: { type: "string" },
  revision: { type: "string", multiple: true },
  scenario: { type: "string", multiple: true },
  "output-dir": { type: "string" },
  "timeout-ms": { type: "string", default: "30000" }, // per scenario, the suite's default
}, ["url"]);
const revisions = values.revision ?? REVISIONS;
for (const revision of revisions) {
  if (!REVISIONS.includes(revision)) {
    process.stderr.write(`--revision is one of ${REVISIONS.join(", ")}, not ${revision}\nusage: ${USAGE}\n`);
    process.exit(2);
  }
}

const require = createRequire(import.meta.url);
const packageJson = require.resolve("@modelcontextprotocol/conformance/package.json");
const cliPath = path.join(path.dirname(packageJson), "dist", "index.js");
const conformanceVersion = JSON.parse(readFileSync(packageJson, "utf8")).version;
const outputRoot = values["output-dir"] ?? mkdtempSync(path.join(tmpdir(), "kg-conformance-"));

const observation = {
  ok: true, url: values.url, conformance_version: conformanceVersion, output_dir: outputRoot,
  revisions: {},
};
for (const revision of revisions) {
  observation.revisions[revision] = await runRevision(revision);
}
await printObservation(observation);
process.exit(0);

async function runRevision(revision) {
  const outputDir = path.join(outputRoot, revision);
  const common = ["server", "--url", values.url, "-o", outputDir, "--timeout", values["timeout-ms"]];
  const runs = values.scenario === undefined
    ? [[...common, "--requirements", revision]]
    : values.scenario.map((scenario) => [...common, "--spec-version", revision, "--scenario", scenario]);
  const summary = { exit_code: 0, scenarios: {}, notices: [] };
  let notScored = new Map();
  for (const args of runs) {
    const run = await runCli(args);
    summary.exit_code = Math.max(summary.exit_code, run.exitCode);
    notScored = new Map([...notScored, ...notScoredScenarios(run.stdout)]);
    // A scenario not applicable at the revision is skipped by the suite with a notice, no file.
    summary.notices.push(...run.stdout.split("\n").filter((l) => l.startsWith("SKIPPED:")));
    // The CLI's complaints (an unknown scenario, a bad flag) come on stderr.
    if (run.stderr.trim() !== "") summary.notices.push(`exit ${run.exitCode}: ${run.stderr.trim().slice(0, 400)}`);
  }
  for (const [scenario, checks] of readChecks(outputDir)) {
    const reason = notScored.get(scenario);
    summary.scenarios[scenario] = {
      ...summarize(checks),
      // Scoring is the revision's requirement list: known only for a --requirements run.
      scored: values.scenario === undefined ? reason === undefined : null,
      ...(reason ? { not_scored_reason: reason } : {}),
    };
  }
  const all = Object.values(summary.scenarios);
  summary.totals = {
    scenarios: all.length,
    passed: all.filter((s) => s.failed === 0 && s.passed > 0).length,
    failed: all.filter((s) => s.failed > 0).length,
  };
  if (summary.notices.length === 0) delete summary.notices;
  return summary;
}

function runCli(args) {
  return new Promise((resolve) => {
    // The same Node that runs this script (the suite's Node 22), no npx in between.
    const child = spawn(process.execPath, [cliPath, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("close", (code, signal) => resolve({ exitCode: code ?? 128, signal, stdout, stderr }));
  });
}

// The suite lists what it ran but does not score under "Not scored for REV: ...", one
// "  ✓ name (reason)" or "  ✗ name (reason)" line each.
function notScoredScenarios(stdout) {
  const reasons = new Map();
  const start = stdout.indexOf("\nNot scored for ");
  if (start < 0) return reasons;
  for (const line of stdout.slice(start).split("\n").slice(2)) {
    const match = /^\s+[✓✗]\s+(\S+)\s+\(([^)]+)\)/.exec(line);
    if (!match) break;
    reasons.set(match[1], match[2]);
  }
  return reasons;
}

// checks.json of each scenario: <dir>/server-<scenario>-<timestamp>/checks.json.
function readChecks(outputDir) {
  const found = new Map();
  if (!existsSync(outputDir)) return found;
  for (const entry of readdirSync(outputDir).sort()) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    const file = path.join(outputDir, entry, "checks.json");
    if (match && existsSync(file)) found.set(match[1], JSON.parse(readFileSync(file, "utf8")));
  }
  return found;
}

function summarize(checks) {
  const count = (status) => checks.filter((c) => c.status === status).length;
  // The suite fails (never skips) a check whose prerequisite the server lacks, e.g. one of its
  // fixture tools, with a message starting "Not testable:"; those are marked so a runner can tell
  // "kode-gopher broke a requirement" from "kode-gopher has no test_* tool".
  const untestable = (c) => c.details?.untestable === true || /^Not testable:/.test(c.errorMessage ?? "");
  const brief = (c) => ({ id: c.id, name: c.name, message: c.errorMessage, ...(untestable(c) ? { untestable: true } : {}) });
  return {
    passed: count("SUCCESS"),
    failed: count("FAILURE"),
    failed_untestable: checks.filter((c) => c.status === "FAILURE" && untestable(c)).length,
    warnings: count("WARNING"),
    skipped: count("SKIPPED"),
    failures: checks.filter((c) => c.status === "FAILURE").map(brief),
    warning_checks: checks.filter((c) => c.status === "WARNING").map(brief),
  };
}
