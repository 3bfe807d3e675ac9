// The official MCP conformance suite (`@modelcontextprotocol/conformance` 0.2.0-alpha.12, run on
// Node 22: conformance-suite.ts) against this emulator: its server scenarios on `/mcp` at the
// 2025-11-25 revision (the newest the SDK line used here, 1.x, and so this server, speaks), and its
// authorization-server scenarios on the emulator as the authorization server of `/mcp`.
//
// Every scenario the suite runs is in a table below, as applicable (each of its checks must pass)
// or not, with the reason; the reason is itself checked (the tool or capability the scenario
// needs is indeed absent), so a row cannot go stale silently, and a scenario a newer suite adds
// fails this test until someone places it. The README's "MCP conformance" section shows the table.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../src/index.js";
import { http, type Json } from "../conformance/support.js";
import { type Check, freePort, runSuite, type SuiteRun, tokenProxy } from "./conformance-suite.js";
import { approveAsPerson } from "./oauth-person.js";

type Row =
  | { applies: true }
  /** Only these checks apply; the scenario's others need a tool of the suite's own test server. */
  | { applies: "checks"; checks: string[]; fixtureTool: string }
  /** A tool of the suite's reference test server, not one of this service's tools. */
  | { applies: false; fixtureTool: string }
  /** A capability this server does not declare (packages/mcp/README.md says why). */
  | { applies: false; capability: "completions" | "resources" | "prompts" };

const fixture = (fixtureTool: string): Row => ({ applies: false, fixtureTool });
const lacks = (capability: "completions" | "resources" | "prompts"): Row => ({
  applies: false,
  capability,
});

export const SERVER_SCENARIOS: Record<string, Row> = {
  "server-initialize": { applies: true },
  "server-session-lifecycle": { applies: true },
  "logging-set-level": { applies: true },
  ping: { applies: true },
  "tools-list": { applies: true },
  "server-sse-multiple-streams": { applies: true },
  "dns-rebinding-protection": { applies: true },
  "server-sse-polling": {
    applies: "checks",
    checks: ["server-sse-priming-event", "server-sse-retry-field"],
    fixtureTool: "test_reconnection",
  },
  // These two pass, but only because an unknown tool's answer is an `isError` result with a text.
  "tools-call-simple-text": fixture("test_simple_text"),
  "tools-call-error": fixture("test_error_handling"),
  "tools-call-image": fixture("test_image_content"),
  "tools-call-audio": fixture("test_audio_content"),
  "tools-call-embedded-resource": fixture("test_embedded_resource"),
  "tools-call-mixed-content": fixture("test_multiple_content_types"),
  "tools-call-with-logging": fixture("test_tool_with_logging"),
  "tools-call-with-progress": fixture("test_tool_with_progress"),
  "tools-call-sampling": fixture("test_sampling"),
  "tools-call-elicitation": fixture("test_elicitation"),
  "elicitation-sep1034-defaults": fixture("test_elicitation_sep1034_defaults"),
  "elicitation-sep1330-enums": fixture("test_elicitation_sep1330_enums"),
  "json-schema-2020-12": fixture("json_schema_2020_12_tool"),
  "completion-complete": lacks("completions"),
  "resources-list": lacks("resources"),
  "resources-read-text": lacks("resources"),
  "resources-read-binary": lacks("resources"),
  "resources-templates-read": lacks("resources"),
  "resources-subscribe": lacks("resources"),
  "resources-unsubscribe": lacks("resources"),
  "prompts-list": lacks("prompts"),
  "prompts-get-simple": lacks("prompts"),
  "prompts-get-with-args": lacks("prompts"),
  "prompts-get-embedded-resource": lacks("prompts"),
  "prompts-get-with-image": lacks("prompts"),
};

/** A passing check: SUCCESS, or INFO (a log line of the suite's, not a verdict). */
const passed = (c: Check) => c.status === "SUCCESS" || c.status === "INFO";
const verdicts = (checks: readonly Check[]) =>
  checks.map((c) => `${c.id}: ${c.status}${c.errorMessage ? ` (${c.errorMessage})` : ""}`);

let emu: RunningEmulator;
let base: string;
let token: string;
let proxy: Awaited<ReturnType<typeof tokenProxy>>;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  base = String(emu.url).replace(/\/$/, "");
  const made = await http("POST", `${base}/_emulator/personal-access-tokens`, {
    environment: "production",
  });
  token = (made.body as Json).token;
  proxy = await tokenProxy(base, token);
});
afterAll(async () => {
  await proxy?.close();
  await emu?.close();
});

