// docs/limits.md: the desk's body budgets (sign-in 16 KiB, forms 64 KiB, the PDF upload 25 MiB +
// 64 KiB, callbacks 1 MiB) at ten times, against the desk in a process of its own (as `pnpm start`
// runs it): 413 naming the budget, the process's peak memory growth under twice the budget
// (`@wfr/test-servers`, budget-probe.ts), and another caller answered while the body was still
// arriving. And the 413 reaches a `fetch` client that keeps uploading past it: with
// @hono/node-server's own clean-up (500 ms of draining, then the connection cut), such clients met
// "socket hang up" or UND_ERR_SOCKET instead.
import { type ChildProcess, fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningEmulator, startEmulator } from "@wfr/emulator";
import {
  filler,
  KiB,
  MiB,
  memoryTarget,
  oversizedTotal,
  peakGrowth,
  streamTo,
} from "@wfr/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareEmulator } from "./support/emulator-setup.js";

const DESK = new URL("../dist/desk.js", import.meta.url).href;
let emulator: RunningEmulator;
let desk: ChildProcess;
let deskUrl = "";
const dir = mkdtempSync(join(tmpdir(), "desk-budgets-"));

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  const { apiKey } = await prepareEmulator(emulator.url);
  desk = fork("--input-type=module", [], {
    execArgv: [
      "--input-type=module",
      "-e",
      `const { startDesk } = await import(${JSON.stringify(DESK)});
       const desk = await startDesk(JSON.parse(process.env.DESK_OPTIONS));
       process.on("message", async () => { await desk.close(); process.exit(0); });
       process.send(desk.url);`,
    ],
    env: {
      ...process.env,
      DESK_OPTIONS: JSON.stringify({
        baseUrl: `${emulator.url}/production/api/v1`,
        apiKey,
        pgliteDir: dir,
        port: 0,
        operator: { username: "operator", password: "correct horse" },
        pollIntervalMs: 600_000,
      }),
    },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  deskUrl = await new Promise<string>((resolve, reject) => {
    desk.once("message", (url) => resolve(String(url)));
    desk.once("exit", (code) => reject(new Error(`the desk exited ${code}`)));
  });
}, 120_000);

afterAll(async () => {
  if (desk?.exitCode === null) {
    const exited = new Promise((r) => desk.once("exit", r));
    desk.send("close");
    await exited;
  }
  await emulator?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Another caller: the sign-in page, answered or not. */
const otherCaller = async () => (await fetch(`${deskUrl}/login`)).status === 200;

/** A signed-in operator's cookie: the forms and the upload are refused only after the session. */
async function signIn(): Promise<string> {
  const r = await fetch(`${deskUrl}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: deskUrl },
    body: "username=operator&password=correct+horse",
    redirect: "manual",
  });
  const cookie = r.headers.get("set-cookie")?.split(";")[0];
  if (r.status !== 303 || !cookie) throw new Error(`signing in: HTTP ${r.status}`);
  return cookie;
}

const FORM = "application/x-www-form-urlencoded";
const MULTIPART = "multipart/form-data; boundary=desk-budget-test";
/** Each surface of the desk (docs/limits.md), its budget, its body's type, and whether it needs a session. */
const SURFACES = [
  ["sign-in", "/login", 16 * KiB, FORM, false],
  ["form (a checkpoint's answer)", "/invoices/INV-1/answer", 64 * KiB, FORM, true],
  ["PDF upload", "/invoices", 25 * MiB + 64 * KiB, MULTIPART, true],
  ["callback delivery", "/callbacks/wfr", MiB, "application/json", false],
] as const;

describe("the desk's body budgets at ten times", { timeout: 300_000 }, () => {
  for (const [surface, path, budget, type, session] of SURFACES) {
    it(`${surface} (POST ${path}): ten times ${budget} bytes (at least 32 MiB), streamed, is 413; the desk's peak grows under twice the budget; another caller is answered meanwhile`, async () => {
      const cookie = session ? await signIn() : undefined;
      await otherCaller();
      const { result, growth } = await peakGrowth(desk.pid as number, () =>
        streamTo(`${deskUrl}${path}`, {
          headers: { "content-type": type, origin: deskUrl, ...(cookie ? { cookie } : {}) },
          // Chunks of a quarter of the budget at most: the other caller comes in before the budget is passed.
          chunks: filler(oversizedTotal(budget), 0x78, Math.min(64 * KiB, budget / 4)),
          midway: budget / 2,
          other: otherCaller,
        }),
      );
      expect(result.status).toBe(413);
      expect(result.text).toContain(`exceeds ${budget} bytes`);
      expect(result.otherAnswered).toBe(true);
      expect(growth).toBeLessThan(memoryTarget(budget));
    });
  }
});

/** Sends `body` to `path` with fetch, as a browser's or a script's upload does; what it read. */
async function fetchPost(
  path: string,
  type: string,
  body: ReadableStream<Uint8Array>,
  cookie?: string,
) {
  try {
    const r = await fetch(`${deskUrl}${path}`, {
      method: "POST",
      headers: { "content-type": type, origin: deskUrl, ...(cookie ? { cookie } : {}) },
      body,
      duplex: "half",
    } as RequestInit);
    return `${r.status} ${await r.text()}`;
  } catch (error) {
    const cause = (error as Error).cause as { code?: string; message?: string } | undefined;
    return `network error ${cause?.code ?? cause?.message ?? (error as Error).message}`;
  }
}

/** `total` generated bytes as a stream (no Content-Length). */
function streamOf(total: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(64 * KiB).fill(0x78);
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      controller.enqueue(chunk.slice());
      sent += chunk.length;
    },
  });
}

describe("a refused body's answer reaches a fetch client still uploading", {
  timeout: 300_000,
}, () => {
  // The client may still be sending when the answer comes; the desk reads and discards the rest
  // (RFC 9112 §9.6) instead of cutting the connection, or the client meets a reset (and a retry
  // policy uploads again). Before, the sign-in and the forms met UND_ERR_SOCKET every time, the
  // upload at times.
  for (const [surface, path, budget, type, session] of SURFACES) {
    it(`${surface}: a body streamed by fetch past the budget (ten times it, or 8 MiB over) reads the 413, 5 times out of 5`, async () => {
      const cookie = session ? await signIn() : undefined;
      const total = budget + Math.min(9 * budget, 8 * MiB);
      const answers: string[] = [];
      for (let attempt = 0; attempt < 5; attempt++)
        answers.push(await fetchPost(path, type, streamOf(total), cookie));
      expect(answers).toEqual(Array(5).fill(`413 request body exceeds ${budget} bytes`));
    });
  }
});
