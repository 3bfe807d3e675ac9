// `wfr runs grant` and `wfr runs revoke-grant` against the emulator, through the built CLI.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../../src/exit-codes.js";
import { adminPut, type Fixture, launchInvoice, runWfr, startFixture } from "../../harness.js";

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
  expect((await runWfr(["schemas", "pull"], { cwd: fx.dir, env: fx.env })).code).toBe(0);
  // The run keeps its browser session long enough for the test.
  await adminPut(fx.emulator, "/environments/production/workflows/wf_invoice1/scenario", {
    steps: [{ wait_ms: 120_000 }, { succeed: { outputs: { invoice_id: "INV-1" } } }],
    queue_ms: 10,
    start_ms: 10,
  });
});
afterAll(async () => {
  await fx?.close();
});

const wfr = (args: string[]) => runWfr(args, { cwd: fx.dir, env: fx.env });

async function liveRunId(): Promise<string> {
  const runId = await launchInvoice(fx);
  for (;;) {
    const read = await wfr(["runs", "get", runId, "--json"]);
    if (JSON.parse(read.stdout).session_id) return runId;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("runs grant", () => {
  it("prints the grant with its token once, and revoke-grant deletes it while the run goes on", async () => {
    const runId = await liveRunId();
    const r = await wfr([
      "runs",
      "grant",
      runId,
      "--origin",
      "https://app.example.com",
      "--expires-in",
      "300",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(EXIT.OK);
    const grant = JSON.parse(r.stdout);
    expect(grant).toMatchObject({ run_id: runId, origins: ["https://app.example.com"] });
    expect(grant.token).toMatch(/^wfr_grant_/);
    expect(r.stdout + r.stderr).not.toContain(fx.key);

    const revoked = await wfr(["runs", "revoke-grant", grant.grant_id]);
    expect(revoked.code, revoked.stderr).toBe(EXIT.OK);
    expect(revoked.stderr).toContain("the run goes on");
    const after = await wfr(["runs", "get", runId, "--json"]);
    expect(JSON.parse(after.stdout).status).toBe("running");
  });

  it("needs an origin (usage), and maps the service's refusal of a wildcard to an error naming the field", async () => {
    const runId = await liveRunId();
    const none = await wfr(["runs", "grant", runId]);
    expect(none.code).toBe(EXIT.USAGE);
    expect(none.stderr).toContain("--origin");
    const wildcard = await wfr(["runs", "grant", runId, "--origin", "https://*.example.com"]);
    expect(wildcard.code).not.toBe(EXIT.OK);
    expect(wildcard.stderr).toContain("INVALID_GRANT");
    expect(wildcard.stderr).toContain("origins[0]");
  });
});
