// One function per state change, used by the live path and replay (state-changes.ts): after a
// series of changes through every surface, the live state and the state replayed from the
// journal are the same, record for record; and a change the journal refuses is not made.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tokenHash } from "../../src/access/credentials.js";
import { builtinCatalogPath, loadCatalogFile } from "../../src/engine/catalog.js";
import type { JournalRecord } from "../../src/journal/journal-records.js";
import { Emulator } from "../../src/server/http-server.js";
import type { ServerConfig } from "../../src/state/emulator-state.js";
import { snapshot } from "../../src/state/persistence.js";
import { commit } from "../../src/state/state-changes.js";
import { type Delivery, Receiver } from "../conformance/receiver.js";
import { http, type Json, PORTAL, portalBody, sleep } from "../conformance/support.js";

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

  it("each step of a clock advance is journalled before the clock shows it, and a restart shows the same time and runs", async () => {
    const data = journalFile();
    const live = await started(data);
    const { admin, api } = await clients(live);
    await admin("PUT", `/environments/production/workflows/${PORTAL}/scenario`, {
      steps: [
        { wait_ms: 1000 },
        { event: { type: "halfway" } },
        { wait_ms: 1000 },
        { succeed: {} },
      ],
    });
    const run = (await api("POST", `/automations/${PORTAL}/runs`, portalBody())).body as Json;
    // What the clock showed when each `clock` record was written.
    const steps: { journalled: number; shown: number }[] = [];
    watchRecords(live, (rec) => {
      if (rec.t === "clock") steps.push({ journalled: rec.now, shown: live.clock.now() });
    });
    const start = live.clock.now();
    const advanced = await admin("POST", "/clock/advance", { ms: 5_000 });
    expect(advanced.status).toBe(200);
    expect(live.clock.now()).toBe(start + 5_000);
    // The run's due steps, then the end: in time order, each journalled before it was shown.
    expect(steps.length).toBeGreaterThan(2);
    for (const s of steps) expect(s.shown).toBeLessThan(s.journalled);
    expect(steps.map((s) => s.journalled)).toEqual([...new Set(steps.map((s) => s.journalled))]);
    expect(steps.at(-1)?.journalled).toBe(live.clock.now());
    const before = { now: live.clock.now(), state: state(live) };
    expect(live.engine.runs.get(run.run_id as string)?.status).toBe("succeeded");
    await live.close();
    const replayed = await started(data);
    try {
      expect({ now: replayed.clock.now(), state: state(replayed) }).toEqual(before);
    } finally {
      await replayed.close();
    }
  }, 60_000);

  it("a clock advance the journal cannot take leaves the clock where it was", async () => {
    const emu = await started(journalFile());
    try {
      const { admin } = await clients(emu);
      const start = emu.clock.now();
      watchRecords(emu, (rec) => {
        if (rec.t === "clock") throw new Error("the journal refuses");
      });
      expect((await admin("POST", "/clock/advance", { ms: 1_000 })).status).toBe(500);
      expect(emu.clock.now()).toBe(start);
    } finally {
      await emu.close();
    }
  });

  it("using a delivery fault is journalled before it takes effect; a restart neither uses it again nor loses what is left", async () => {
    const rx = await Receiver.start();
    const data = journalFile();
    let emu = await started(data);
    try {
      const { admin, api } = await clients(emu);
      await admin("PUT", `/environments/production/workflows/${PORTAL}/scenario`, {
        steps: [{ wait_ms: 86_400_000 }, { succeed: {} }],
      });
      const run = await api(
        "POST",
        `/automations/${PORTAL}/runs`,
        portalBody({ callback_url: rx.url("/faults") }),
      );
      const id = run.body.run_id as string;
      await admin("POST", "/clock/advance", { ms: 500 });
      const fault = (kind: string, body: unknown = {}) =>
        admin("POST", `/environments/production/runs/${id}/faults/${kind}`, body);
      for (const kind of ["callback-twice", "callback-twice"])
        expect((await fault(kind)).status).toBe(200);
      expect((await fault("callback-fail", { attempts: 1 })).body.delivery_faults).toEqual({
        twice: 2,
        late: [],
        fail: { attempts: 1, status: 503 },
      });
      // What the live plan was when each use of it was journalled.
      const uses: { journalled: unknown; live: unknown }[] = [];
      watchRecords(emu, (rec) => {
        if (rec.t === "delivery_faults")
          uses.push({
            journalled: structuredClone(rec.plan),
            live: structuredClone(emu.deliveryFaults.plan(id)),
          });
      });
      // A checkpoint's callback uses one `twice`; its first attempt uses the failure.
      expect((await fault("checkpoint")).status).toBe(200);
      const attempts = () => emu.envs.get("production")?.deliveries.filter((a) => a.run_id === id);
      await until(
        "three attempts and nothing pending",
        () =>
          (attempts()?.length ?? 0) >= 3 && ![...emu.pending.values()].some((c) => c.run_id === id),
      );
      expect(uses).toEqual([
        {
          journalled: { twice: 1, late: [], fail: { attempts: 1, status: 503 } },
          live: { twice: 2, late: [], fail: { attempts: 1, status: 503 } },
        },
        {
          journalled: { twice: 1, late: [], fail: null },
          live: { twice: 1, late: [], fail: { attempts: 1, status: 503 } },
        },
      ]);
      expect(emu.deliveryFaults.plan(id)).toEqual({ twice: 1, late: [], fail: null });
      await emu.close();

      emu = await started(data);
      expect(emu.deliveryFaults.plan(id)).toEqual({ twice: 1, late: [], fail: null });
      const after = await clients(emu);
      const succeeded = await after.admin(
        "POST",
        `/environments/production/runs/${id}/faults/succeed`,
        {},
      );
      expect(succeeded.status).toBe(200);
      const completed = () =>
        rx.to("/faults").filter((d) => (d.body as Json).type === "workflow.run.completed");
      await until("the completed callback twice", () => completed().length >= 2);
      const [a, b] = completed() as [Delivery, Delivery];
      expect(a.raw).toBe(b.raw);
      expect(emu.deliveryFaults.plan(id)).toBeNull();
    } finally {
      await emu.close();
      await rx.close();
    }
  }, 60_000);
});

function journalFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "state-changes-"));
  dirs.push(dir);
  return join(dir, "journal.jsonl");
}

async function started(data: string): Promise<Emulator> {
  const emu = new Emulator(config(data));
  await emu.listen(0, "127.0.0.1");
  return emu;
}

async function clients(emu: Emulator) {
  const admin = (method: string, path: string, body?: unknown) =>
    http(method, `${emu.origin}/_emulator${path}`, body);
  const token = (await admin("POST", "/keys", { environment: "production" })).body.token;
  const api = (method: string, path: string, body?: unknown) =>
    http(method, `${emu.origin}/production/api/v1${path}`, body, {
      authorization: `Bearer ${token}`,
    });
  return { admin, api };
}

/** Calls `seen` with each record as it is journalled (before `commit` makes the change). */
function watchRecords(emu: Emulator, seen: (rec: JournalRecord) => void): void {
  const record = emu.record.bind(emu);
  emu.record = (rec) => {
    seen(rec);
    record(rec);
  };
}

async function until(what: string, done: () => boolean): Promise<void> {
  for (let i = 0; i < 1_200; i++) {
    if (done()) return;
    await sleep(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}
