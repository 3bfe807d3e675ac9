// One function per state change, used by the live path and replay (state-changes.ts): after a
// series of changes through every surface, the live state and the state replayed from the
// journal are the same, record for record; and a change the journal refuses is not made.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { builtinCatalogPath, loadCatalogFile } from "../../src/catalog.js";
import { type ServerConfig, tokenHash } from "../../src/emulator-state.js";
import { Emulator } from "../../src/http-server.js";
import { snapshot } from "../../src/persistence.js";
import { commit } from "../../src/state-changes.js";
import { http, type Json, PORTAL, portalBody } from "../conformance/support.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function config(data: string): ServerConfig {
  return {
    environments: loadCatalogFile(builtinCatalogPath()),
    clock: "virtual",
    admin: true,
    allowLocalCallbacks: true,
    corsOrigins: [],
    data,
  };
}

/** The state as the journal would rebuild it, comparable as JSON. */
const state = (emu: Emulator) => [...snapshot(emu)].map((r) => JSON.stringify(r)).sort();

describe("state changes", () => {
  it("the live state and the state replayed from its journal are the same", async () => {
    const dir = mkdtempSync(join(tmpdir(), "state-changes-"));
    dirs.push(dir);
    const data = join(dir, "journal.jsonl");
    const live = new Emulator(config(data));
    await live.listen(0, "127.0.0.1");
    const base = live.origin;
    const admin = (method: string, path: string, body?: unknown) =>
      http(method, `${base}/_emulator${path}`, body);
    try {
      const token = (await admin("POST", "/keys", { environment: "production" })).body.token;
      const revoked = (await admin("POST", "/keys", { environment: "production" })).body.token;
      const api = (method: string, path: string, body?: unknown, t = token) =>
        http(method, `${base}/production/api/v1${path}`, body, { authorization: `Bearer ${t}` });
      await admin("PUT", `/environments/production/workflows/${PORTAL}/scenario`, {
        steps: [{ wait_ms: 1000 }, { succeed: {} }],
      });
      await admin("PUT", "/environments/production/workflows/wf_P7Qd2Lx9/scenario", {
        steps: [{ succeed: {} }],
      });
      await admin("DELETE", "/environments/production/workflows/wf_P7Qd2Lx9/scenario");
      await admin("PUT", "/environments/production/workflows/wf_P0ZrTt55/state", {
        state: "disabled",
      });
      const run = (await api("POST", `/automations/${PORTAL}/runs`, portalBody())).body as Json;
      await admin("POST", "/clock/advance", { ms: 5_000 });
      await api("GET", `/runs/${run.run_id}/recording`);
      const fault = (
        await admin("POST", "/api-faults", {
          route: "GET /runs/*",
          fault: "status",
          status: 503,
          count: 2,
        })
      ).body;
      await api("GET", `/runs/${run.run_id}`);
      await admin("POST", "/api-faults", { route: "* /**", fault: "drop" });
      await admin("DELETE", "/api-faults");
      expect(fault.id).toMatch(/^flt_/);
      const pat = (await admin("POST", "/personal-access-tokens", { environment: "production" }))
        .body;
      await admin("POST", "/personal-access-tokens", { environment: "production" });
      await admin("DELETE", `/personal-access-tokens/${pat.id}`);
      await admin("POST", "/environments/staging/reset", {});
      // A key revoked through the web application's host, as its page does.
      const sessionLink = (await admin("POST", "/sign-in-links")).body.url as string;
      const cookie = (
        (await fetch(sessionLink, { redirect: "manual" })).headers.get("set-cookie") ?? ""
      ).split(";")[0] as string;
      const keysPage = await (await fetch(`${base}/_app/keys`, { headers: { cookie } })).text();
      const csrf = /name="csrf" value="([^"]+)"/.exec(keysPage)?.[1] as string;
      const ids = [...keysPage.matchAll(/action="\/_app\/keys\/([0-9a-f]+)\/revoke"/g)].map(
        (m) => m[1],
      );
      expect(ids.length).toBe(2);
      const revokedId = tokenHash(revoked).slice(0, 16);
      expect(ids).toContain(revokedId);
      await fetch(`${base}/_app/keys/${revokedId}/revoke`, {
        method: "POST",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: `csrf=${encodeURIComponent(csrf)}`,
        redirect: "manual",
      });
      expect(
        [
          (await api("GET", "/runs/run_x")).status,
          (await api("GET", "/runs/run_x", undefined, revoked)).status,
        ].sort(),
      ).toEqual([401, 404]);

      // The changes took effect live (the same function replay uses made them).
      const disabled = await api("POST", "/automations/wf_P0ZrTt55/runs", { inputs: {} });
      expect(disabled.body.code).toBe("WORKFLOW_NOT_ENABLED");
      const before = state(live);
      await live.close();
      const replayed = new Emulator(config(data));
      await replayed.listen(0, "127.0.0.1");
      try {
        expect(state(replayed)).toEqual(before);
      } finally {
        await replayed.close();
      }
    } finally {
      await live.close();
    }
  }, 60_000);

  it("a change the journal cannot take is not made", async () => {
    const dir = mkdtempSync(join(tmpdir(), "state-changes-"));
    dirs.push(dir);
    const emu = new Emulator(config(join(dir, "journal.jsonl")));
    await emu.listen(0, "127.0.0.1");
    try {
      const env = emu.envs.get("production");
      // A BigInt cannot be serialized: the journal throws before anything changes.
      const scenario = { steps: [{ wait_ms: 10n }] } as unknown as never;
      expect(() =>
        commit(emu, { t: "scenario", env: "production", workflow: PORTAL, scenario }),
      ).toThrow();
      expect(env?.scenarios.has(PORTAL)).toBe(false);
    } finally {
      await emu.close();
    }
  });
});
