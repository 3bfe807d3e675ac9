// The desk's upload path, killed -9 between each pair of its steps: store the
// invoice -> derive the key from the invoice id -> record the intent in the
// launch journal -> launch "Invoice intake" -> mark the invoice. The real desk
// server (dist/main.js) runs as a child process against the emulator, with its
// state in PGlite and then in PostgreSQL; WFR_DESK_CRASH_AT makes it SIGKILL
// itself right after the named step (WFR_DESK_CRASH_FOR: only while uploading
// that step's own invoice). Then it is restarted and the operator uploads the
// same invoice again: every invoice ends with exactly one run, counted
// through the emulator's run history. The life that recovers one crash point's
// invoice is the life that crashes on the next point's: seven desk starts for
// six crash points, where a start for each crash and each recovery was twelve.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningEmulator, startEmulator } from "@wfr/emulator";
import { invoiceIntake } from "@wfr/generated/sample/invoiceIntake";
import { createClient, file } from "@wfr/runtime";
import { type PostgresServer, startPostgresServer, waitUntil } from "@wfr/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CRASH_POINTS, type CrashPoint } from "../src/crash.js";

const MAIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const PASSWORD = "pw-for-crash-tests";
const PDF = new TextEncoder().encode("%PDF-1.4\n% a tiny invoice\n%%EOF\n");
let emulator: RunningEmulator;
let apiKey: string;
let pg: PostgresServer;
const dirs: string[] = [];
const children = new Set<ChildProcess>();

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  pg = await startPostgresServer();
  const response = await fetch(`${emulator.url}/_emulator/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ environment: "production", scopes: ["workflows:run", "runs:read"] }),
  });
  apiKey = ((await response.json()) as { token: string }).token;
});
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await emulator?.close();
  await pg?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Desk {
  readonly url: string;
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly output: () => string;
}

async function startDeskProcess(
  cwd: string,
  env: Record<string, string>,
  crash?: { at: CrashPoint; invoiceId: string },
): Promise<Desk> {
  // Each life of the desk is short: V8 compiling PGlite's 9 MB of WebAssembly
  // again with its optimising tier, in the background, cost more CPU than the
  // life ran (a reopen: 1.8 s of CPU by default, 0.9 s with --liftoff-only).
  const child = spawn(process.execPath, ["--liftoff-only", MAIN], {
    cwd,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      WFR_BASE_URL: `${emulator.url}/production/api/v1`,
      WFR_API_KEY: apiKey,
      // The system picks the port and the desk prints it: a port found free here could be
      // taken by another process before the desk binds it.
      PORT: "0",
      DESK_PASSWORD: PASSWORD,
      ...env,
      ...(crash ? { WFR_DESK_CRASH_AT: crash.at, WFR_DESK_CRASH_FOR: crash.invoiceId } : {}),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  let output = "";
  child.stdout?.on("data", (d) => {
    output += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    }),
  );
  let url = "";
  await waitUntil(() => {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the desk exited while starting:\n${output}`);
    url = /invoice desk: (http:\/\/\S+)/.exec(output)?.[1] ?? "";
    return url !== "";
  }, 120_000);
  return { url, child, exited, output: () => output };
}

