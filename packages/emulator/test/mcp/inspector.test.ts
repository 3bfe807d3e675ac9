// The MCP Inspector's own CLI (`@modelcontextprotocol/inspector-cli`, pinned as a dev dependency:
// the Inspector's command line without its web UI) lists the emulator's /mcp tools with a
// personal access token and is refused without one. A client nobody here wrote, in its own process.
//
// 0.21.2 is the last version whose CLI runs on Node 20 with --header. The token is passed in argv
// (the Inspector has no other way to send a header); it belongs to this throwaway emulator on
// 127.0.0.1 and is revoked before the emulator stops.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../src/index.js";
import { http, type Json } from "../conformance/support.js";

const require = createRequire(import.meta.url);
const inspectorPackage = require.resolve("@modelcontextprotocol/inspector-cli/package.json");
// `mcp-inspector-cli` starts the web UI unless given `--cli`, which runs this same file.
const inspectorBin = join(dirname(inspectorPackage), "build", "index.js");

const TOOLS = [
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

function inspector(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [inspectorBin, ...args], {
      // It finds its own package.json by `existsSync("../package.json")`, relative to the working directory.
      cwd: dirname(inspectorBin),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.stderr.on("data", (chunk) => {
      err += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
});
afterAll(async () => {
  await emu?.close();
});

describe("the MCP Inspector's CLI against /mcp", () => {
  it("lists the agent tools with a personal access token", async () => {
    const created = await http("POST", `${emu.url}/_emulator/personal-access-tokens`, {
      environment: "production",
    });
    const { token, id } = created.body as Json as { token: string; id: string };
    try {
      const listed = await inspector([
        `${emu.url}/mcp`,
        "--transport",
        "http",
        "--method",
        "tools/list",
        "--header",
        `Authorization: Bearer ${token}`,
      ]);
      expect(listed.err).not.toMatch(/Error/);
      expect(listed.code).toBe(0);
      const names = (JSON.parse(listed.out) as { tools: { name: string }[] }).tools
        .map((tool) => tool.name)
        .sort();
      expect(names).toEqual(TOOLS);
    } finally {
      await http("DELETE", `${emu.url}/_emulator/personal-access-tokens/${id}`);
    }
  });

  it("fails to connect without a token (401 UNAUTHENTICATED)", async () => {
    const refused = await inspector([
      `${emu.url}/mcp`,
      "--transport",
      "http",
      "--method",
      "tools/list",
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.out + refused.err).toMatch(/UNAUTHENTICATED/);
  });
});
