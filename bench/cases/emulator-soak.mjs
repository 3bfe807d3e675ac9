// Emulator soak: the built emulator (`dist/bin.js`, its own process, `--data`, real clock) under
// steady mixed traffic for minutes, as a dev server left running sees it. Per run: a launch
// (Idempotency-Key; one in ten sent twice), status polls, the answer to its human checkpoint
// (half the runs), the result, the events; a browser tab on the run history polling its rows
// every 1.5 s as the page does; every second an old run's status and result (runs the
// emulator may hold on disk only). In the emulator's process (lib/soak-probe.mjs): event-loop
// delay and the heap after a full GC. Heap growth per 10,000 runs is the slope of heap against
// runs launched once the finished-run limit is reached (lib/soak-stats.mjs).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { compareRow, valueAtMost } from "../lib/rows.mjs";
import { heapSlopePer10k, percentile } from "../lib/soak-stats.mjs";

export const id = "emulator-soak";
export const title = "Emulator with --data under steady mixed traffic";
export const anchorName = "target";
export const anchor =
  "the targets themselves; for event-loop delay, an idle Node process beside it (the machine's own stalls)";
export const help = `node bench/cases/emulator-soak.mjs [--quick]
Spawns dist/bin.js --data <tmp> --clock real, drives 20 launches/s of mixed traffic (launch,
status polls, human-input on half the runs, result, events, one run in ten launched twice with
its key, an old run read back every second, the run history's rows polled every 1.5 s by a
signed-in tab) for 10 minutes, sampling the emulator's heap after a
full GC and its event-loop delay every 10 s. Targets: heap growth <= 5 MB per 10,000 runs once
the finished-run limit (--finished-runs-in-memory, default 1,000) is reached; event-loop delay
p99 <= 50 ms; no request over 1 s.
--quick: 6 s, the limit at 20 runs, a sample every second (numbers, not a verdict).
Environment: WFR_SOAK_SECONDS and WFR_SOAK_RATE override the duration and launches/s;
WFR_SOAK_LIMIT passes --finished-runs-in-memory (empty: not passed, for builds without it);
WFR_SOAK_BIN runs another build's bin.js; WFR_SOAK_NODE_ARGS adds node flags (--cpu-prof).`;

const root = fileURLToPath(new URL("../../", import.meta.url));
const BIN = process.env.WFR_SOAK_BIN ?? join(root, "packages/emulator/dist/bin.js");
const PROBE = join(root, "bench/lib/soak-probe.mjs");
const CRM = "wf_P9hHc2Vb"; // inputs: contacts (list); given a human checkpoint below
const INVOICE = "wf_P7Qd2Lx9"; // inputs: vendor_name, amount, invoice_pdf (an attachment)
const INVOICE_BODY = {
  inputs: { vendor_name: "Soak Paper Co", amount: 12.5, invoice_pdf: { attachment_id: "a1" } },
  input_context: {
    attachments: [
      {
        id: "a1",
        filename: "invoice.pdf",
        mimeType: "application/pdf",
        base64: Buffer.from("%PDF-1.4\n% soak invoice\n").toString("base64"),
      },
    ],
  },
};
const TERMINAL = new Set([
  "succeeded",
  "failed",
  "error",
  "cancelled",
  "terminated",
  "dead_letter",
  "human_wait_expired",
]);

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The emulator in a process of its own, with the probe loaded; resolves once it answers. */
async function spawnEmulator({ dir, limit, probeMs }) {
  const port = await freePort();
  const extra = (process.env.WFR_SOAK_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const args = [...extra, "--expose-gc", "--import", pathToFileURL(PROBE).href, BIN];
  args.push("--port", String(port), "--data", join(dir, "journal.jsonl"), "--quiet");
  if (limit !== "") args.push("--finished-runs-in-memory", String(limit));
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, WFR_SOAK_PROBE: join(dir, "probe.jsonl"), WFR_SOAK_PROBE_MS: probeMs },
  });
  let stderr = "";
  let stdout = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`emulator exited ${child.exitCode}: ${stderr}`);
    try {
      await fetch(`${url}/_emulator/environments`, { signal: AbortSignal.timeout(1000) });
      break;
    } catch {
      await sleep(100);
    }
  }
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", resolve);
      child.kill("SIGTERM");
    });
  const signIn = /sign in \(one-time link\): (\S+)/.exec(stdout)?.[1];
  return { url, stop, signIn, stderr: () => stderr };
}

/**
 * An idle Node process with the same probe, beside the emulator: on a shared machine, a stall it
 * shows too is the machine's (a process waiting for a core), not the emulator's work.
 */
