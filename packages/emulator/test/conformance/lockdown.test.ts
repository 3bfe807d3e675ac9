// Safety: Host check (DNS rebinding), no cross-site admin requests, --admin-token,
// API keys never in a query (any route), keys stored hashed, idempotency key in code points.
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../src/index.js";
import { http } from "./support.js";

/** A raw request, so the Host header can be anything (fetch does not allow setting it). */
function raw(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = "";
      res.on("data", (d) => {
        text += d;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

let emu: RunningEmulator;
let dir: string;
const TOKEN = "admin-secret-for-tests";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "wfr-lockdown-"));
  emu = await startEmulator({ data: join(dir, "j.jsonl"), clock: "virtual" });
});
afterAll(async () => {
  await emu.close();
  await rm(dir, { recursive: true, force: true });
});

describe("Host header (DNS rebinding)", () => {
  it("refuses a Host that names no listening address, on the API and the admin API", async () => {
    for (const path of ["/_emulator/environments", "/production/api/v1/runs/run_x"]) {
      const r = await raw(`${emu.url}${path}`, "GET", { host: `attacker.example:${emu.port}` });
      expect(r.status, path).toBe(421);
      expect(r.text).toContain("HOST_NOT_ALLOWED");
    }
  });
  it("accepts localhost and the listening address", async () => {
    for (const host of [`localhost:${emu.port}`, `127.0.0.1:${emu.port}`]) {
      const r = await raw(`${emu.url}/_emulator/environments`, "GET", { host });
      expect(r.status, host).toBe(200);
    }
  });
});

describe("admin API from browsers", () => {
  it("refuses a cross-origin text/plain POST that would mint a key", async () => {
    const body = JSON.stringify({ environment: "production" });
    const plain = await raw(
      `${emu.url}/_emulator/keys`,
      "POST",
      { "content-type": "text/plain" },
      body,
    );
    expect(plain.status).toBe(415);
    const origin = await raw(
      `${emu.url}/_emulator/keys`,
      "POST",
      { "content-type": "application/json", origin: "http://attacker.example" },
      body,
    );
    expect(origin.status).toBe(403);
    const site = await raw(`${emu.url}/_emulator/environments/production/runs`, "GET", {
      "sec-fetch-site": "cross-site",
    });
    expect(site.status).toBe(403);
    expect(site.text).toContain("CROSS_SITE_ADMIN_REQUEST");
  });
  it("accepts a same-origin browser request", async () => {
    const r = await raw(`${emu.url}/_emulator/environments`, "GET", {
      origin: emu.url,
      "sec-fetch-site": "same-origin",
    });
    expect(r.status).toBe(200);
  });
});

describe("--admin-token", () => {
  it("needs the token as a bearer token on every admin route", async () => {
    const locked = await startEmulator({ adminToken: TOKEN });
    try {
      const none = await http("POST", `${locked.url}/_emulator/keys`, {
        environment: "production",
      });
      expect(none.status).toBe(401);
      expect(none.text).not.toContain(TOKEN);
      const wrong = await http("GET", `${locked.url}/_emulator/environments`, undefined, {
        authorization: "Bearer nope",
      });
      expect(wrong.status).toBe(401);
      const ok = await http(
        "POST",
        `${locked.url}/_emulator/keys`,
        { environment: "production" },
        {
          authorization: `Bearer ${TOKEN}`,
        },
      );
      expect(ok.status).toBe(201);
    } finally {
      await locked.close();
    }
  });
});

describe("API keys", () => {
  it("are refused in any query parameter on every route, and stored only hashed", async () => {
    const key = await http("POST", `${emu.url}/_emulator/keys`, { environment: "production" });
    const token = key.body.token as string;
    for (const path of [
      `/_emulator/environments?x=${token}`,
      `/production/api-docs/openapi.json?q=${token}`,
      `/production/api/v1/runs/run_x?filter=${token}`,
      `/nowhere?k=${token}`,
    ]) {
      const r = await http("GET", `${emu.url}${path}`);
      expect(r.status, path).toBe(400);
      expect(r.body.code).toBe("API_KEY_IN_QUERY");
    }
    expect(readFileSync(join(dir, "j.jsonl"), "utf8")).not.toContain(token);
  });
});

describe("Idempotency-Key length", () => {
  it("is counted in characters: 200 emoji are accepted, 201 are not", async () => {
    const key = await http("POST", `${emu.url}/_emulator/keys`, { environment: "production" });
    const auth = { authorization: `Bearer ${key.body.token}` };
    const launch = (k: string) =>
      http(
        "POST",
        `${emu.url}/production/api/v1/automations/wf_P9hHc2Vb/runs`,
        {
          inputs: { contacts: [] },
          idempotency_key: k,
        },
        auth,
      );
    expect((await launch("😀".repeat(200))).status).toBe(202);
    const over = await launch("😀".repeat(201));
    expect(over.status).toBe(400);
    expect(over.body.code).toBe("INVALID_IDEMPOTENCY_KEY");
  });
});
