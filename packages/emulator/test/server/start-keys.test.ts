// The keys printed at start (start-keys.ts): made once per environment; with a journal, the
// same tokens on every start until one is revoked.
import { appendFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tokenHash } from "../../src/access/credentials.js";
import { launchEmulator } from "../../src/index.js";
import { startKeysFile } from "../../src/server/start-keys.js";

const dir = mkdtempSync(join(tmpdir(), "wfr-start-keys-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The keys of one start with `data`, and whether each works on its environment's API. */
async function oneStart(data: string | undefined) {
  const launched = await launchEmulator({ port: 0, ...(data ? { data } : {}) });
  try {
    const keys = launched.startKeys();
    expect(launched.startKeys()).toEqual(keys); // made once per start
    const works: boolean[] = [];
    for (const k of keys) {
      const base = launched.environments.find((e) => e.name === k.environment)?.baseUrl;
      const r = await fetch(`${base}/runs/run_none`, {
        headers: { authorization: `Bearer ${k.token}` },
      });
      works.push(r.status === 404); // authenticated: the run is simply not there
    }
    return { keys, works, url: launched.running.url };
  } finally {
    await launched.running.close();
  }
}

describe("startKeys", () => {
  it("gives every environment a working key with both scopes", async () => {
    const { keys, works } = await oneStart(undefined);
    expect(keys.map((k) => k.environment).sort()).toEqual(["production", "staging"]);
    expect(works).toEqual([true, true]);
  });

  it("keeps the same keys across restarts with the same data file, in a file only its owner reads", async () => {
    const data = join(dir, "same.jsonl");
    const first = await oneStart(data);
    const second = await oneStart(data);
    expect(second.keys).toEqual(first.keys);
    expect(second.works).toEqual([true, true]);
    expect(statSync(startKeysFile(data)).mode & 0o777).toBe(0o600);
  });

  it("makes new keys on every start without a data file", async () => {
    const a = await oneStart(undefined);
    const b = await oneStart(undefined);
    expect(b.keys[0]?.token).not.toBe(a.keys[0]?.token);
  });

  it("does not bring back a revoked key: a new one is made and kept", async () => {
    const data = join(dir, "revoked.jsonl");
    const first = await oneStart(data);
    const production = first.keys.find((k) => k.environment === "production")?.token as string;
    // Revoked as the web application's "Revoke" journals it.
    appendFileSync(
      data,
      `${JSON.stringify({ t: "key_revoked", token_sha256: tokenHash(production) })}\n`,
    );
    const second = await oneStart(data);
    const again = second.keys.find((k) => k.environment === "production")?.token;
    expect(again).not.toBe(production);
    expect(second.works).toEqual([true, true]);
    expect((await oneStart(data)).keys).toEqual(second.keys);
  });
});
