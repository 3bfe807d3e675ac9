// Durability: nothing acknowledged with 202 is ever lost, whatever kill -9 leaves behind.
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { http } from "../conformance/support.js";
import { BIN, Child, freePort } from "./child.js";

const CRM = "wf_P9hHc2Vb";
const children: Child[] = [];
const dirs: string[] = [];

afterAll(async () => {
  for (const c of children) await c.kill9();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function start(port: number, data: string): Promise<Child> {
  const c = await Child.start(port, ["--data", data, "--clock", "virtual"]);
  children.push(c);
  return c;
}

async function setup() {
  expect(existsSync(BIN), `${BIN} must be built`).toBe(true);
  const dir = await mkdtemp(join(tmpdir(), "wfr-durable-"));
  dirs.push(dir);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  return { data: join(dir, "journal.jsonl"), port, url, base: `${url}/production/api/v1` };
}

const body = (i: number) => ({ inputs: { contacts: [] }, metadata: { n: i } });

describe("kill -9 and restart", { timeout: 300_000 }, () => {
  it("every 202 of a burst of keyed launches survives a kill -9 mid-burst; resends return the same run", async () => {
    const { data, port, url, base } = await setup();
    let child = await start(port, data);
    const key = await http("POST", `${url}/_emulator/keys`, { environment: "production" });
    expect(key.status).toBe(201);
    const auth = { authorization: `Bearer ${key.body.token}` };
    const acked = new Map<number, string>();
    let next = 0;
    let killed = false;
    const worker = async () => {
      while (next < 400) {
        const i = next++;
        try {
          const r = await http("POST", `${base}/automations/${CRM}/runs`, body(i), {
            ...auth,
            "idempotency-key": `burst-${i}`,
          });
          if (r.status === 202) acked.set(i, r.body.run_id);
        } catch {
          /* the server died under this request: it was not acknowledged */
        }
        if (!killed && acked.size >= 40) {
          killed = true;
          await child.kill9();
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    expect(killed).toBe(true);
    expect(acked.size).toBeGreaterThanOrEqual(40);

    child = await start(port, data);
    for (const [i, runId] of acked) {
      const got = await http("GET", `${base}/runs/${runId}`, undefined, auth);
      expect(got.status, `run ${i} ${runId} after restart: ${got.text}`).toBe(200);
      const again = await http("POST", `${base}/automations/${CRM}/runs`, body(i), {
        ...auth,
        "idempotency-key": `burst-${i}`,
      });
      expect(again.status).toBe(202);
      expect(again.body.run_id, `resend of burst-${i}`).toBe(runId);
    }
    // And again: what was appended after the restart is readable too.
    await child.kill9();
    child = await start(port, data);
    for (const [i, runId] of acked) {
      const again = await http("POST", `${base}/automations/${CRM}/runs`, body(i), {
        ...auth,
        "idempotency-key": `burst-${i}`,
      });
      expect(again.body.run_id, `resend of burst-${i} after the second restart`).toBe(runId);
    }
    await child.kill9();
  });

  it("a torn tail is cut off and reported; launches after it survive the next restart", async () => {
    const { data, port, url, base } = await setup();
    let child = await start(port, data);
    const key = await http("POST", `${url}/_emulator/keys`, { environment: "production" });
    const auth = { authorization: `Bearer ${key.body.token}` };
    const launch = (i: number) =>
      http("POST", `${base}/automations/${CRM}/runs`, body(i), {
        ...auth,
        "idempotency-key": `torn-${i}`,
      });
    const ids = new Map<number, string>();
    for (let i = 0; i < 3; i++) ids.set(i, (await launch(i)).body.run_id);
    await child.kill9();
    // What a kill -9 in the middle of writeSync leaves: the start of a record, no newline.
    appendFileSync(data, '{"t":"run","run":{"run_id":"run_torn","environment":"produ');

    child = await start(port, data);
    const recoveryReport = child.output;
    for (let i = 3; i < 6; i++) {
      const r = await launch(i);
      expect(r.status).toBe(202);
      ids.set(i, r.body.run_id);
    }
    await child.kill9();
    child = await start(port, data);
    expect(child.output).not.toMatch(/torn/);
    for (const [i, runId] of ids) {
      const again = await launch(i);
      expect(again.status, again.text).toBe(202);
      expect(again.body.run_id, `torn-${i}`).toBe(runId);
    }
    expect(readFileSync(data, "utf8")).not.toContain("run_torn");
    expect(recoveryReport).toMatch(/dropped a torn last line \(line \d+, \d+ bytes\)/);
    await child.kill9();
  });

  it("a corrupt line in the middle stops start-up with an error naming the line", async () => {
    const { data, port, url, base } = await setup();
    const child = await start(port, data);
    const key = await http("POST", `${url}/_emulator/keys`, { environment: "production" });
    await http("POST", `${base}/automations/${CRM}/runs`, body(1), {
      authorization: `Bearer ${key.body.token}`,
    });
    await child.kill9();
    const lines = readFileSync(data, "utf8").split("\n");
    appendFileSync(data, '}garbage{\n{"t":"clock","now":0}\n');
    const bad = lines.filter((l) => l !== "").length + 1;
    await expect(start(port, data)).rejects.toThrow(new RegExp(`line ${bad}:`));
  });
});
