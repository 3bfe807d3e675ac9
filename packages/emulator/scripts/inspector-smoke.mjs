#!/usr/bin/env node
// Smoke run of the MCP Inspector's CLI (`@modelcontextprotocol/inspector --cli`) against a started
// emulator's /mcp: `tools/list` with a personal access token must list the agent tools, and
// without one the Inspector must fail to connect (401). Needs `pnpm build` first (uses dist/).
//
// The Inspector is fetched by npx at a pinned version, not a devDependency: it brings ~260
// packages (~160 MB: its web UI) that nothing else needs. 0.21.2 is the last version whose CLI
// runs on Node 20 with --header (it declares node >=22.7.5, npm warns EBADENGINE; from 2.x it
// needs node >=22.19).
//
// The token is passed in argv (the Inspector has no other way to send a header); it belongs to
// this throwaway emulator on 127.0.0.1 and is revoked before the emulator stops.
import { spawn } from "node:child_process";
import { startEmulator } from "../dist/index.js";

const INSPECTOR = "@modelcontextprotocol/inspector@0.21.2";
const EXPECTED = [
  "explain_human_wait",
  "get_run",
  "get_run_events",
  "get_run_result",
  "get_workflow_schema",
  "launch_run",
  "list_workflows",
  "save_workflow",
  "start_authoring_session",
  "wait_for_run",
];

function inspector(args) {
  return new Promise((resolve, reject) => {
    const child = spawn("npx", ["--yes", INSPECTOR, "--cli", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, npm_config_loglevel: "error" },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => {
      out += c;
    });
    child.stderr.on("data", (c) => {
      err += c;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 300_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

const emu = await startEmulator({ port: 0 });
let failed = false;
try {
  const created = await fetch(`${emu.url}/_emulator/personal-access-tokens`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ environment: "production" }),
  });
  const { token, id } = await created.json();
  const endpoint = `${emu.url}/mcp`;
  const started = Date.now();
  const listed = await inspector([
    endpoint,
    "--transport",
    "http",
    "--method",
    "tools/list",
    "--header",
    `Authorization: Bearer ${token}`,
  ]);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  let names = [];
  try {
    names = JSON.parse(listed.out)
      .tools.map((t) => t.name)
      .sort();
  } catch {
    // reported below
  }
  if (listed.code !== 0 || JSON.stringify(names) !== JSON.stringify(EXPECTED)) {
    failed = true;
    console.error(
      `inspector tools/list: exit ${listed.code}, tools ${JSON.stringify(names)}\n${listed.err.slice(0, 2000)}`,
    );
  } else {
    console.log(
      `inspector tools/list: ${names.length} tools (${names.join(", ")}) in ${seconds} s`,
    );
  }
  const refused = await inspector([endpoint, "--transport", "http", "--method", "tools/list"]);
  if (refused.code === 0 || !/UNAUTHENTICATED/.test(refused.out + refused.err)) {
    failed = true;
    console.error(`inspector without a token: expected a 401 failure, got exit ${refused.code}`);
  } else {
    console.log("inspector without a token: refused (401 UNAUTHENTICATED)");
  }
  await fetch(`${emu.url}/_emulator/personal-access-tokens/${id}`, { method: "DELETE" });
} finally {
  await emu.close();
}
process.exit(failed ? 1 : 0);