/** Signs in like the login form does; returns the cookie and the upload form's CSRF token. */
async function signIn(desk: Desk): Promise<{ cookie: string; csrf: string }> {
  const login = await fetch(`${desk.url}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username: "operator", password: PASSWORD }),
    redirect: "manual",
  });
  expect(login.status).toBe(303);
  const cookie = String(login.headers.get("set-cookie")).split(";")[0] as string;
  const form = await (await fetch(`${desk.url}/invoices/new`, { headers: { cookie } })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(form)?.[1];
  if (!csrf) throw new Error(`no CSRF token in the upload form:\n${form}`);
  return { cookie, csrf };
}

/** The upload form, as the browser posts it. */
function upload(desk: Desk, session: { cookie: string; csrf: string }, invoiceId: string) {
  const body = new FormData();
  body.set("csrf", session.csrf);
  body.set("invoice_id", invoiceId);
  body.set("vendor_name", "Northwind Supplies");
  body.set("amount", "1280.50");
  body.set("pdf", new Blob([PDF], { type: "application/pdf" }), `${invoiceId}.pdf`);
  return fetch(`${desk.url}/invoices`, {
    method: "POST",
    headers: { cookie: session.cookie },
    body,
    redirect: "manual",
  });
}

/** Runs per invoice id, from the emulator's run history (metadata.invoice_id). */
async function runsOf(invoiceId: string): Promise<string[]> {
  const { runs } = (await (
    await fetch(`${emulator.url}/_emulator/environments/production/runs`)
  ).json()) as { runs: { run_id: string; metadata?: { invoice_id?: string } }[] };
  return runs.filter((run) => run.metadata?.invoice_id === invoiceId).map((run) => run.run_id);
}

/**
 * On a desk restarted after `point` killed it while uploading `invoiceId`: the operator uploads
 * the same invoice again and asks for a refresh; the invoice has exactly one run, on its page.
 */
async function recovered(desk: Desk, point: CrashPoint, invoiceId: string): Promise<void> {
  const session = await signIn(desk);
  const reupload = await upload(desk, session, invoiceId);
  expect(reupload.status).toBe(303);
  expect(reupload.headers.get("location")).toBe(`/invoices/${invoiceId}`);
  const refresh = await fetch(`${desk.url}/invoices/${invoiceId}/refresh`, {
    method: "POST",
    headers: {
      cookie: session.cookie,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ csrf: session.csrf }),
    redirect: "manual",
  });
  expect(refresh.status).toBe(303);
  const runs = await runsOf(invoiceId);
  expect(runs, `${point}: runs of ${invoiceId}`).toHaveLength(1);
  // The desk shows that one run on the invoice's page.
  let page = "";
  await waitUntil(async () => {
    page = await (
      await fetch(`${desk.url}/invoices/${invoiceId}`, { headers: { cookie: session.cookie } })
    ).text();
    return page.includes(runs[0] as string);
  }, 60_000).catch(() => {
    throw new Error(`${point}: the page of ${invoiceId} never shows run ${runs[0]}:\n${page}`);
  });
}

async function crashEveryStep(label: string, env: Record<string, string>): Promise<string[]> {
  const cwd = mkdtempSync(join(tmpdir(), `invoice-desk-crash-${label}-`));
  dirs.push(cwd);
  const invoiceIds = CRASH_POINTS.map((point) => `${label}-${point}`);
  let crashed: { point: CrashPoint; invoiceId: string } | undefined;
  for (const [i, point] of CRASH_POINTS.entries()) {
    const invoiceId = invoiceIds[i] as string;
    // 1. A restart (it resumes stored invoices without a run) that recovers the invoice of the
    //    crash before; then an upload, and the desk kills itself right after `point`.
    const doomed = await startDeskProcess(cwd, env, { at: point, invoiceId });
    if (crashed) await recovered(doomed, crashed.point, crashed.invoiceId);
    const session = await signIn(doomed);
    const answered = await upload(doomed, session, invoiceId).then(
      (response) => response.status,
      () => "no answer",
    );
    const death = await doomed.exited;
    expect(death.signal, `${point}: ${doomed.output()}`).toBe("SIGKILL");
    expect(answered).toBe("no answer");
    // How far it got: the run exists from the launch on, not before.
    const before = await runsOf(invoiceId);
    const launched = i >= CRASH_POINTS.indexOf("after-launch");
    expect(before.length, `${point}: runs before the restart`).toBe(launched ? 1 : 0);
    crashed = { point, invoiceId };
  }
  // 2. The last restart recovers the last crash's invoice.
  const desk = await startDeskProcess(cwd, env);
  if (crashed) await recovered(desk, crashed.point, crashed.invoiceId);
  desk.child.kill("SIGTERM");
  await desk.exited;
  // Every invoice, at the end: exactly one run.
  const counts = await Promise.all(invoiceIds.map(async (id) => (await runsOf(id)).length));
  expect(counts).toEqual(invoiceIds.map(() => 1));
  console.log(
    `${label}: ${CRASH_POINTS.length} crash points, ${CRASH_POINTS.length + 1} desk starts, runs per invoice: ${counts.join(", ")}`,
  );
  return invoiceIds;
}

describe("the desk killed -9 between the steps of an upload, then restarted", () => {
  let crashed: string[] = [];

  it("PGlite state: every invoice ends with exactly one run", async () => {
    crashed = await crashEveryStep("pglite", {});
  }, 1_200_000);

  it("PostgreSQL state: every invoice ends with exactly one run", async () => {
    await crashEveryStep("postgres", { DATABASE_URL: pg.url });
  }, 1_200_000);

  it("negative control: a resend without the journal (a fresh key) is counted as a second run", async () => {
    expect(crashed.length).toBe(CRASH_POINTS.length);
    const invoiceId = crashed[CRASH_POINTS.indexOf("after-launch")] as string;
    expect(await runsOf(invoiceId)).toHaveLength(1);
    // What a desk without the journal would do after that crash: launch again.
    const client = createClient({ baseUrl: `${emulator.url}/production/api/v1`, apiKey });
    await client.launch(invoiceIntake, {
      inputs: invoiceIntake.buildInputs({
        vendor_name: "Northwind Supplies",
        amount: 1280.5,
        invoice_pdf: file(PDF, { filename: `${invoiceId}.pdf`, mimeType: "application/pdf" }),
      }),
      metadata: { invoice_id: invoiceId },
    });
    expect(await runsOf(invoiceId)).toHaveLength(2);
  });
});
