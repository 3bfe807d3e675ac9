// Attachments: launch with one 25 MiB attachment and with the largest body the limits allow
// (36 MiB: the 25 MiB file plus a second one filling the rest), through @wfr/runtime, next to
// the same launch through openapi-fetch with the body a caller would build (Buffer base64,
// JSON.stringify). Each launch runs in a child process of its own (--expose-gc) so peaks do not
// mix: peak RSS over the post-gc baseline relative to the encoded body, wall time, and the
// longest event-loop stall in the client (perf_hooks monitorEventLoopDelay, 1 ms resolution).
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { join } from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { compareRow } from "../lib/rows.mjs";

export const id = "attachments";
export const title = "Attachments: memory, time and event-loop stalls of a large launch";
export const anchorName = "openapi-fetch";
export const anchor =
  "openapi-fetch POST with a JSON.stringify body (Buffer base64), same sink, own process";
export const help = `node bench/cases/attachments.mjs [--quick]
In a fresh child process per launch (node --expose-gc), launches production-shaped inputs with
one 25 MiB attachment, and with the largest body the 36 MiB limit allows, to a local sink server
in the same process, through @wfr/runtime and through openapi-fetch; 3 repeats, interleaved
(--quick: 25 MiB, one repeat). Reports peak RSS over baseline / encoded body bytes, wall time,
and the longest event-loop stall.
Targets: peak < 3x the encoded body; no stall > 50 ms in the client (@wfr/runtime side).`;

const here = fileURLToPath(import.meta.url);
const root = fileURLToPath(new URL("../../", import.meta.url));
const MiB = 1024 * 1024;

function fill(n, seed) {
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i++) bytes[i] = (i * 31 + seed) & 255;
  return bytes;
}

/**
 * The longest gap between two runs of a 1 ms timer, and the CPU time the process used inside it
 * (all its threads, so GC helpers count). A gap with about as much CPU as wall time is work that
 * held the loop; one with little CPU is the process waiting for a core of a busy machine, which
 * no slicing in the client can shorten.
 */
