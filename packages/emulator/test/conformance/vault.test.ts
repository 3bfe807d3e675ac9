import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Receiver } from "./receiver.js";
import { type Client, eventsOf, Harness, http, PORTAL, portalBody, sleep } from "./support.js";

const SECRET = "correct-horse-battery-staple-9f3a7c";
const OTP_SEED = "JBSWY3DPEHPK3PXP-otp-seed";

let h: Harness;
let c: Client;
let rx: Receiver;

beforeAll(async () => {
  rx = await Receiver.start();
  h = await Harness.start({
    allowLocalCallbacks: true,
    vault: { production: { portal_password: SECRET, portal_otp: OTP_SEED } },
  });
  c = await h.client();
});
afterAll(async () => {
  await h?.close();
  await rx?.close();
});

describe("Vault", () => {
  it("Credentials that a workflow uses are held in a vault, used at run time, and do not pass through API calls", async () => {
    await h.scenario("production", PORTAL, {
      steps: [
        { event: { type: "conformance.login", password: { vault: "portal_password" } } },
        { event: { type: "conformance.otp", code: { vault: "portal_otp" } } },
        {
          human: {
            kind: "approval",
            reason: "Confirm login",
            instructions: "Password is in the vault",
            expires_in_ms: 3_600_000,
          },
        },
        { succeed: { outputs: { logged_in: true, used: { vault: "portal_password" } } } },
      ],
    });
    const seen: string[] = [];
    const launch = await c.launch(
      PORTAL,
      portalBody({ callback_url: rx.url("/vault"), metadata: { who: "vault-test" } }),
    );
    expect(launch.status).toBe(202);
    seen.push(launch.text);
    const runId = launch.body.run_id as string;
    const waiting = await c.untilWaiting(runId, { stepMs: 100 });
    seen.push(JSON.stringify(waiting));
    const answered = await c.api("POST", `/runs/${runId}/human-input`, {
      checkpoint_id: waiting.human_action.checkpoint_id,
      response: "ok",
    });
    seen.push(answered.text);
    const done = await c.untilTerminal(runId);
    expect(done.status).toBe("succeeded");
    for (const sub of ["", "/result", "/events"]) {
      const r = await c.api("GET", `/runs/${runId}${sub}`);
      expect(r.status).toBe(200);
      seen.push(r.text);
    }
    // The events did happen (so the check below is not vacuous).
    const events = await c.api("GET", `/runs/${runId}/events`);
    const kinds = JSON.stringify(eventsOf(events.body));
    expect(kinds).toContain("conformance.login");
    expect(kinds).toContain("conformance.otp");

    for (let i = 0; i < 100 && rx.to("/vault").length < 2; i++) {
      await h.advance(1_000);
      await sleep(10);
    }
    expect(rx.to("/vault").length).toBeGreaterThanOrEqual(2);
    for (const d of rx.to("/vault")) seen.push(d.raw, JSON.stringify(d.headers));

    for (const path of [
      "/environments/production/runs",
      `/environments/production/runs/${runId}`,
      "/environments/production/callbacks",
    ]) {
      const r = await h.admin("GET", path);
      expect(r.status).toBe(200);
      seen.push(r.text);
    }
    seen.push((await http("GET", `${h.url}/production/api-docs/openapi.json`)).text);

    for (const text of seen) {
      expect(text.includes(SECRET)).toBe(false);
      expect(text.includes(OTP_SEED)).toBe(false);
      expect(text.includes(Buffer.from(SECRET).toString("base64"))).toBe(false);
    }
  });
});