function spawnIdle(dir, probeMs) {
  const child = spawn(
    process.execPath,
    ["--expose-gc", "--import", pathToFileURL(PROBE).href, "-e", "setInterval(() => {}, 1000)"],
    {
      stdio: "ignore",
      env: { ...process.env, WFR_SOAK_PROBE: join(dir, "idle.jsonl"), WFR_SOAK_PROBE_MS: probeMs },
    },
  );
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", resolve);
      child.kill("SIGTERM");
    });
}

/** A browser tab left open on the run history: signed in, it polls the rows as the page does. */
async function openRunHistory(signIn) {
  const r = await fetch(signIn, { redirect: "manual" });
  const cookie = (r.headers.get("set-cookie") ?? "").split(";")[0];
  const latencies = [];
  return {
    latencies,
    poll: async () => {
      const t0 = performance.now();
      const rows = await fetch(new URL("/_app/runs/rows", signIn), { headers: { cookie } });
      await rows.text();
      if (rows.status !== 200) throw new Error(`run history rows: ${rows.status}`);
      latencies.push(performance.now() - t0);
    },
  };
}

/** The traffic: one run's life at a time per call, every request timed. */
function traffic(url, token) {
  const latencies = [];
  const statuses = {};
  const finished = [];
  let launched = 0;
  let failures = 0;
  const call = async (method, path, body, headers = {}) => {
    const t0 = performance.now();
    const r = await fetch(`${url}/production/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body ? { "content-type": "application/json" } : {}),
        ...headers,
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await r.text();
    latencies.push(performance.now() - t0);
    statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    return { status: r.status, body: text ? JSON.parse(text) : undefined };
  };
  const life = async (n) => {
    const human = n % 2 === 0;
    const wf = human ? CRM : INVOICE;
    const body = human
      ? { inputs: { contacts: [] }, metadata: { n } }
      : { ...INVOICE_BODY, metadata: { n } };
    const key = { "idempotency-key": `soak-${process.pid}-${n}` };
    const launch = await call("POST", `/automations/${wf}/runs`, body, key);
    if (launch.status !== 202) throw new Error(`launch answered ${launch.status}`);
    launched += 1;
    const runId = launch.body.run_id;
    if (n % 10 === 0) await call("POST", `/automations/${wf}/runs`, body, key);
    for (let i = 0; i < 200; i++) {
      await sleep(100);
      const st = await call("GET", `/runs/${runId}`);
      if (TERMINAL.has(st.body.status)) break;
      const action = st.body.human_action;
      if (st.body.status === "waiting_for_human_live" && action && !action.response_accepted) {
        await call("POST", `/runs/${runId}/human-input`, {
          checkpoint_id: action.checkpoint_id,
          response: { approved: true },
        });
      }
    }
    const result = await call("GET", `/runs/${runId}/result`);
    if (result.status !== 200) throw new Error(`result answered ${result.status}`);
    await call("GET", `/runs/${runId}/events`);
    finished.push(runId);
  };
  return {
    latencies,
    statuses,
    finished,
    launchedCount: () => launched,
    failures: () => failures,
    start: (n) =>
      life(n).catch((e) => {
        failures += 1;
        if (failures <= 3) console.error(`soak: run ${n}: ${e.message}`);
      }),
    readOld: async () => {
      if (finished.length === 0) return;
      const runId = finished[Math.floor(Math.random() * Math.min(finished.length, 1000))];
      await call("GET", `/runs/${runId}`);
      await call("GET", `/runs/${runId}/result`);
    },
  };
}

export async function run({ quick = false, log = console.log } = {}) {
  const seconds = Number(process.env.WFR_SOAK_SECONDS ?? (quick ? 6 : 600));
  const rate = Number(process.env.WFR_SOAK_RATE ?? 20);
  const limit = process.env.WFR_SOAK_LIMIT ?? (quick ? "20" : "");
  const retention = limit === "" ? 1000 : Number(limit);
  const probeMs = quick ? "1000" : "10000";
  const dir = mkdtempSync(join(tmpdir(), "wfr-bench-soak-"));
  const emu = await spawnEmulator({ dir, limit, probeMs });
  const stopIdle = spawnIdle(dir, probeMs);
  try {
    const keyRes = await fetch(`${emu.url}/_emulator/keys`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ environment: "production" }),
    });
    const { token } = await keyRes.json();
    const scenario = async (wf, steps) => {
      const r = await fetch(
        `${emu.url}/_emulator/environments/production/workflows/${wf}/scenario`,
        {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ steps }),
        },
      );
      if (r.status !== 200) throw new Error(`scenario: ${r.status} ${await r.text()}`);
    };
    await scenario(CRM, [
      { wait_ms: 100 },
      { event: { type: "crm.contacts_read", count: 3 } },
      { human: { kind: "approval", reason: "confirm the sync", expires_in_ms: 600_000 } },
      { succeed: {} },
    ]);
    await scenario(INVOICE, [
      { wait_ms: 200 },
      { event: { type: "erp.invoice_booked" } },
      { succeed: {} },
    ]);
    const t = traffic(emu.url, token);
    if (!emu.signIn) throw new Error("the emulator printed no sign-in link");
    const tab = await openRunHistory(emu.signIn);
    let nextPoll = Date.now() + 1500;
    const timeline = []; // [time, runs launched]
    const lives = [];
    const started = Date.now();
    const end = started + seconds * 1000;
    let n = 0;
    let nextOld = started + 1000;
    while (Date.now() < end) {
      const due = Math.floor(((Date.now() - started) / 1000) * rate);
      while (n < due) lives.push(t.start(n++));
      if (Date.now() >= nextPoll) {
        nextPoll += 1500;
        lives.push(tab.poll());
      }
      if (Date.now() >= nextOld) {
        nextOld += 1000;
        lives.push(t.readOld());
        timeline.push([Date.now(), t.launchedCount()]);
      }
      await sleep(10);
    }
    await Promise.all(lives);
    timeline.push([Date.now(), t.launchedCount()]);
    await sleep(Number(probeMs) + 500); // one more probe sample after the last run
    const read = (name) =>
      readFileSync(join(dir, name), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
    const samples = read("probe.jsonl");
    const idle = read("idle.jsonl");
    const idleLast = idle[idle.length - 1];
    const idleMax = idle.reduce((m, s) => Math.max(m, s.window_max_ms), 0);
    const launchedAt = (at) => {
      let runs = 0;
      for (const [time, count] of timeline) if (time <= at) runs = count;
      return runs;
    };
    const points = samples.map((s) => ({ runs: launchedAt(s.at), heap: s.heap_used }));
    const slope = heapSlopePer10k(points, retention);
    const sorted = [...t.latencies, ...tab.latencies].sort((a, b) => a - b);
    const last = samples[samples.length - 1];
    const worstWindow = samples.reduce((m, s) => Math.max(m, s.window_max_ms), 0);
    log(
      `${t.launchedCount()} runs launched in ${seconds} s (${t.failures()} lives failed), ${t.latencies.length} requests ${JSON.stringify(t.statuses)}`,
    );
    log(
      `heap after GC: first ${(samples[0].heap_used / 1e6).toFixed(1)} MB, last ${(last.heap_used / 1e6).toFixed(1)} MB; rss last ${(last.rss / 1e6).toFixed(1)} MB`,
    );
    log(
      `event-loop delay p99 ${last.p99_ms.toFixed(1)} ms, max ${worstWindow.toFixed(1)} ms (an idle process beside it: p99 ${idleLast.p99_ms.toFixed(1)} ms, max ${idleMax.toFixed(1)} ms); client p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms`,
    );
    const over1s = sorted.filter((x) => x > 1000).length;
    const rows = [
      compareRow(
        `heap growth per 10,000 runs past ${retention} finished runs`,
        "MB",
        [slope],
        undefined,
        valueAtMost(5, "MB"),
      ),
      compareRow(
        "event-loop delay p99 (anchor: an idle process beside it)",
        "ms",
        [last.p99_ms],
        [idleLast.p99_ms],
        valueAtMost(50, "ms"),
      ),
      compareRow("event-loop delay max (anchor: the idle process)", "ms", [worstWindow], [idleMax]),
      compareRow("client p99", "ms", [percentile(sorted, 99)]),
      compareRow("client max", "ms", [sorted[sorted.length - 1]]),
      compareRow("requests over 1 s", "requests", [over1s], undefined, valueAtMost(0, "requests")),
    ];
    return {
      rows,
      samples: { probe: samples, idle, timeline },
      notes: [
        `${seconds} s at ${rate} launches/s, --data, real clock, finished runs in memory: ${retention}${limit === "" ? " (the default)" : ""}; the emulator in its own process.`,
      ],
    };
  } finally {
    await emu.stop();
    await stopIdle();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { standalone } = await import("../lib/standalone.mjs");
  await standalone({ id, title, anchor, help, run });
}
