// The desk as a hostile client on loopback sees it: forged callbacks, DNS rebinding, password
// guessing, oversized bodies, odd Origins, file names and download URLs. Each case failed on the
// desk before it was made secure by default; the outside judges are the `standardwebhooks`
// library (signing a genuine delivery) and the `content-disposition` parser (RFC 6266/5987).

import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningEmulator, startEmulator } from "@wfr/emulator";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningDesk, startDesk } from "../src/desk.js";
import { contentDisposition, LoginThrottle } from "../src/security.js";
import { INVOICE_INTAKE_ID, prepareEmulator } from "./support/emulator-setup.js";

const parseDisposition = createRequire(import.meta.url)("content-disposition").parse as (
  header: string,
) => { type: string; parameters: Record<string, string> };

const SECRET = `whsec_${Buffer.from("a secret of the desk's tests, 32b").toString("base64")}`;
let emulator: RunningEmulator;
let apiKey: string;
let desk: RunningDesk;
let now = 1_000_000;
const dirs: string[] = [];

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, webhookSecret: SECRET });
  ({ apiKey } = await prepareEmulator(emulator.url));
  const dir = mkdtempSync(join(tmpdir(), "desk-security-"));
  dirs.push(dir);
  desk = await startDesk({
    baseUrl: `${emulator.url}/production/api/v1`,
    apiKey,
    pgliteDir: dir,
    operator: { username: "operator", password: "correct horse" },
    webhookSecret: SECRET,
    loginThrottle: new LoginThrottle({ now: () => now }),
    pollIntervalMs: 60_000,
    log: () => {},
  });
}, 120_000);

afterAll(async () => {
  await desk?.close();
  await emulator?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A raw HTTP request, so Host and Origin can be anything an attacker sends. */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? "GET", headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const hostOf = () => new URL(desk.url).host;

async function signIn(password = "correct horse") {
  return raw(`${desk.url}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: desk.url },
    body: form({ username: "operator", password }),
  });
}

async function launchedRunId(): Promise<string> {
  const answer = await fetch(
    `${emulator.url}/production/api/v1/automations/${INVOICE_INTAKE_ID}/runs`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        inputs: { vendor_name: "A", amount: 1, invoice_pdf: { attachment_id: "a1" } },
        input_context: {
          attachments: [
            { id: "a1", filename: "i.pdf", mimeType: "application/pdf", base64: "JVBERg==" },
          ],
        },
      }),
    },
  );
  return ((await answer.json()) as { run_id: string }).run_id;
}

describe("callbacks with a webhook secret", () => {
  it("refuses unsigned and wrongly signed deliveries; a genuine one of the same event is still acted on once", async () => {
    const runId = await launchedRunId();
    // The scenario's checkpoint: the receiver acts only on what the API confirms.
    for (;;) {
      const run = await fetch(`${emulator.url}/production/api/v1/runs/${runId}`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      if (((await run.json()) as { status: string }).status === "waiting_for_human_live") break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const body = JSON.stringify({
      event_id: "evt_forged_1",
      type: "workflow.run.requires_action",
      run: { run_id: runId, status: "running" },
    });
    const post = (headers: Record<string, string>) =>
      raw(`${desk.url}/callbacks/wfr`, {
        method: "POST",
        headers: { "content-type": "application/json", host: hostOf(), ...headers },
        body,
      });
    for (let i = 0; i < 5; i += 1) expect((await post({})).status).toBe(401);
    const stamp = new Date();
    const other = new Webhook(
      `whsec_${Buffer.from("somebody else's secret, 32 bytes").toString("base64")}`,
    );
    const wrong = await post({
      "webhook-id": "evt_forged_1",
      "webhook-timestamp": String(Math.floor(stamp.getTime() / 1000)),
      "webhook-signature": other.sign("evt_forged_1", stamp, body),
    });
    expect(wrong.status).toBe(401);

    const genuine = await post({
      "webhook-id": "evt_forged_1",
      "webhook-timestamp": String(Math.floor(stamp.getTime() / 1000)),
      "webhook-signature": new Webhook(SECRET).sign("evt_forged_1", stamp, body),
    });
    expect(genuine.status, genuine.body).toBe(200);
    expect(JSON.parse(genuine.body)).toMatchObject({ received: true, acted: true });
  });
});

describe("requests", () => {
  it("answers only to its own host names (DNS rebinding): 421", async () => {
    const rebound = await raw(`${desk.url}/login`, {
      method: "POST",
      headers: {
        host: "rebind.attacker.example",
        origin: "http://rebind.attacker.example",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: form({ username: "operator", password: "correct horse" }),
    });
    expect(rebound.status).toBe(421);
    expect(rebound.headers["set-cookie"]).toBeUndefined();
    expect((await raw(`${desk.url}/login`, { headers: { host: "evil.example" } })).status).toBe(
      421,
    );
  });

  it("refuses `Origin: null` and a malformed Origin with 403, not 500", async () => {
    for (const origin of ["null", "http://[bad", "not a url", "http://127.0.0.1:1"]) {
      const r = await raw(`${desk.url}/login`, {
        method: "POST",
        headers: { host: hostOf(), origin, "content-type": "application/x-www-form-urlencoded" },
        body: form({ username: "operator", password: "correct horse" }),
      });
      expect(r.status, origin).toBe(403);
    }
  });

  it("refuses an oversized body before reading it (413), on the unauthenticated login too", async () => {
    // 256 MiB announced, 1 KiB sent: the answer comes without the desk waiting for (or parsing) the rest.
    for (const path of ["/login", "/callbacks/wfr"]) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          `${desk.url}${path}`,
          {
            method: "POST",
            headers: {
              host: hostOf(),
              origin: desk.url,
              "content-type": "application/x-www-form-urlencoded",
              "content-length": String(256 * 1024 * 1024),
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
            req.destroy();
          },
        );
        req.on("error", (error) => (req.destroyed ? undefined : reject(error)));
        req.write(Buffer.alloc(1024, "a"));
      });
      expect(status, path).toBe(413);
    }
  });
});

describe("bodies without a declared length", () => {
  it("refuses an oversized chunked sign-in body (413) while it streams in", async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${desk.url}/login`,
        {
          method: "POST",
          headers: {
            host: hostOf(),
            origin: desk.url,
            "content-type": "application/x-www-form-urlencoded",
            "transfer-encoding": "chunked",
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
          req.destroy();
        },
      );
      req.on("error", (error) => (req.destroyed ? undefined : reject(error)));
      // 64 KiB at a time, until the desk answers (it must, long before 256 MiB).
      const chunk = Buffer.alloc(64 * 1024, "a");
      let sent = 0;
      const pump = () => {
        while (!req.destroyed && sent < 256 * 1024 * 1024) {
          sent += chunk.length;
          if (!req.write(chunk)) return req.once("drain", pump);
        }
      };
      pump();
    });
    expect(status).toBe(413);
  });
});