function longestGapProbe() {
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let worst = { gapMs: 0, cpuMs: 0 };
  let timer;
  const tick = () => {
    const now = performance.now();
    const cpu = process.cpuUsage();
    if (now - last > worst.gapMs)
      worst = {
        gapMs: now - last,
        cpuMs: (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000,
      };
    last = now;
    lastCpu = cpu;
    timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  return {
    stop() {
      clearTimeout(timer);
      tick();
      clearTimeout(timer);
      return worst;
    },
  };
}

async function measure(side, size) {
  const runtime = await import(pathToFileURL(join(root, "packages/runtime/dist/index.js")).href);
  const { default: createFetchClient } = await import(
    pathToFileURL(join(root, "bench/node_modules/openapi-fetch/dist/index.mjs")).href
  );
  let received = 0;
  const sink = createServer((req, res) => {
    req.on("data", (chunk) => {
      received += chunk.length;
    });
    req.on("end", () => {
      res.writeHead(202, { "content-type": "application/json" });
      res.end(JSON.stringify({ run_id: "run_1", workflow_id: "wf_1", status: "queued" }));
    });
  });
  // The warm-up request below leaves its connection open, and the launch reuses it. The
  // openapi-fetch side builds its body synchronously (base64, JSON.stringify of 33 MiB), on the
  // thread the sink also runs on: on a busy machine that took longer than Node's 5 s keep-alive
  // timeout, the sink's timer closed the socket right after the launch had started writing to
  // it, and the launch failed with ECONNRESET (a loaded `.ci/run`). The sink never closes an
  // idle connection; `sink.close()` still closes the idle ones.
  sink.keepAliveTimeout = 0;
  await new Promise((r) => sink.listen(0, "127.0.0.1", r));
  const baseUrl = `http://127.0.0.1:${sink.address().port}/api/v1`;
  const files = [fill(runtime.MAX_ATTACHMENT_BYTES, 1)];
  if (size === "max") {
    // The second file fills what the 36 MiB body limit leaves after the first file's base64 and
    // 4 KiB for the JSON around them.
    const left = runtime.MAX_LAUNCH_BODY_BYTES - Math.ceil(files[0].length / 3) * 4 - 4096;
    files.push(fill(Math.floor(left / 4) * 3, 2));
  }
  // Node loads its fetch (undici) on first use, a synchronous 30-50 ms on this machine that
  // either side would pay inside the window: one small request first, so the window measures
  // the launch, not Node's module loading.
  await (
    await fetch(`http://127.0.0.1:${sink.address().port}/warm`, { method: "POST", body: "{}" })
  ).arrayBuffer();
  received = 0;
  globalThis.gc();
  await new Promise((r) => setTimeout(r, 20));
  const baseline = process.resourceUsage().maxRSS * 1024;
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const longest = longestGapProbe();
  const started = performance.now();
  if (side === "wfr") {
    const wfr = runtime.createClient({ baseUrl, apiKey: "wfr_bench_key" });
    await wfr.launch("wf_1", {
      inputs: {
        invoice_pdf: runtime.file(files[0], { filename: "a.pdf", mimeType: "application/pdf" }),
        supporting_docs: files
          .slice(1)
          .map((f, i) => runtime.file(f, { filename: `s${i}.pdf`, mimeType: "application/pdf" })),
      },
    });
  } else {
    const client = createFetchClient({ baseUrl, headers: { authorization: "Bearer k" } });
    const attachments = files.map((f, i) => ({
      id: `att_${i + 1}`,
      filename: `f${i}.pdf`,
      mimeType: "application/pdf",
      base64: Buffer.from(f.buffer, f.byteOffset, f.byteLength).toString("base64"),
    }));
    const { response } = await client.POST("/automations/{workflowId}/runs", {
      params: { path: { workflowId: "wf_1" } },
      body: {
        inputs: {
          invoice_pdf: { attachment_id: "att_1" },
          supporting_docs: attachments.slice(1).map((a) => ({ attachment_id: a.id })),
        },
        input_context: { attachments },
      },
    });
    if (response.status !== 202) throw new Error(`sink answered ${response.status}`);
  }
  const ms = performance.now() - started;
  histogram.disable();
  const gap = longest.stop();
  const peak = process.resourceUsage().maxRSS * 1024;
  await new Promise((r) => sink.close(r));
  return {
    side,
    size,
    bodyBytes: received,
    peakOverBaselineBytes: peak - baseline,
    ms,
    maxStallMs: histogram.max / 1e6,
    longestGapMs: gap.gapMs,
    longestGapCpuMs: gap.cpuMs,
  };
}

export async function run({ quick = false, log = console.log } = {}) {
  const sizes = quick ? ["25MiB"] : ["25MiB", "max"];
  const repeats = quick ? 1 : 3;
  const samples = {};
  for (let r = 0; r < repeats; r++)
    for (const size of sizes)
      for (const side of ["wfr", "openapi-fetch"]) {
        const result = JSON.parse(
          execFileSync(process.execPath, ["--expose-gc", here, "--child", side, size], {
            encoding: "utf8",
            maxBuffer: 1 << 20,
          }),
        );
        const key = `${side}@${size}`;
        samples[key] ??= [];
        samples[key].push(result);
        log(
          `repeat ${r + 1}, ${size}, ${side}: body ${(result.bodyBytes / MiB).toFixed(1)} MiB, peak +${(result.peakOverBaselineBytes / MiB).toFixed(1)} MiB, ${result.ms.toFixed(0)} ms, longest stall ${result.maxStallMs.toFixed(1)} ms (longest timer gap ${result.longestGapMs.toFixed(1)} ms, process CPU in it ${result.longestGapCpuMs.toFixed(1)} ms)`,
        );
      }
  const rows = [];
  const get = (side, size, f) => samples[`${side}@${size}`].map(f);
  for (const size of sizes) {
    const name = size === "max" ? "largest body (36 MiB limit)" : "one 25 MiB attachment";
    rows.push(
      compareRow(
        `${name}: peak RSS over baseline / body`,
        "x",
        get("wfr", size, (x) => x.peakOverBaselineBytes / x.bodyBytes),
        get("openapi-fetch", size, (x) => x.peakOverBaselineBytes / x.bodyBytes),
        { text: "wfr < 3x body", holds: (_r, ours) => ours.median < 3 },
      ),
      compareRow(
        `${name}: launch time`,
        "ms",
        get("wfr", size, (x) => x.ms),
        get("openapi-fetch", size, (x) => x.ms),
      ),
      compareRow(
        `${name}: longest event-loop stall`,
        "ms",
        get("wfr", size, (x) => x.maxStallMs),
        get("openapi-fetch", size, (x) => x.maxStallMs),
        { text: "wfr <= 50 ms (max)", holds: (_r, ours) => ours.max <= 50 },
      ),
      compareRow(
        `${name}: process CPU inside the longest 1 ms-timer gap`,
        "ms",
        get("wfr", size, (x) => x.longestGapCpuMs),
        get("openapi-fetch", size, (x) => x.longestGapCpuMs),
      ),
      compareRow(
        `${name}: encoded body`,
        "MiB",
        get("wfr", size, (x) => x.bodyBytes / MiB),
        get("openapi-fetch", size, (x) => x.bodyBytes / MiB),
      ),
    );
  }
  return {
    rows,
    samples,
    notes: [
      "Each launch in a fresh process; baseline = maxRSS after gc() with the file bytes already allocated, so the figure is what encoding and sending cost.",
      "A stall with much less process CPU inside the longest timer gap than the gap itself is the process waiting for a core (load average over the core count), not client work.",
    ],
  };
}

if (process.argv[2] === "--child") {
  console.log(JSON.stringify(await measure(process.argv[3], process.argv[4])));
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { standalone } = await import("../lib/standalone.mjs");
  await standalone({ id, title, anchor, help, run });
}
