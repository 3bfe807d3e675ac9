// The clients of the runtime-overhead case (bench/cases/runtime-overhead.mjs): one round trip
// (launch + getRun of a new run of the sample invoiceIntake, and getResult of one that has
// finished, so that the answer carries outputs) through @wfr/runtime, through raw
// fetch, and through raw fetch bounded per request. The case runs them in its own process,
// interleaved, and each in a Node process of its own (this module as the entry), as a user's
// process holds one client.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

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
 * A run of invoiceIntake that has succeeded, for every round trip's getResult: a run launched in
 * the round trip is still running (the clock is virtual), and its result is a 202 without outputs,
 * so the runtime's check of the outputs against the workflow's output schema would never run
 * (until 2026-11-29 it did not). Launched once, the virtual clock advanced to its end.
 */
export async function finishedRun(emuUrl, token, invoiceIntake) {
  const baseUrl = `${emuUrl}/production/api/v1`;
  const headers = { authorization: `Bearer ${token}` };
  const launched = await fetch(`${baseUrl}/automations/${invoiceIntake.id}/runs`, {
    method: "POST",
    headers: {
      ...headers,
      "content-type": "application/json",
      "idempotency-key": crypto.randomUUID(),
    },
    body: JSON.stringify({
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
    }),
  });
  if (launched.status !== 202) throw new Error(`finished run: launch answered ${launched.status}`);
  const { run_id } = await launched.json();
  for (let step = 0; step < 20; step++) {
    const result = await fetch(`${baseUrl}/runs/${run_id}/result`, { headers });
    const body = await result.json();
    if (result.status === 200) {
      if (body.status !== "succeeded")
        throw new Error(`finished run: ${body.status}, not succeeded`);
      return run_id;
    }
    const advanced = await fetch(`${emuUrl}/_emulator/clock/advance`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ms: 1000 }),
    });
    if (advanced.status !== 200) throw new Error(`clock advance answered ${advanced.status}`);
  }
  throw new Error("finished run: still running after 20 s of virtual time");
}

/**
 * The three clients of one round trip (launch + getRun + getResult of the sample invoiceIntake):
 * @wfr/runtime, raw fetch with hand-built bodies, raw fetch bounded per request. The same code in
 * the bench's process and in the client processes of the one-side-per-process rows.
 */
export function clientSides({ runtime, invoiceIntake, baseUrl, token, finishedRunId }) {
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
    const result = await wfr.getResult(invoiceIntake, finishedRunId);
    if (result.status !== "succeeded") throw new Error(`runtime getResult: ${result.status}`);
  };
  const headers = { authorization: `Bearer ${token}` };
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
        // A random key, as a careful caller makes one (and as the runtime does): a key built
        // from the process id and a counter comes again after a restart that reuses the pid,
        // and the API then answers with the earlier run (until 2026-11-29: `raw-<pid>-<n>`).
        "idempotency-key": crypto.randomUUID(),
      },
      body,
    });
    if (res.status !== 202) throw new Error(`raw launch answered ${res.status}`);
    const { run_id } = await res.json();
    const run = await send(`${baseUrl}/runs/${run_id}`, { headers });
    if (run.status !== 200) throw new Error(`raw getRun answered ${run.status}`);
    await run.json();
    const result = await send(`${baseUrl}/runs/${finishedRunId}/result`, { headers });
    if (result.status !== 200) throw new Error(`raw getResult answered ${result.status}`);
    // Parsed, as the other two answers are and as any caller must to read the outputs (the
    // runtime also validates them against the workflow's output schema).
    await result.json();
  };
  const viaFetch = () => rawRoundTrip(fetch);
  const viaTimedFetch = () => rawRoundTrip(timedFetch);
  return { typical, viaRuntime, viaFetch, viaTimedFetch };
}

/** The argument that makes this module serve one side's round trips to its parent. */
const SIDE_PROCESS = "--side-process";

/**
 * One side (runtime or fetch) in a fresh Node process of its own against the emulator at baseUrl,
 * driven by its parent: `roundTrips(n)` makes n round trips one after another and resolves with
 * the wall time of each (ms) and the process's own CPU time over them (user + system, every
 * thread: garbage collection and the compiler included, in ms). Between calls the process idles,
 * so two of them can take turns, block by block, each holding one client as a user's process does.
 */
export async function startSideProcess(side, baseUrl, token, finishedRunId) {
  const child = spawn(
    process.execPath,
    [fileURLToPath(import.meta.url), SIDE_PROCESS, side, baseUrl],
    {
      env: { ...process.env, WFR_BENCH_TOKEN: token, WFR_BENCH_FINISHED_RUN: finishedRunId },
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  let pending;
  child.on("message", (message) => pending?.resolve(message));
  const exited = new Promise((resolve) => {
    child.once("exit", (code) => {
      pending?.reject(new Error(`${side} process exited ${code}: ${stderr.slice(-500)}`));
      resolve();
    });
  });
  return {
    roundTrips(n) {
      return new Promise((resolve, reject) => {
        pending = { resolve, reject };
        child.send({ n });
      });
    },
    async stop() {
      pending = undefined;
      child.disconnect();
      await exited;
    },
  };
}

async function serveSide(side, baseUrl) {
  const { runtime, invoiceIntake } = await clientModules();
  const sides = clientSides({
    runtime,
    invoiceIntake,
    baseUrl,
    token: process.env.WFR_BENCH_TOKEN,
    finishedRunId: process.env.WFR_BENCH_FINISHED_RUN,
  });
  const roundTrip = { runtime: sides.viaRuntime, fetch: sides.viaFetch }[side];
  if (!roundTrip) throw new Error(`unknown side: ${side}`);
  process.on("message", async ({ n }) => {
    const wallMs = [];
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await roundTrip();
      wallMs.push(performance.now() - t0);
    }
    const used = process.cpuUsage(c0);
    process.send({ wallMs, cpuMs: (used.user + used.system) / 1000 });
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [flag, side, baseUrl] = process.argv.slice(2);
  if (flag !== SIDE_PROCESS) throw new Error(`usage: ${SIDE_PROCESS} <runtime|fetch> <baseUrl>`);
  await serveSide(side, baseUrl);
}
