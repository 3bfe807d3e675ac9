// Memory stays flat: finished runs beyond `finishedRunsInMemory` live on disk (`<data>.runs`)
// and are read back on demand (API, run pages, admin export), across restarts and kill -9; and a
// torn last line names the record it dropped and whether it had been acknowledged.
import { existsSync, readFileSync, statSync, truncateSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { startEmulator } from "../../src/index.js";
import { http } from "../conformance/support.js";
import { BIN, Child, freePort } from "./child.js";

const CRM = "wf_P9hHc2Vb";
const dirs: string[] = [];
const children: Child[] = [];
afterEach(() => vi.restoreAllMocks());
afterAll(async () => {
  for (const c of children) await c.kill9();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
async function tmp(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "wfr-archive-"));
  dirs.push(d);
  return join(d, "journal.jsonl");
}

type Started = Awaited<ReturnType<typeof startEmulator>>;

/** A key and a one-step scenario (succeed at once), through the admin API. */
async function prepare(url: string): Promise<Record<string, string>> {
  const key = await http("POST", `${url}/_emulator/keys`, { environment: "production" });
  expect(key.status).toBe(201);
  const sc = await http(
    "PUT",
    `${url}/_emulator/environments/production/workflows/${CRM}/scenario`,
    { steps: [{ event: { type: "crm.synced" } }, { succeed: {} }] },
  );
  expect(sc.status).toBe(200);
  return { authorization: `Bearer ${key.body.token}` };
}

async function launch(url: string, auth: Record<string, string>, n: number): Promise<string> {
  const r = await http(
    "POST",
    `${url}/production/api/v1/automations/${CRM}/runs`,
    { inputs: { contacts: [] }, metadata: { n } },
    { ...auth, "idempotency-key": `archive-${n}` },
  );
  expect(r.status, r.text).toBe(202);
  return r.body.run_id;
}

const finishAll = (url: string) =>
  http("POST", `${url}/_emulator/clock/advance`, { ms: 60_000 }).then((r) =>
    expect(r.status).toBe(200),
  );

/** Signed in to the web application: its cookie. */
async function signIn(emu: Started): Promise<string> {
  const r = await fetch(emu.signInUrl, { redirect: "manual" });
  await r.arrayBuffer();
  return (r.headers.get("set-cookie") ?? "").split(";")[0] as string;
}

/** Every way a run is read: status, result, events, its page, the list, the admin export. */
async function readsEverywhere(emu: Started, auth: Record<string, string>, runId: string) {
  const base = `${emu.url}/production/api/v1`;
  const status = await http("GET", `${base}/runs/${runId}`, undefined, auth);
  expect(status.status).toBe(200);
  expect(status.body.status).toBe("succeeded");
  const result = await http("GET", `${base}/runs/${runId}/result`, undefined, auth);
  expect(result.status).toBe(200);
  expect(result.body.metadata).toEqual({ n: 0 });
  const events = await http("GET", `${base}/runs/${runId}/events`, undefined, auth);
  expect(events.body.events.map((e: { type: string }) => e.type)).toContain("crm.synced");
  const cookie = await signIn(emu);
  const page = await fetch(`${emu.url}/_app/runs/production/${runId}`, { headers: { cookie } });
  expect(page.status).toBe(200);
  expect(await page.text()).toContain(runId);
  const rows = await fetch(`${emu.url}/_app/runs/rows`, { headers: { cookie } });
  expect(await rows.text()).toContain(runId);
  const exported = await http("GET", `${emu.url}/_emulator/environments/production/runs`);
  const ids = exported.body.runs.map((r: { run_id: string }) => r.run_id);
  expect(ids).toContain(runId);
  return ids as string[];
}

describe("finished runs beyond the limit live on disk", () => {
  it("are evicted from memory, still read everywhere, and survive a restart", async () => {
    const data = await tmp();
    let emu = await startEmulator({ data, clock: "virtual", finishedRunsInMemory: 2 });
    const auth = await prepare(emu.url);
    const ids: string[] = [];
    for (let n = 0; n < 5; n++) ids.push(await launch(emu.url, auth, n));
    await finishAll(emu.url);
    // The runs beyond the limit are read back; each read processes nothing more.
    expect(await readsEverywhere(emu, auth, ids[0] as string)).toHaveLength(5);
    // Its idempotency key still finds it: the same body replays it, a changed one conflicts.
    const launchUrl = `${emu.url}/production/api/v1/automations/${CRM}/runs`;
    const keyed = { ...auth, "idempotency-key": "archive-0" };
    const same = await http(
      "POST",
      launchUrl,
      { inputs: { contacts: [] }, metadata: { n: 0 } },
      keyed,
    );
    expect(same.body.run_id).toBe(ids[0]);
    const changed = await http(
      "POST",
      launchUrl,
      { inputs: { contacts: [] }, metadata: { n: 9 } },
      keyed,
    );
    expect(changed.status).toBe(409);
    // A compaction writes memory's state: the three oldest runs are not in memory, only on disk.
    expect((await http("POST", `${emu.url}/_emulator/journal/compact`, {})).status).toBe(200);
    const journal = readFileSync(data, "utf8");
    const archive = readFileSync(`${data}.runs`, "utf8");
    for (const id of ids.slice(0, 3)) {
      expect(journal).not.toContain(id);
      expect(archive).toContain(id);
    }
    for (const id of ids.slice(3)) expect(journal).toContain(id);
    await emu.close();

    emu = await startEmulator({ data, clock: "virtual", finishedRunsInMemory: 2 });
    try {
      expect((await readsEverywhere(emu, auth, ids[0] as string)).sort()).toEqual([...ids].sort());
      // The idempotency key of a run on disk still returns that run.
      const again = await http(
        "POST",
        `${emu.url}/production/api/v1/automations/${CRM}/runs`,
        { inputs: { contacts: [] }, metadata: { n: 0 } },
        { ...auth, "idempotency-key": "archive-0" },
      );
      expect(again.status).toBe(202);
      expect(again.body.run_id).toBe(ids[0]);
      // A reset forgets runs on disk too, and they stay forgotten after a restart.
      const reset = await http("POST", `${emu.url}/_emulator/environments/production/reset`, {});
      expect(reset.status).toBe(200);
    } finally {
      await emu.close();
    }
    emu = await startEmulator({ data, clock: "virtual", finishedRunsInMemory: 2 });
    try {
      const after = await http("GET", `${emu.url}/_emulator/environments/production/runs`);
      expect(after.body.runs).toEqual([]);
    } finally {
      await emu.close();
    }
  });
});

describe("a torn last line", () => {
  it("after a compaction names the dropped record and says it had been acknowledged", async () => {
    const data = await tmp();
    let emu = await startEmulator({ data, clock: "virtual" });
    const auth = await prepare(emu.url);
    const first = await launch(emu.url, auth, 0);
    const last = await launch(emu.url, auth, 1);
    await finishAll(emu.url);
    // The compaction (on start, or this one) writes the state: the snapshot ends with the last
    // run, acknowledged long ago.
    expect((await http("POST", `${emu.url}/_emulator/journal/compact`, {})).status).toBe(200);
    await emu.close();
    const text = readFileSync(data, "utf8");
    expect(text.startsWith('{"t":"compacted","bytes":')).toBe(true);
    const lines = text.trimEnd().split("\n");
    expect(lines.at(-1)).toContain(last);
    truncateSync(data, statSync(data).size - Math.floor((lines.at(-1) as string).length / 2));

    const said: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      said.push(String(chunk));
      return true;
    });
    emu = await startEmulator({ data, clock: "virtual" });
    vi.restoreAllMocks();
    try {
      const report = said.join("");
      expect(report).toContain(`a \`run\` record (run_id ${last})`);
      expect(report).toMatch(/it HAD been acknowledged/);
      const base = `${emu.url}/production/api/v1`;
      expect((await http("GET", `${base}/runs/${first}`, undefined, auth)).status).toBe(200);
      expect((await http("GET", `${base}/runs/${last}`, undefined, auth)).status).toBe(404);
    } finally {
      await emu.close();
    }
  });
});