describe("sign-in", () => {
  it("locks an account with backoff after repeated failures, even for the right password, until the lock ends", async () => {
    now += 3_600_000;
    for (let i = 0; i < 5; i += 1) expect((await signIn("wrong")).status).toBe(401);
    expect((await signIn("wrong")).status).toBe(401); // the 6th failure locks for 1 s
    const locked = await signIn();
    expect(locked.status).toBe(429);
    expect(locked.headers["retry-after"]).toBe("1");
    now += 1_001;
    const ok = await signIn();
    expect(ok.status).toBe(303);
  });

  it("locks an address spraying passwords over many names, and not the other addresses", async () => {
    const throttle = new LoginThrottle({ now: () => 0 });
    for (let i = 0; i < 20; i += 1) throttle.failed(`name-${i}`, "10.0.0.7");
    expect(throttle.retryAfterMs("anyone", "10.0.0.7")).toBe(0);
    throttle.failed("name-20", "10.0.0.7");
    expect(throttle.retryAfterMs("anyone", "10.0.0.7")).toBe(1_000);
    expect(throttle.retryAfterMs("anyone", "10.0.0.8")).toBe(0);
    throttle.failed("name-21", "10.0.0.7");
    expect(throttle.retryAfterMs("anyone", "10.0.0.7")).toBe(2_000);
  });
});