describe("the MCP conformance suite's server scenarios on /mcp (2025-11-25)", () => {
  let run: SuiteRun;
  let tools: string[];
  let capabilities: Record<string, unknown>;
  beforeAll(async () => {
    run = await runSuite([
      "server",
      "--url",
      `${proxy.url}/mcp`,
      "--suite",
      "all",
      "--spec-version",
      "2025-11-25",
    ]);
    const client = new Client({ name: "conformance-table", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    tools = (await client.listTools()).tools.map((t) => t.name);
    capabilities = { ...client.getServerCapabilities() };
    await client.close();
  }, 300_000);

  it("ran exactly the scenarios the table places", () => {
    expect([...run.scenarios.keys()].sort(), run.output).toEqual(
      Object.keys(SERVER_SCENARIOS).sort(),
    );
  });

  it("passes every check of every applicable scenario", () => {
    for (const [name, row] of Object.entries(SERVER_SCENARIOS)) {
      const checks = run.scenarios.get(name) ?? [];
      if (row.applies === true) {
        expect(checks.length, name).toBeGreaterThan(0);
        expect(
          checks.filter((c) => !passed(c)).map((c) => c.id),
          verdicts(checks).join("\n"),
        ).toEqual([]);
        expect(
          checks.some((c) => c.status === "SUCCESS"),
          name,
        ).toBe(true);
      } else if (row.applies === "checks") {
        for (const id of row.checks)
          expect(
            checks.find((c) => c.id === id)?.status,
            `${name} ${id}: ${verdicts(checks).join("; ")}`,
          ).toBe("SUCCESS");
      }
    }
  });

  it("the scenarios that do not apply need a tool or capability this server does not have", () => {
    expect(tools).toContain("wait_for_run");
    expect(capabilities).toHaveProperty("logging");
    expect(capabilities).toHaveProperty("tools");
    for (const [name, row] of Object.entries(SERVER_SCENARIOS)) {
      if (row.applies === true) continue;
      if ("fixtureTool" in row) expect(tools, name).not.toContain(row.fixtureTool);
      if ("capability" in row) expect(capabilities, name).not.toHaveProperty(row.capability);
    }
  });
});

describe("the MCP conformance suite's authorization-server scenarios on the emulator", () => {
  it("serves its metadata and completes the authorization code grant with PKCE", async () => {
    const port = await freePort();
    const registered = await http("POST", `${base}/oauth/register`, {
      client_name: "MCP conformance suite",
      redirect_uris: [`http://127.0.0.1:${port}/callback`],
    });
    expect(registered.status).toBe(201);
    // The person's step runs while the suite waits for its callback (up to 5 minutes): if it
    // fails, the suite is stopped and the step's error is the test's.
    const stop = new AbortController();
    let consented: Promise<void> | undefined;
    let failed: unknown;
    // The suite prints the authorization URL before its callback server has bound the port (it
    // logs "Callback server started" once it has): on a loaded machine the person's step could
    // finish first and find nothing listening. The code is delivered only once the line is seen.
    let callbackListening: () => void = () => undefined;
    const listening = new Promise<void>((resolve) => {
      callbackListening = resolve;
    });
    const run = await runSuite(
      [
        "authorization",
        "--url",
        base,
        "--client-id",
        (registered.body as Json).client_id,
        "--resource",
        `${base}/mcp`,
        "--port",
        String(port),
      ],
      (output) => {
        if (output.includes(`Callback server started: http://127.0.0.1:${port}`))
          callbackListening();
        // A whole line: the output may arrive cut anywhere.
        const url = /^(http:\S+\/_app\/oauth\/authorize\?\S+)\r?\n/m.exec(output)?.[1];
        // The suite's callback server on 127.0.0.1 receives the code, as the browser delivers it.
        if (url && !consented)
          consented = approveAsPerson(base, url)
            .then(async (back) => {
              await listening;
              await fetch(back);
            })
            .catch((error: unknown) => {
              failed = error;
              stop.abort();
            });
      },
      stop.signal,
    ).catch((error: unknown) => {
      throw failed ?? error;
    });
    // A suite that ended without listening (its port taken) says why in its output, below.
    callbackListening();
    await consented;
    expect([...run.scenarios.keys()].sort(), run.output).toEqual([
      "authorization-code-grant",
      "authorization-server-metadata-endpoint",
    ]);
    const checks = [...run.scenarios.values()].flat();
    expect(verdicts(checks).sort(), run.output).toEqual([
      "authorization-code-grant: SUCCESS",
      // A SHOULD this emulator declines (README "MCP conformance"): client ID metadata documents
      // would make it fetch a URL the client names; clients register dynamically instead.
      'authorization-server-metadata-cimd: WARNING (Authorization server metadata does not include "client_id_metadata_document_supported")',
      "authorization-server-metadata: SUCCESS",
    ]);
    expect(run.code).toBe(0);
  }, 120_000);
});
