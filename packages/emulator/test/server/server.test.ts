import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, request } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, describe, expect, it } from "vitest";
import { emitDefinition } from "../../src/definition/definition-emit.js";
import { readDefinition } from "../../src/definition/definition-read.js";
import { signWebhook } from "../../src/engine/callbacks.js";
import { startEmulator } from "../../src/index.js";

// The repository's committed downloads of the emulator's definitions (schemas/<env>), which
// differ from the design's examples only by the declared responses (test/engine/catalog.test.ts).
const EXAMPLES = fileURLToPath(new URL("../../../../schemas", import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), "wfr-emu-unit-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type Emu = Awaited<ReturnType<typeof startEmulator>>;

async function key(emu: Emu, env = "production", workspace?: string): Promise<string> {
  const r = await fetch(`${emu.url}/_emulator/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      environment: env,
      scopes: ["workflows:run", "runs:read"],
      ...(workspace ? { workspace } : {}),
    }),
  });
  expect(r.status).toBe(201);
  return ((await r.json()) as { token: string }).token;
}

const portal = { inputs: { portal_url: "https://portal.example.com", account_label: "main" } };

async function launch(
  emu: Emu,
  token: string,
  wf: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const r = await fetch(`${emu.url}/production/api/v1/automations/${wf}/runs`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: test inspects JSON
  return { status: r.status, body: (await r.json()) as any, headers: r.headers };
}

async function get(emu: Emu, token: string, path: string) {
  const r = await fetch(`${emu.url}/production/api/v1${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  // biome-ignore lint/suspicious/noExplicitAny: test inspects JSON
  return { status: r.status, body: (await r.json()) as any };
}

const admin = (emu: Emu, method: string, path: string, body?: unknown) =>
  fetch(`${emu.url}/_emulator${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe("definition emit and read", () => {
  it("emits the example definitions exactly (apart from servers) from what it reads", () => {
    for (const env of ["sample", "sample-staging"]) {
      const doc = JSON.parse(readFileSync(join(EXAMPLES, env, "openapi.json"), "utf8"));
      const emitted = emitDefinition(readDefinition(doc, env), doc.servers[0].url);
      expect(emitted).toEqual(doc);
    }
  });

  it("serves a definition that passes the OpenAPI validator and round-trips through twin mode", async () => {
    const emu = await startEmulator({ clock: "virtual" });
    try {
      const json = await (await fetch(`${emu.url}/production/api-docs/openapi.json`)).json();
      const yaml = await (await fetch(`${emu.url}/production/api-docs/openapi.yaml`)).text();
      const res = await new Validator().validate(json as Parameters<Validator["validate"]>[0]);
      expect(res.valid, JSON.stringify(res.errors)).toBe(true);
      expect((json as { servers: { url: string }[] }).servers[0]?.url).toBe(
        `${emu.url}/production/api/v1`,
      );
      const yres = await new Validator().validate(yaml);
      expect(yres.valid).toBe(true);
      const dir = join(tmp, "twin");
      mkdirSync(join(dir, "production"), { recursive: true });
      writeFileSync(join(dir, "production", "openapi.yaml"), yaml);
      const twin = await startEmulator({ clock: "virtual", fromSchemas: dir });
      try {
        const twinDoc = (await (
          await fetch(`${twin.url}/production/api-docs/openapi.json`)
        ).json()) as Record<string, unknown>;
        const strip = (d: Record<string, unknown>) => ({ ...d, servers: [] });
        expect(strip(twinDoc)).toEqual(strip(json as Record<string, unknown>));
        const t = await key(twin);
        const r = await launch(twin, t, "wf_P3mKs81a", portal);
        expect(r.status).toBe(202);
      } finally {
        await twin.close();
      }
    } finally {
      await emu.close();
    }
  });
});

describe("http edge", () => {
  it("rejects an oversized chunked body with 413 BODY_TOO_LARGE while streaming", async () => {
    const emu = await startEmulator({ clock: "virtual" });
    try {
      const token = await key(emu);
      const u = new URL(`${emu.url}/production/api/v1/automations/wf_P3mKs81a/runs`);
      const result = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          {
            host: u.hostname,
            port: u.port,
            path: u.pathname,
            method: "POST",
            headers: {
              authorization: `Bearer ${token}`,
              "content-type": "application/json",
              "transfer-encoding": "chunked",
            },
          },
          (res: IncomingMessage) => {
            let body = "";
            res.on("data", (c) => {
              body += c;
            });
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on("error", reject);
        const chunk = Buffer.alloc(1 << 20, 0x20);
        let sent = 0;
        const pump = () => {
          while (sent < 40) {
            sent++;
            if (!req.write(chunk)) {
              req.once("drain", pump);
              return;
            }
          }
          req.end();
        };
        pump();
      });
      expect(result.status).toBe(413);
      expect(JSON.parse(result.body)).toMatchObject({ code: "BODY_TOO_LARGE" });
      expect(
        (await admin(emu, "GET", "/environments/production/runs").then((r) => r.json())) as object,
      ).toEqual({ runs: [] });
    } finally {
      await emu.close();
    }
  });

  it("keeps keys out of URLs, enforces auth and isolation, answers CORS only for permitted origins", async () => {
    const emu = await startEmulator({ clock: "virtual", corsOrigins: ["https://app.example.com"] });
    try {
      const token = await key(emu);
      const other = await key(emu, "production", "ws_other");
      expect((await get(emu, token, "/runs/x?api_key=abc")).body.code).toBe("API_KEY_IN_QUERY");
      expect((await get(emu, "bogus", "/runs/x")).status).toBe(401);
      const r = await launch(emu, token, "wf_P3mKs81a", portal);
      expect((await get(emu, other, `/runs/${r.body.run_id}`)).body.code).toBe("RUN_NOT_FOUND");
      expect((await launch(emu, other, "wf_P3mKs81a", portal)).body.code).toBe(
        "WORKFLOW_NOT_FOUND",
      );
      const pre = await fetch(`${emu.url}/production/api/v1/automations/wf_P3mKs81a/runs`, {
        method: "OPTIONS",
        headers: {
          origin: "https://app.example.com",
          "access-control-request-headers": "idempotency-key",
        },
      });
      expect(pre.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
      expect(pre.headers.get("access-control-allow-headers")).toMatch(/Idempotency-Key/);
      const bad = await fetch(`${emu.url}/production/api/v1/runs/x`, {
        method: "OPTIONS",
        headers: { origin: "https://evil.example" },
      });
      expect(bad.headers.get("access-control-allow-origin")).toBeNull();
      const live = await fetch(
        `${r.body.status_url.replace("/api/v1/runs/", "/portal/runs/")}/live`,
        {
          headers: { authorization: `Bearer ${token}` },
        },
      );
      expect(live.status).toBe(401);
      const ps = (await (
        await admin(emu, "POST", "/portal-sessions", { environment: "production" })
      ).json()) as {
        cookie: string;
      };
      const opened = await fetch(live.url, { headers: { cookie: ps.cookie } });
      expect(opened.status).toBe(200);
      expect(await opened.text()).toContain(r.body.run_id);
    } finally {
      await emu.close();
    }
  });

  it("sends a distinct X-Request-Id on every answer, errors and 202s included", async () => {
    const emu = await startEmulator({});
    try {
      const token = await key(emu);
      const launched = await launch(emu, token, "wf_P3mKs81a", portal);
      const missing = await fetch(`${emu.url}/production/api/v1/runs/run_missing`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const ids = [launched.headers.get("x-request-id"), missing.headers.get("x-request-id")];
      expect(missing.status).toBe(404);
      for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{20}$/);
      expect(ids[0]).not.toBe(ids[1]);
    } finally {
      await emu.close();
    }
  });

  it("turns the admin API off", async () => {
    const emu = await startEmulator({ admin: false });
    try {
      const r = await admin(emu, "POST", "/keys", { environment: "production" });
      expect(r.status).toBe(404);
      expect(((await r.json()) as { code: string }).code).toBe("NOT_FOUND");
    } finally {
      await emu.close();
    }
  });
});

describe("callbacks", () => {
  it("delivers requires_action and completed, signed, retrying 5xx but not 4xx", async () => {
    const seen: { headers: IncomingMessage["headers"]; body: string }[] = [];
    let failFirst = true;
    const receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => {
        seen.push({ headers: req.headers, body });
        if (failFirst) {
          failFirst = false;
          res.writeHead(503).end();
        } else res.writeHead(200).end("ok");
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    const port = (receiver.address() as AddressInfo).port;
    const secret = `whsec_${Buffer.from("k3y").toString("base64")}`;
    const emu = await startEmulator({
      clock: "virtual",
      allowLocalCallbacks: true,
      webhookSecret: secret,
    });
    try {
      const token = await key(emu);
      await admin(emu, "PUT", "/environments/production/workflows/wf_P3mKs81a/scenario", {
        steps: [
          { human: { kind: "approval", reason: "check", expires_in_ms: 1000 } },
          { succeed: {} },
        ],
      });
      const r = await launch(emu, token, "wf_P3mKs81a", {
        ...portal,
        metadata: { order: "o-1" },
        callback_url: `http://127.0.0.1:${port}/hook`,
      });
      await admin(emu, "POST", "/clock/advance", { ms: 200 });
      const run = (await get(emu, token, `/runs/${r.body.run_id}`)).body;
      await fetch(`${emu.url}/production/api/v1/runs/${r.body.run_id}/human-input`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ checkpoint_id: run.human_action.checkpoint_id, response: "yes" }),
      });
      await admin(emu, "POST", "/clock/advance", { ms: 500 });
      // A generous bound (a loaded machine delivers late), never a timed assertion.
      const deadline = Date.now() + 25_000; // inside the file's 30 s test timeout
      while (seen.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const types = seen.map((s) => JSON.parse(s.body).type);
      expect([...types].sort()).toEqual([
        "workflow.run.completed",
        "workflow.run.requires_action",
        "workflow.run.requires_action",
      ]);
      const doneIdx = types.indexOf("workflow.run.completed");
      const done = JSON.parse(seen[doneIdx]?.body ?? "{}");
      expect(done.run.metadata).toEqual({ order: "o-1" });
      expect(done.result.status).toBe("succeeded");
      const h = seen[doneIdx]?.headers ?? {};
      expect(h["webhook-id"]).toBe(done.event_id);
      expect(h["webhook-signature"]).toBe(
        signWebhook(
          secret,
          done.event_id,
          Number(h["webhook-timestamp"]),
          seen[doneIdx]?.body ?? "",
        ),
      );
      const deliveries = (
        (await (await admin(emu, "GET", "/environments/production/callbacks")).json()) as {
          deliveries: { status: number }[];
        }
      ).deliveries;
      expect(deliveries.map((d) => d.status).sort()).toEqual([200, 200, 503]);
    } finally {
      await emu.close();
      receiver.close();
    }
  });
});

