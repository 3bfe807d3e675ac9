// `wfr mcp` through the SDK's stdio client transport: the built bin as the
// server process, in a repository configured for the emulator.

import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { toolsOf } from "@wfr/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminPut, BIN, type Fixture, runWfr, startFixture } from "../harness.js";

let fx: Fixture;
let client: Client;
let stderr = "";

beforeAll(async () => {
  fx = await startFixture();
  const pulled = await runWfr(["schemas", "pull"], { cwd: fx.dir, env: fx.env });
  expect(pulled.code, pulled.stderr).toBe(0);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", "--env", "production"],
    cwd: fx.dir,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...fx.env },
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  client = new Client({ name: "agent-in-repo", version: "1.0.0" });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  await fx?.close();
});

const structured = (result: unknown) =>
  (result as { structuredContent: Record<string, unknown> }).structuredContent;

describe("wfr mcp (stdio)", () => {
  it("serves the workflow tools and the repository tools, with honest hints", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    // Exactly the tools the one table of @wfr/mcp names for this surface.
    expect(names.slice().sort()).toEqual(toolsOf("wfr-mcp").sort());
    expect(tools.find((t) => t.name === "diff_schema")?.annotations).toMatchObject({
      readOnlyHint: true,
    });
    expect(tools.find((t) => t.name === "generate")?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
    });
    expect(stderr).toContain("serving production");
    // The key is never printed.
    expect(stderr).not.toContain(fx.key);
  });

  it("lists the committed definition's workflows and launches with a key: a resend is the same run", async () => {
    const listed = structured(await client.callTool({ name: "list_workflows", arguments: {} }));
    const workflows = listed.workflows as { id: string; name: string }[];
    expect(workflows.map((w) => w.name)).toContain("Invoice intake");
    const args = {
      workflow_id: "wf_invoice1",
      inputs: { vendor_name: "A", amount: 1 },
      idempotency_key: "agent-1",
    };
    const first = structured(await client.callTool({ name: "launch_run", arguments: args }));
    const again = structured(await client.callTool({ name: "launch_run", arguments: args }));
    expect(again.run_id).toBe(first.run_id);
  });

  it("diff_schema: identical at first; a graph edit in the environment is reported as breaking", async () => {
    const before = structured(await client.callTool({ name: "diff_schema", arguments: {} }));
    expect(before).toMatchObject({ identical: true, breaking: 0 });
    await adminPut(fx.emulator, "/environments/production/workflows/wf_approve1/state", {
      state: "disabled",
    });
    const after = structured(await client.callTool({ name: "diff_schema", arguments: {} }));
    expect(after.identical).toBe(false);
    expect(after.breaking).toBeGreaterThan(0);
    expect(JSON.stringify(after.changes)).toContain("Payment approval");
  });

  it("generate says the type check did not run when tsc exits without checking (never '0 type errors')", async () => {
    // A tsc that starts and fails before checking anything, as a broken install does.
    const bin = join(fx.dir, "node_modules", ".bin");
    await mkdir(bin, { recursive: true });
    await writeFile(
      join(bin, "tsc"),
      "#!/bin/sh\necho 'tsc: cannot find module typescript' >&2\nexit 1\n",
    );
    await chmod(join(bin, "tsc"), 0o755);
    const result = await client.callTool({ name: "generate", arguments: {} }, undefined, {
      timeout: 120_000,
    });
    const text = (result.content as { text: string }[])[0]?.text ?? "";
    expect(text).not.toMatch(/0 type error/);
    expect(text).toMatch(
      /the type check did not run \(tsc exited with 1 without type-checking: tsc: cannot find module typescript\)/,
    );
    expect(structured(result)).toMatchObject({
      generated: true,
      type_check_ran: false,
      type_check_ok: false,
      type_errors: [],
    });

    // A tsc that checked and found an error is still reported as such.
    await writeFile(
      join(bin, "tsc"),
      "#!/bin/sh\necho 'src/a.ts(1,7): error TS2322: Type 1 is not string.'\nexit 2\n",
    );
    const checked = structured(
      await client.callTool({ name: "generate", arguments: {} }, undefined, { timeout: 120_000 }),
    );
    expect(checked).toMatchObject({ type_check_ran: true, type_check_ok: false });
    expect(checked.type_errors).toEqual(["src/a.ts(1,7): error TS2322: Type 1 is not string."]);
  }, 180_000);

  it("refusals name codes of the one vocabulary (@wfr/protocol), each with its next step", async () => {
    const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text;
    // A committed definition generation refuses: GENERATE_FAILED, naming the file.
    const committed = join(fx.dir, "schemas", "production", "openapi.json");
    const original = await readFile(committed, "utf8");
    await writeFile(committed, "{ not json");
    try {
      const refused = await client.callTool({ name: "generate", arguments: {} }, undefined, {
        timeout: 120_000,
      });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/^GENERATE_FAILED: .*openapi\.json/s);
      expect(text(refused)).toMatch(/\nNext: The committed definitions could not be generated/);
    } finally {
      await writeFile(committed, original);
    }
  }, 180_000);
});
