#!/usr/bin/env node
// Where the runtime-overhead case's gap is (bench/cases/runtime-overhead.mjs), in two parts.
//
// --sides (default): the case's loop (launch + getRun + getResult of invoiceIntake against the
// in-process emulator, interleaved, paired per round) with more raw-fetch sides than the case
// has, each one step closer to the requests @wfr/runtime sends:
//   raw            the case's anchor (bench/lib/runtime-clients.mjs): its own headers, a
//                  randomUUID key, redirect "follow"
//   raw-same       the runtime's headers (accept, user-agent): the emulator sees the same header
//                  names as from the runtime
//   raw-same-error the same plus redirect: "error", as the runtime sends every API request (undici
//                  then sends the request as it is; with "follow" it clones it and tees a POST body)
//   raw-same-bound the same plus a fresh AbortController and a 30 s timer per request
//   raw-same-reused raw-same-error with one signal per 16 requests, as the runtime reuses its own
//                  (no timer)
// and prints runtime / side, wall (ratio of round medians) and process CPU, median over rounds.
//
// --request-ctor: process CPU of 48,000 undici Request constructions (what fetch does first with
// its arguments) without a signal and with a signal reused for 1, 16 or 64 requests, in rounds
// that yield to the event loop every 16 requests (so undici's finalizers can run). Run one
// variant under `node --trace-gc-nvp bench/runtime-requests.mjs --request-ctor --uses N` to see
// the bytes promoted to the old generation.
//
//   npx pnpm@10.34.8 build && node bench/runtime-requests.mjs [--rounds 15] [--pairs 60]
//   node bench/runtime-requests.mjs --request-ctor [--uses 16]
import { loadavg } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: {
    "request-ctor": { type: "boolean", default: false },
    uses: { type: "string" },
    rounds: { type: "string", default: "15" },
    pairs: { type: "string", default: "60" },
  },
});
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const cpuUs = (since) => {
  const used = process.cpuUsage(since);
  return used.user + used.system;
};

