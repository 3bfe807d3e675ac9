// The desk killed with SIGKILL between each two steps of its upload path (invoice stored ->
// intent recorded -> intent sent -> run acknowledged -> run stored), then restarted: every
// invoice ends with exactly one run in the service, counted through the emulator. The real
// desk runs as a child process (dist/main.js) with its PGlite database in a temp folder.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningEmulator, startEmulator } from "@wfr/emulator";
import { freePort } from "@wfr/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CRASH_POINTS } from "../src/crash-points.js";

const MAIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const PDF = new Uint8Array(Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"));
const PASSWORD = "crash-test-password";

let emulator: RunningEmulator;
let apiKey: string;
let dataDir: string;

interface DeskProcess {
  child: ChildProcess;
  url: Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startDeskProcess(port: number, crashAt?: string): DeskProcess {
  const child = spawn(process.execPath, [MAIN], {
    cwd: dataDir, // PGlite lives in <cwd>/.wfr/invoice-desk: one database for every life
    env: {
      PATH: process.env.PATH ?? "",
      WFR_BASE_URL: `${emulator.url}/production/api/v1`,
      WFR_API_KEY: apiKey,
      PORT: String(port),
      DESK_OPERATOR: "operator",
      DESK_PASSWORD: PASSWORD,
      ...(crashAt ? { WFR_DESK_CRASH_AT: crashAt } : {}),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const url = new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (d) => {
      output += d;
      const m = /invoice desk: (http:\/\/\S+)/.exec(output);
      if (m?.[1]) resolve(m[1]);
    });
    child.stderr?.on("data", (d) => {
      output += d;
    });
    child.once("exit", () => reject(new Error(`desk exited before listening:\n${output}`)));
  });
  url.catch(() => undefined);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, url, exited };
}

/** Signs in and uploads an invoice the way the browser form does. */
async function upload(base: string, invoiceId: string): Promise<number> {
  const login = await fetch(`${base}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: `username=operator&password=${PASSWORD}`,
    redirect: "manual",
  });
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const form = await (await fetch(`${base}/invoices/new`, { headers: { cookie } })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(form)?.[1] ?? "";
  const body = new FormData();
  body.set("csrf", csrf);
  body.set("invoice_id", invoiceId);
  body.set("vendor_name", "Northwind Traders");
  body.set("amount", "1280.50");
  body.set("pdf", new Blob([PDF], { type: "application/pdf" }), `${invoiceId}.pdf`);
  try {
    const r = await fetch(`${base}/invoices`, {
      method: "POST",
      headers: { cookie },
      body,
      redirect: "manual",
    });
    return r.status;
  } catch {
    return 0; // the desk died mid-request: that is the point of the test
  }
}

/** Runs in the service per invoice id (metadata.invoice_id), through the emulator's run history. */
async function runsPerInvoice(): Promise<Map<string, number>> {
  const r = await fetch(`${emulator.url}/_emulator/environments/production/runs`);
  const { runs } = (await r.json()) as { runs: { metadata: { invoice_id?: string } }[] };
  const counts = new Map<string, number>();
  for (const run of runs) {
    const id = run.metadata.invoice_id;
    if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

async function until(pred: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error("condition not reached");
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "desk-crash-"));
  emulator = await startEmulator({ port: 0 });
  const k = await fetch(`${emulator.url}/_emulator/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ environment: "production" }),
  });
  apiKey = ((await k.json()) as { token: string }).token;
}, 60_000);

afterAll(async () => {
  await emulator?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("a crash between any two steps of the upload path", () => {
  it.each(CRASH_POINTS)(
    "SIGKILL %s, restart: the invoice has exactly one run",
    async (point) => {
      const invoiceId = `INV-${point}`;
      const port = await freePort();
      const crashing = startDeskProcess(port, point);
      await upload(await crashing.url, invoiceId);
      const death = await crashing.exited;
      expect(death.signal).toBe("SIGKILL"); // it really died at that point
      const desk = startDeskProcess(await freePort());
      try {
        const base = await desk.url;
        // The restart resumes the stored invoice (same key, same intent): one run.
        await until(async () => (await runsPerInvoice()).get(invoiceId) === 1);
        // The operator, unsure, uploads it again: still one run.
        expect([303, 302]).toContain(await upload(base, invoiceId));
        const page = await (
          await fetch(`${base}/invoices/${invoiceId}`, {
            headers: {
              cookie:
                (
                  await fetch(`${base}/login`, {
                    method: "POST",
                    headers: { "content-type": "application/x-www-form-urlencoded" },
                    body: `username=operator&password=${PASSWORD}`,
                    redirect: "manual",
                  })
                ).headers
                  .get("set-cookie")
                  ?.split(";")[0] ?? "",
            },
          })
        ).text();
        expect(page).toMatch(/run_[0-9a-f]+/);
        expect((await runsPerInvoice()).get(invoiceId)).toBe(1);
      } finally {
        desk.child.kill("SIGTERM");
        await desk.exited;
      }
    },
    180_000,
  );

  it("counts every run, so a second run for an invoice would fail the test (negative control)", async () => {
    const launch = (key: string) =>
      fetch(`${emulator.url}/production/api/v1/automations/wf_P7Qd2Lx9/runs`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${apiKey}`,
          "content-type": "application/json",
          "idempotency-key": key,
        },
        body: JSON.stringify({
          inputs: { vendor_name: "Acme", amount: 1, invoice_pdf: { attachment_id: "a" } },
          input_context: {
            attachments: [
              {
                id: "a",
                filename: "x.pdf",
                mimeType: "application/pdf",
                base64: Buffer.from(PDF).toString("base64"),
              },
            ],
          },
          metadata: { invoice_id: "INV-control" },
        }),
      });
    // What a desk that made a fresh key after a crash would do.
    expect((await launch("control-1")).status).toBe(202);
    expect((await launch("control-2")).status).toBe(202);
    expect((await runsPerInvoice()).get("INV-control")).toBe(2);
  }, 60_000);
});
