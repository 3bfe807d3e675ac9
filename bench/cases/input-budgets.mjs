// What a hostile caller costs the emulator at ten times each body budget (docs/limits.md): each
// route's budget times ten, streamed without a Content-Length (the server has to count), while
// another caller polls a cheap route every few milliseconds. The emulator runs in a process of
// its own, so its peak memory is its own: the kernel's high-water mark (VmHWM, reset through
// /proc/<pid>/clear_refs before each surface) over its resident size just before. The other
// caller's longest wait for an answer during the upload is the stall it saw.
// Anchor: the budget itself (peak over baseline / budget), and a stall target of 100 ms.
import { readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { startEmulatorProcess } from "../lib/emulator-process.mjs";
import { compareRow, valueAtMost } from "../lib/rows.mjs";

export const id = "input-budgets";
export const title =
  "Input budgets: the emulator's memory and other callers' waits at ten times each body budget";
export const anchorName = "the budget";
export const anchor = "each route's own body budget (docs/limits.md); a 100 ms stall";
export const help = `node bench/cases/input-budgets.mjs [--quick]
Starts the built emulator in its own process; for each route with a body budget (launch, /mcp,
the admin API, a web form, a portal action, the OAuth token endpoint) streams ten times the budget
(no Content-Length) while another client polls GET /_emulator/clock; reports the emulator's peak
resident memory over its baseline (VmHWM after clear_refs) and the poller's longest wait.
3 repeats (--quick: 1). Targets: peak growth <= 2x the budget; no other caller waits > 100 ms.`;

const MiB = 1024 * 1024;
const KiB = 1024;

function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
  return { rss: kib("VmRSS") * KiB, peak: kib("VmHWM") * KiB };
}

/** Streams `total` bytes; resolves with the answer's status once the server answered. */
function stream(url, path, total, headers) {
  return new Promise((resolve, reject) => {
    let answered = false;
    let sent = 0;
    const req = request(`${url}${path}`, { method: "POST", headers });
    req.on("response", (res) => {
      answered = true;
      res.resume();
      res.on("end", () => {
        resolve(res.statusCode);
        req.destroy();
      });
    });
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    const chunk = Buffer.alloc(64 * KiB, 0x20);
    const pump = () => {
      while (sent < total && !answered) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

/** Polls a cheap route back to back until `done`; the longest wait for one answer. */
async function poller(url, done) {
  let longest = 0;
  while (!done()) {
    const start = performance.now();
    await (await fetch(`${url}/_emulator/clock`)).arrayBuffer();
    longest = Math.max(longest, performance.now() - start);
    await new Promise((r) => setTimeout(r, 2));
  }
  return longest;
}

async function admin(url, path, body) {
  const response = await fetch(`${url}/_emulator${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return response.json();
}

/** Each surface: its budget, its path and the headers that get a request past authentication. */
async function surfaces(url) {
  const key = (await admin(url, "/keys", { environment: "production" })).token;
  const pat = (await admin(url, "/personal-access-tokens", { environment: "production" })).token;
  const portal = (await admin(url, "/portal-sessions", { environment: "production" })).cookie;
  const link = (await admin(url, "/sign-in-links", {})).url;
  const signIn = await fetch(link, { redirect: "manual" });
  const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0];
  const json = { "content-type": "application/json" };
  return [
    {
      label: "launch body",
      budget: 36 * MiB,
      path: "/production/api/v1/automations/wf_P7Qd2Lx9/runs",
      headers: { ...json, authorization: `Bearer ${key}` },
    },
    {
      label: "/mcp body",
      budget: 36 * MiB,
      path: "/mcp",
      headers: { ...json, authorization: `Bearer ${pat}` },
    },
    { label: "admin API body", budget: 8 * MiB, path: "/_emulator/keys", headers: json },
    {
      label: "web application form",
      budget: 1 * MiB,
      path: "/_app/api-faults",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    },
    {
      label: "portal action",
      budget: 64 * KiB,
      path: "/production/portal/workflows/wf_P1dRaft0/enable",
      headers: { ...json, cookie: String(portal) },
    },
    {
      label: "OAuth token request",
      budget: 64 * KiB,
      path: "/oauth/token",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    },
  ];
}

/** Resets the process's high-water mark; false where the kernel does not let this process. */
function resetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

async function measure(emulator, surface) {
  // Without a reset, the peak is the process's since it started: an upper bound.
  resetPeak(emulator.pid);
  const before = memoryOf(emulator.pid);
  let done = false;
  const waited = poller(emulator.url, () => done);
  const status = await stream(emulator.url, surface.path, surface.budget * 10, surface.headers);
  done = true;
  const stallMs = await waited;
  const after = memoryOf(emulator.pid);
  return { status, growth: Math.max(0, after.peak - before.rss), stallMs };
}

export async function run({ quick = false, log = console.log } = {}) {
  const repeats = quick ? 1 : 3;
  const emulator = await startEmulatorProcess({ clock: "virtual" });
  try {
    const list = await surfaces(emulator.url);
    const rows = [];
    const samples = {};
    for (const surface of list) {
      const taken = [];
      for (let r = 0; r < repeats; r += 1) taken.push(await measure(emulator, surface));
      samples[surface.label] = taken;
      const statuses = [...new Set(taken.map((t) => t.status))].join(", ");
      log(
        `${surface.label}: 10 x ${surface.budget} bytes -> ${statuses}; peak growth ${taken.map((t) => (t.growth / MiB).toFixed(1)).join(", ")} MiB; longest wait of another caller ${taken.map((t) => t.stallMs.toFixed(0)).join(", ")} ms`,
      );
      if (taken.some((t) => t.status !== 413))
        throw new Error(`${surface.label}: answered ${statuses}, not 413`);
      rows.push(
        compareRow(
          `${surface.label}, 10x budget: peak memory growth / budget`,
          "x",
          taken.map((t) => t.growth / surface.budget),
          undefined,
          valueAtMost(2, "x"),
        ),
        compareRow(
          `${surface.label}, 10x budget: another caller's longest wait`,
          "ms",
          taken.map((t) => t.stallMs),
          undefined,
          valueAtMost(100, "ms"),
        ),
      );
    }
    return {
      rows,
      samples,
      notes: [
        `${repeats} repeat(s) per surface, one emulator process (virtual clock), streamed in 64 KiB chunks without a Content-Length; every answer was 413.`,
        "Peak growth: VmHWM after writing 5 to /proc/<pid>/clear_refs, minus VmRSS just before the upload (Linux only).",
      ],
    };
  } finally {
    await emulator.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { standalone } = await import("../lib/standalone.mjs");
  await standalone({ id, title, anchor, help, run });
}
