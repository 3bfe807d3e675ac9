// Runtime overhead: launch + getRun + getResult round trips against the emulator through
// @wfr/runtime (generated invoiceIntake definition, local validation on) versus raw fetch with
// hand-built bodies; same emulator, same process, interleaved round trip by round trip. Plus the
// local validation time per launch (definition.validateInputs) for a typical and a maximal input.
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { atMost, compareRow } from "../lib/rows.mjs";

export const id = "runtime-overhead";
export const title = "Runtime overhead: launch + getRun + getResult";
export const anchorName = "raw fetch";
export const anchor =
  "raw fetch with hand-built JSON bodies, same emulator, same process, interleaved";
export const help = `node bench/cases/runtime-overhead.mjs [--quick]
Starts the built emulator in-process (virtual clock) and times one round trip = launch +
getRun + getResult of production invoiceIntake (small PDF attachment) through @wfr/runtime with
local validation, and the same three requests through raw fetch with hand-built bodies,
alternating, 400 round trips per side in 5 batches (--quick: 20 in 1), wall time and the
process's CPU time (both clients and the emulator) per round trip. Then times
invoiceIntake.validateInputs on a typical input and on a maximal one (every optional field,
10 supporting files, 10,000 line items), 5 batches.
Target: runtime round trip within 10% of raw fetch (<= 1.10x).`;

const root = fileURLToPath(new URL("../../", import.meta.url));
const PDF = new Uint8Array(Buffer.from("%PDF-1.4\n% bench invoice\n"));

export async function run({ quick = false, log = console.log } = {}) {
  const { startEmulator } = await import(
    pathToFileURL(join(root, "packages/emulator/dist/index.js")).href
  );
  const runtime = await import(pathToFileURL(join(root, "packages/runtime/dist/index.js")).href);
  const { invoiceIntake } = await import(
    pathToFileURL(join(root, "packages/generated/src/production/invoiceIntake.js")).href
  );
  const batches = quick ? 1 : 5;
  const perBatch = quick ? 20 : 80;
  const emu = await startEmulator({ port: 0, host: "127.0.0.1", clock: "virtual" });
  try {
    const emuUrl = String(emu.url).replace(/\/$/, "");
    const keyRes = await fetch(`${emuUrl}/_emulator/keys`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ environment: "production", scopes: ["workflows:run", "runs:read"] }),
    });
    if (keyRes.status !== 201) throw new Error(`key creation failed: ${keyRes.status}`);
    const { token } = await keyRes.json();
    const baseUrl = `${emuUrl}/production/api/v1`;
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
    const viaFetch = async () => {
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
      const res = await fetch(`${baseUrl}/automations/${invoiceIntake.id}/runs`, {
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
      const run = await fetch(`${baseUrl}/runs/${run_id}`, { headers });
      if (run.status !== 200) throw new Error(`raw getRun answered ${run.status}`);
      await run.json();
      const result = await fetch(`${baseUrl}/runs/${run_id}/result`, { headers });
      await result.arrayBuffer();
    };
    // Warm both paths (JIT, keep-alive sockets, lazy schemas) outside the measurement.
    for (let i = 0; i < 10; i++) {
      await viaRuntime();
      await viaFetch();
    }
    const ours = [];
    const theirs = [];
    // CPU time of the process (both clients and the emulator) per round trip: on a shared machine
    // a process that is not scheduled loses wall time but not CPU time, so this row shows the
    // work each side causes even when the wall-clock row is noisy.
    const oursCpu = [];
    const theirsCpu = [];
    const cpuMs = (since) => {
      const used = process.cpuUsage(since);
      return (used.user + used.system) / 1000;
    };
    for (let b = 0; b < batches; b++) {
      let a = 0;
      let f = 0;
      let ac = 0;
      let fc = 0;
      for (let i = 0; i < perBatch; i++) {
        // Alternate which side goes first so neither always follows the other.
        const order = i % 2 === 0 ? [viaRuntime, viaFetch] : [viaFetch, viaRuntime];
        for (const step of order) {
          const c0 = process.cpuUsage();
          const t0 = performance.now();
          await step();
          const ms = performance.now() - t0;
          const cpu = cpuMs(c0);
          if (step === viaRuntime) {
            a += ms;
            ac += cpu;
          } else {
            f += ms;
            fc += cpu;
          }
        }
      }
      ours.push(a / perBatch);
      theirs.push(f / perBatch);
      oursCpu.push(ac / perBatch);
      theirsCpu.push(fc / perBatch);
      log(
        `batch ${b + 1}: runtime ${ours.at(-1).toFixed(2)} ms, raw fetch ${theirs.at(-1).toFixed(2)} ms per round trip`,
      );
    }

    // Local validation per launch: the call @wfr/runtime makes before building the body.
    const maximal = {
      ...typical(),
      due_date: "2026-12-31",
      paid: true,
      supporting_docs: Array.from({ length: 10 }, (_, i) =>
        runtime.file(PDF, { filename: `doc-${i}.pdf`, mimeType: "application/pdf" }),
      ),
      line_items: Array.from({ length: 10_000 }, (_, i) => ({
        sku: `SKU-${i}`,
        description: `Line ${i}`,
        quantity: i % 7,
        unit_price: 1.25 * i,
      })),
    };
    const timeValidation = (inputs, iterations) => {
      const out = [];
      for (let b = 0; b < batches; b++) {
        const issues = invoiceIntake.validateInputs(inputs);
        if (issues.length > 0) throw new Error(`bench input invalid: ${JSON.stringify(issues)}`);
        const t0 = performance.now();
        for (let i = 0; i < iterations; i++) invoiceIntake.validateInputs(inputs);
        out.push(((performance.now() - t0) / iterations) * 1000);
      }
      return out;
    };
    const typicalUs = timeValidation(typical(), quick ? 200 : 2000);
    const maximalUs = timeValidation(maximal, quick ? 2 : 20);
    return {
      rows: [
        compareRow("launch + getRun + getResult, per round trip", "ms", ours, theirs, atMost(1.1)),
        compareRow(
          "launch + getRun + getResult, process CPU per round trip",
          "ms",
          oursCpu,
          theirsCpu,
        ),
        compareRow("validateInputs, typical input (4 fields, 1 file)", "us", typicalUs),
        compareRow(
          "validateInputs, maximal input (all fields, 11 files, 10,000 line items)",
          "us",
          maximalUs,
        ),
      ],
      samples: {
        runtimeMs: ours,
        rawFetchMs: theirs,
        runtimeCpuMs: oursCpu,
        rawFetchCpuMs: theirsCpu,
        typicalUs,
        maximalUs,
      },
      notes: [
        `Round trips are means of ${perBatch} per batch, ${batches} batch(es); the emulator runs in the same process as both clients.`,
        "Validation figures are our own (no anchor: openapi-fetch validates nothing locally).",
      ],
    };
  } finally {
    await emu.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { standalone } = await import("../lib/standalone.mjs");
  await standalone({ id, title, anchor, help, run });
}