describe("persistence", () => {
  it("replays the journal: keys, runs and answers survive a restart and runs continue", async () => {
    const data = join(tmp, "journal.jsonl");
    const first = await startEmulator({ clock: "virtual", data });
    const token = await key(first);
    await admin(first, "PUT", "/environments/production/workflows/wf_P3mKs81a/scenario", {
      steps: [
        { human: { kind: "approval", reason: "check", expires_in_ms: 60_000 } },
        { wait_ms: 1000 },
        { succeed: {} },
      ],
    });
    const r = await launch(first, token, "wf_P3mKs81a", portal, { "idempotency-key": "persist-1" });
    await admin(first, "POST", "/clock/advance", { ms: 200 });
    const waiting = (await get(first, token, `/runs/${r.body.run_id}`)).body;
    expect(waiting.status).toBe("waiting_for_human_live");
    await first.close();

    const second = await startEmulator({ clock: "virtual", data });
    try {
      const again = await get(second, token, `/runs/${r.body.run_id}`);
      expect(again.body.status).toBe("waiting_for_human_live");
      const replay = await launch(second, token, "wf_P3mKs81a", portal, {
        "idempotency-key": "persist-1",
      });
      expect(replay.body.run_id).toBe(r.body.run_id);
      const ans = await fetch(`${second.url}/production/api/v1/runs/${r.body.run_id}/human-input`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ checkpoint_id: waiting.human_action.checkpoint_id, response: "ok" }),
      });
      expect(ans.status).toBe(202);
      await admin(second, "POST", "/clock/advance", { ms: 2000 });
      expect((await get(second, token, `/runs/${r.body.run_id}/result`)).status).toBe(200);
    } finally {
      await second.close();
    }
  });
});