describe("Content-Disposition", () => {
  it.each([
    "Rechnung 10€.pdf",
    "é.pdf",
    'quote"d.pdf',
    "back\\slash.pdf",
    "line\r\nbreak.pdf",
    "plain.pdf",
    "日本語の請求書.pdf",
  ])("%s survives a round trip through an RFC 6266 parser", (name) => {
    const header = contentDisposition(name);
    expect(header).not.toMatch(/[\r\n]/);
    expect([...header].every((c) => c.charCodeAt(0) < 128)).toBe(true);
    const parsed = parseDisposition(header);
    expect(parsed.type).toBe("attachment");
    expect(parsed.parameters.filename).toBe(name);
  });
});

describe("file outputs", () => {
  it("a result pointing the download at the emulator's admin API is refused, not streamed to the operator", async () => {
    const admin = `${emulator.url}/_emulator/environments/production/runs`;
    const put = await fetch(
      `${emulator.url}/_emulator/environments/production/workflows/${INVOICE_INTAKE_ID}/scenario`,
      {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          steps: [
            {
              succeed: {
                outputs: {
                  invoice_id: "INV-SSRF",
                  total: 1,
                  status: "booked",
                  receipt: {
                    download_url: admin,
                    filename: "r.pdf",
                    mime_type: "application/pdf",
                    size_bytes: 1,
                    expires_at: null,
                  },
                },
              },
            },
          ],
          queue_ms: 10,
          start_ms: 10,
        }),
      },
    );
    expect(put.ok).toBe(true);
    now += 3_600_000;
    const signedIn = await signIn();
    const cookie = String(signedIn.headers["set-cookie"]).split(";")[0] as string;
    const newPage = await (await fetch(`${desk.url}/invoices/new`, { headers: { cookie } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(newPage)?.[1] as string;
    const upload = new FormData();
    upload.set("csrf", csrf);
    upload.set("invoice_id", "INV-SSRF");
    upload.set("vendor_name", "Mallory");
    upload.set("amount", "1");
    upload.set("pdf", new Blob(["%PDF-1.4\n"], { type: "application/pdf" }), "i.pdf");
    const created = await fetch(`${desk.url}/invoices`, {
      method: "POST",
      headers: { cookie },
      body: upload,
      redirect: "manual",
    });
    expect(created.status).toBe(303);
    let file: Response | undefined;
    for (let i = 0; i < 200; i += 1) {
      await fetch(`${desk.url}/invoices/INV-SSRF/refresh`, {
        method: "POST",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: form({ csrf }),
        redirect: "manual",
      });
      file = await fetch(`${desk.url}/invoices/INV-SSRF/files/receipt`, { headers: { cookie } });
      if (file.status !== 404) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(file?.status).toBe(502);
    expect(file?.headers.get("x-content-type-options")).toBe("nosniff");
    const text = (await file?.text()) ?? "";
    expect(text).toContain("points outside the environment");
    expect(text).not.toContain("run_");
  }, 60_000);
});

describe("a desk served over https by a proxy", () => {
  it("sets a Secure session cookie, answers to its public host, and warns loudly without a webhook secret", async () => {
    const dir = mkdtempSync(join(tmpdir(), "desk-https-"));
    dirs.push(dir);
    const lines: string[] = [];
    const proxied = await startDesk({
      baseUrl: "https://api.workflows.example.test/api/v1",
      apiKey: "wfr_test_not_used",
      pgliteDir: dir,
      operator: { username: "operator", password: "correct horse" },
      callbackUrl: "https://desk.example.test/callbacks/wfr",
      publicUrl: "https://desk.example.test",
      pollIntervalMs: 60_000,
      log: (line) => lines.push(line),
    });
    try {
      expect(lines.join("\n")).toContain("WARNING: callbacks are accepted unsigned");
      const r = await raw(`${proxied.url}/login`, {
        method: "POST",
        headers: {
          host: "desk.example.test",
          origin: "https://desk.example.test",
          "content-type": "application/x-www-form-urlencoded",
        },
        body: form({ username: "operator", password: "correct horse" }),
      });
      expect(r.status).toBe(303);
      expect(String(r.headers["set-cookie"])).toMatch(/; Secure/i);
      // The plain-http origin of the same host is another site now.
      const downgraded = await raw(`${proxied.url}/login`, {
        method: "POST",
        headers: {
          host: "desk.example.test",
          origin: "http://desk.example.test",
          "content-type": "application/x-www-form-urlencoded",
        },
        body: form({ username: "operator", password: "correct horse" }),
      });
      expect(downgraded.status).toBe(403);
    } finally {
      await proxied.close();
    }
  }, 120_000);
});