describe("kill -9 with finished runs on disk", { timeout: 120_000 }, () => {
  it("loses nothing acknowledged: runs on disk, in memory, and the launch just answered", async () => {
    expect(existsSync(BIN), `${BIN} must be built`).toBe(true);
    const data = await tmp();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const args = ["--data", data, "--clock", "virtual", "--finished-runs-in-memory", "1"];
    let child = await Child.start(port, args);
    children.push(child);
    const auth = await prepare(url);
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) ids.push(await launch(url, auth, n));
    await finishAll(url);
    ids.push(await launch(url, auth, 3)); // acknowledged, then the process dies at once
    await child.kill9();
    child = await Child.start(port, args);
    children.push(child);
    for (const [n, id] of ids.entries()) {
      const got = await http("GET", `${url}/production/api/v1/runs/${id}`, undefined, auth);
      expect(got.status, `run ${n} ${id}: ${got.text}`).toBe(200);
      expect(got.body.status).toBe(n < 3 ? "succeeded" : "queued");
      const again = await http(
        "POST",
        `${url}/production/api/v1/automations/${CRM}/runs`,
        { inputs: { contacts: [] }, metadata: { n } },
        { ...auth, "idempotency-key": `archive-${n}` },
      );
      expect(again.body.run_id).toBe(id);
    }
    await child.kill9();
  });
});