async function requestConstructors() {
  const url = "http://127.0.0.1:1/production/api/v1/runs/run_1";
  const headers = { authorization: "Bearer abc" };
  const variant = (uses) => {
    let controller = new AbortController();
    let used = 0;
    if (uses === 0) return () => new Request(url, { headers, redirect: "error" });
    return () => {
      used += 1;
      if (used > uses) {
        controller = new AbortController();
        used = 1;
      }
      return new Request(url, { headers, redirect: "error", signal: controller.signal });
    };
  };
  const all = args.uses !== undefined ? [Number(args.uses)] : [0, 1, 16, 64];
  const makers = new Map(all.map((uses) => [uses, variant(uses)]));
  const batch = async (make, batches) => {
    for (let b = 0; b < batches; b++) {
      for (let i = 0; i < 16; i++) make();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  for (const make of makers.values()) await batch(make, 300);
  const samples = new Map(all.map((uses) => [uses, []]));
  for (let round = 0; round < 5; round++) {
    for (const [uses, make] of makers) {
      const c0 = process.cpuUsage();
      await batch(make, 600);
      samples.get(uses).push(cpuUs(c0) / (600 * 16));
    }
  }
  console.log(`load average ${loadavg()[0].toFixed(1)}; process CPU per undici Request:`);
  for (const [uses, values] of samples)
    console.log(
      `  ${uses === 0 ? "no signal" : `signal reused for ${uses}`}: ${median(values).toFixed(1)} us`,
    );
}

async function sides() {
  const root = fileURLToPath(new URL("../", import.meta.url));
  const load = (path) => import(pathToFileURL(join(root, path)).href);
  const { startEmulator } = await load("packages/emulator/dist/index.js");
  const runtime = await load("packages/runtime/dist/index.js");
  const { invoiceIntake } = await load("packages/generated/src/sample/invoiceIntake.js");
  const PDF = new Uint8Array(Buffer.from("%PDF-1.4\n% bench invoice\n"));
  const emu = await startEmulator({ port: 0, host: "127.0.0.1", clock: "virtual" });
  try {
    const emuUrl = String(emu.url).replace(/\/$/, "");
    const keyRes = await fetch(`${emuUrl}/_emulator/keys`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ environment: "production", scopes: ["workflows:run", "runs:read"] }),
    });
    const { token } = await keyRes.json();
    const baseUrl = `${emuUrl}/production/api/v1`;
    const wfr = runtime.createClient({ baseUrl, apiKey: token });
    const viaRuntime = async () => {
      const inputs = {
        vendor_name: "Bench Paper Co",
        amount: 42.5,
        currency: "EUR",
        invoice_pdf: runtime.file(PDF, { filename: "invoice.pdf", mimeType: "application/pdf" }),
      };
      const launched = await wfr.launch(invoiceIntake, { inputs });
      await wfr.getRun(launched.run_id);
      await wfr.getResult(invoiceIntake, launched.run_id);
    };
    const bounded = (url, init) => {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 30_000);
      return fetch(url, { ...init, signal: controller.signal }).finally(() => clearTimeout(timer));
    };
    let spare = new AbortController();
    let spareUses = 0;
    const reused = (url, init) => {
      spareUses += 1;
      if (spareUses > 16) {
        spare = new AbortController();
        spareUses = 1;
      }
      return fetch(url, { ...init, signal: spare.signal });
    };
    const rawRoundTrip = ({ same, redirectError, bound, reuse }) => {
      const send = bound ? bounded : reuse ? reused : fetch;
      const headers = same
        ? {
            authorization: `Bearer ${token}`,
            accept: "application/json",
            "user-agent": `wfr-runtime/${runtime.RUNTIME_VERSION}`,
          }
        : { authorization: `Bearer ${token}` };
      const mode = redirectError ? { redirect: "error" } : {};
      return async () => {
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
        // A random key, as the case's anchor sends: `raw-<pid>-<n>` came back after a restart
        // that reused the pid, and the API then answered with the earlier run.
        const key = crypto.randomUUID();
        const res = await send(`${baseUrl}/automations/${invoiceIntake.id}/runs`, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json", "idempotency-key": key },
          body,
          ...mode,
        });
        if (res.status !== 202) throw new Error(`raw launch answered ${res.status}`);
        const { run_id } = await res.json();
        await (await send(`${baseUrl}/runs/${run_id}`, { headers, ...mode })).json();
        await (await send(`${baseUrl}/runs/${run_id}/result`, { headers, ...mode })).json();
      };
    };
    const sides = {
      runtime: viaRuntime,
      raw: rawRoundTrip({}),
      "raw-same": rawRoundTrip({ same: true }),
      "raw-same-error": rawRoundTrip({ same: true, redirectError: true }),
      "raw-same-bound": rawRoundTrip({ same: true, redirectError: true, bound: true }),
      "raw-same-reused": rawRoundTrip({ same: true, redirectError: true, reuse: true }),
    };
    const names = Object.keys(sides);
    for (let i = 0; i < 50; i++) for (const name of names) await sides[name]();
    const rounds = Number(args.rounds);
    const pairs = Number(args.pairs);
    const ratios = Object.fromEntries(names.map((name) => [name, { wall: [], cpu: [] }]));
    for (let round = 0; round < rounds; round++) {
      const wall = Object.fromEntries(names.map((name) => [name, []]));
      const cpu = Object.fromEntries(names.map((name) => [name, 0]));
      for (let i = 0; i < pairs; i++) {
        // Each side follows every other equally often.
        for (let k = 0; k < names.length; k++) {
          const name = names[(k + i) % names.length];
          const c0 = process.cpuUsage();
          const t0 = performance.now();
          await sides[name]();
          wall[name].push(performance.now() - t0);
          cpu[name] += cpuUs(c0);
        }
      }
      for (const name of names) {
        ratios[name].wall.push(median(wall.runtime) / median(wall[name]));
        ratios[name].cpu.push(cpu.runtime / cpu[name]);
      }
    }
    console.log(
      `load average ${loadavg()[0].toFixed(1)}; runtime / side, median over ${rounds} rounds of ${pairs}:`,
    );
    for (const name of names.slice(1))
      console.log(
        `  ${name.padEnd(16)} wall ${median(ratios[name].wall).toFixed(3)}x  CPU ${median(ratios[name].cpu).toFixed(3)}x`,
      );
  } finally {
    await emu.close();
  }
}

await (args["request-ctor"] ? requestConstructors() : sides());
