import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Client,
  Harness,
  INVOICE,
  invoiceBody,
  PORTAL,
  portalBody,
  STAGING_INVOICE,
} from "./support.js";

let h: Harness;
let mine: Client;
let outsider: Client;
let stagingMine: Client;
let runId: string;

beforeAll(async () => {
  h = await Harness.start();
  mine = await h.client();
  outsider = await h.client("production", ["workflows:run", "runs:read"], "ws_someone_else");
  stagingMine = await h.client("staging");
  await h.scenario("production", PORTAL, {
    steps: [
      { human: { kind: "approval", reason: "r", expires_in_ms: 3_600_000 } },
      { succeed: {} },
    ],
  });
  runId = (await mine.start(PORTAL, portalBody())).run_id;
  await mine.untilWaiting(runId, { stepMs: 100 });
});
afterAll(() => h?.close());

describe("Isolation across workspaces and environments", () => {
  it("Keys, workflows and runs belong to one workspace and one environment; an identifier from another workspace is not accessible (404 for a run outside the workspace)", async () => {
    const missing = await outsider.api("GET", "/runs/run_never_existed");
    for (const sub of ["", "/result", "/events", "/recording"]) {
      const r = await outsider.api("GET", `/runs/${runId}${sub}`);
      expect(r.status, sub).toBe(404);
      expect(r.body.code).toBe("RUN_NOT_FOUND");
    }
    // Never a leak of existence: a foreign run looks exactly like a missing one.
    const foreign = await outsider.api("GET", `/runs/${runId}`);
    expect(foreign.text.replaceAll(runId, "ID")).toBe(
      missing.text.replaceAll("run_never_existed", "ID"),
    );
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("RUN_NOT_FOUND");
  });

  it("WORKFLOW_NOT_FOUND when missing or not visible to caller", async () => {
    const r = await outsider.launch(INVOICE, invoiceBody());
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("WORKFLOW_NOT_FOUND");
    const missing = await outsider.launch("wf_Nope0000", invoiceBody());
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("WORKFLOW_NOT_FOUND");
  });

  it("Identifiers are not shared across environments; use the API base and schema of the same environment as the run", async () => {
    const r = await stagingMine.api("GET", `/runs/${runId}`);
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("RUN_NOT_FOUND");
    const w = await stagingMine.launch(INVOICE, invoiceBody());
    expect(w.status).toBe(404);
    expect(w.body.code).toBe("WORKFLOW_NOT_FOUND");
    const p = await mine.launch(STAGING_INVOICE, invoiceBody());
    expect(p.status).toBe(404);
    expect(p.body.code).toBe("WORKFLOW_NOT_FOUND");
  });

  it("A key belongs to one environment: a production key is not valid on the staging API base", async () => {
    const r = await fetch(`${h.base("staging")}/runs/${runId}`, {
      headers: { authorization: `Bearer ${mine.token}` },
    });
    await r.arrayBuffer();
    expect([401, 403, 404]).toContain(r.status);
    const launch = await fetch(`${h.base("staging")}/automations/${STAGING_INVOICE}/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${mine.token}`, "content-type": "application/json" },
      body: JSON.stringify(invoiceBody()),
    });
    await launch.arrayBuffer();
    expect([401, 403, 404]).toContain(launch.status);
  });

  it("The admin run history of one environment does not list another's runs", async () => {
    const staging = await h.runs("staging");
    expect(JSON.stringify(staging).includes(runId)).toBe(false);
  });
});
