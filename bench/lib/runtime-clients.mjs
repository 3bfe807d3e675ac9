// The clients of the runtime-overhead case (bench/cases/runtime-overhead.mjs): one round trip
// (launch + getRun + getResult of the sample invoiceIntake) through @wfr/runtime, through raw
// fetch, and through raw fetch bounded per request. The case runs them in its own process,
// interleaved, and each in a Node process of its own (this module as the entry), as a user's
// process holds one client.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { summarize } from "./stats.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
/** The invoice attachment of every launch: a few bytes, the small-PDF case. */
export const PDF = new Uint8Array(Buffer.from("%PDF-1.4\n% bench invoice\n"));

export async function clientModules() {
  const runtime = await import(pathToFileURL(join(root, "packages/runtime/dist/index.js")).href);
  const { invoiceIntake } = await import(
    pathToFileURL(join(root, "packages/generated/src/sample/invoiceIntake.js")).href
  );
  return { runtime, invoiceIntake };
}

/** An API key of the emulator's production environment, for launching and reading runs. */
export async function createKey(emuUrl) {
  const keyRes = await fetch(`${emuUrl}/_emulator/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ environment: "production", scopes: ["workflows:run", "runs:read"] }),
  });
  if (keyRes.status !== 201) throw new Error(`key creation failed: ${keyRes.status}`);
  return (await keyRes.json()).token;
}

/**
 * The three clients of one round trip (launch + getRun + getResult of the sample invoiceIntake):
 * @wfr/runtime, raw fetch with hand-built bodies, raw fetch bounded per request. The same code in
 * the bench's process and in the client processes of the one-side-per-process rows.
 */
export function clientSides({ runtime, invoiceIntake, baseUrl, token }) {
  const wfr = runtime.createClient({ baseUrl, apiKey: token });
  const typical = () => ({
    vendor_name: "Bench Paper Co",
    amount: 42.5,
    currency: "EUR",
    invoice_pdf: runtime.file(PDF, { filename: "invoice.pdf", mimeType: "application/pdf" }),
  });
  const viaRuntime = async () => {
    const launched = await wfr.launch(invoiceIntake, { inputs: typical() });
    await wfr.getRun(launched.run_id);
    await wfr.getResult(invoiceIntake, launched.run_id);
  };
  const headers = { authorization: `Bearer ${token}` };
  let seq = 0;
  // A third side, no target: raw fetch bounded as the runtime bounds each attempt (an abort
  // signal and a 30 s timer per request). It separates what the time limit costs (on Node 20,
  // creating the signal and fetch's tracking of it) from what the runtime's own code costs.
  const timedFetch = (url, init = {}) => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 30_000);
    return fetch(url, { ...init, signal: controller.signal }).finally(() => clearTimeout(timer));
  };
  const rawRoundTrip = async (send) => {
    const body = JSON.stringify({
      inputs: {
        vendor_name: "Bench Paper Co",
        amount: 42.5,
        currency: "EUR",
        invoice_pdf: { attachment_id: "att_1" },
      },
      input_context: {
        attachments: [
          {
            id: "att_1",
            filename: "invoice.pdf",
            mimeType: "application/pdf",
            base64: Buffer.from(PDF).toString("base64"),
          },
        ],
      },
    });
    const res = await send(`${baseUrl}/automations/${invoiceIntake.id}/runs`, {
      method: "POST",
      headers: {
        ...headers,
        "content-type": "application/json",
        "idempotency-key": `raw-${process.pid}-${seq++}`,
      },
      body,
    });
    if (res.status !== 202) throw new Error(`raw launch answered ${res.status}`);
    const { run_id } = await res.json();
    const run = await send(`${baseUrl}/runs/${run_id}`, { headers });
    if (run.status !== 200) throw new Error(`raw getRun answered ${run.status}`);
    await run.json();
    const result = await send(`${baseUrl}/runs/${run_id}/result`, { headers });
    if (result.status !== 200 && result.status !== 202)
      throw new Error(`raw getResult answered ${result.status}`);
    // Parsed, as the other two answers are and as any caller must to read the outputs (the
    // runtime also validates them against the workflow's output schema).
    await result.json();
  };
  const viaFetch = () => rawRoundTrip(fetch);
  const viaTimedFetch = () => rawRoundTrip(timedFetch);
  return { typical, viaRuntime, viaFetch, viaTimedFetch };
}

/** The argument that makes this module run one side's loop and print its figures. */
const SIDE_LOOP = "--side-loop";

/**
 * One side (runtime or fetch) in a fresh Node process against the emulator at baseUrl: warm-up
 * round trips, then `count` measured ones. Resolves with the median wall time per round trip and
 * the process's own CPU time (user + system, garbage collection included) per round trip, both
 * in ms and both over the measured round trips only.
 */
export function sideInOwnProcess(side, baseUrl, token, warmup, count) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [fileURLToPath(import.meta.url), SIDE_LOOP, side, baseUrl, String(warmup), String(count)],
      { env: { ...process.env, WFR_BENCH_TOKEN: token }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.once("exit", (code) => {
      if (code !== 0)
        return reject(new Error(`${side} process exited ${code}: ${stderr.slice(-500)}`));
      resolve(JSON.parse(stdout));
    });
  });
}

async function sideLoop(side, baseUrl, warmup, count) {
  const { runtime, invoiceIntake } = await clientModules();
  const sides = clientSides({
    runtime,
    invoiceIntake,
    baseUrl,
    token: process.env.WFR_BENCH_TOKEN,
  });
  const roundTrip = { runtime: sides.viaRuntime, fetch: sides.viaFetch }[side];
  if (!roundTrip) throw new Error(`unknown side: ${side}`);
  for (let i = 0; i < warmup; i++) await roundTrip();
  const wall = [];
  const c0 = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await roundTrip();
    wall.push(performance.now() - t0);
  }
  const used = process.cpuUsage(c0);
  return { wallMs: summarize(wall).median, cpuMs: (used.user + used.system) / 1000 / count };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [flag, side, baseUrl, warmup, count] = process.argv.slice(2);
  if (flag !== SIDE_LOOP)
    throw new Error(`usage: ${SIDE_LOOP} <runtime|fetch> <baseUrl> <warmup> <count>`);
  const figures = await sideLoop(side, baseUrl, Number(warmup), Number(count));
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}
