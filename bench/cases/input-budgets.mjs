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
import { MEMORY_RESOLUTION } from "@wfr/test-servers";
import { filler, KiB, MiB, send, toolCall } from "../lib/budget-send.mjs";
import { otherSurfaces } from "../lib/budget-surfaces.mjs";
import { startEmulatorProcess } from "../lib/emulator-process.mjs";
import { compareRow, valueAtMost } from "../lib/rows.mjs";

/**
 * Twice the budget, or the resolution below which the kernel's high-water mark cannot tell a body
 * kept from the process's own churn (`MEMORY_RESOLUTION`, the suite's rule, docs/limits.md).
 */
function growthTarget(budget) {
  const limit = Math.max(2, MEMORY_RESOLUTION / budget);
  if (limit === 2) return valueAtMost(2, "x");
  return {
    text: `<= 2 x, or ${MEMORY_RESOLUTION / MiB} MiB (${limit.toFixed(limit < 10 ? 1 : 0)} x)`,
    holds: (_r, ours) => ours.median <= limit,
  };
}

export const id = "input-budgets";
export const title =
  "Input budgets: each server's memory and other callers' waits at ten times each input budget";
export const anchorName = "the budget";
export const anchor = "each route's own body budget (docs/limits.md); a 100 ms stall";
export const help = `node bench/cases/input-budgets.mjs [--quick]
Starts the built emulator, a callback receiver, the invoice desk and a replaying test process, each
in its own process; for each input surface (the emulator's body routes, drafts, scenarios, the run
search; a recorded run through a pipe; a delivery; the desk's sign-in, forms, upload and callbacks)
sends ten times the budget
(streamed, no Content-Length) while another client polls a cheap route of that process; reports
its peak resident memory over its baseline (VmHWM after clear_refs) and the poller's longest wait.
3 repeats (--quick: 1). Targets: peak growth <= 2x the budget; no other caller waits > 100 ms.`;

function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
  return { rss: kib("VmRSS") * KiB, peak: kib("VmHWM") * KiB };
}

/** One GET on a connection of its own (a kept-alive one can be closed by the server as it is reused). */
function get(url) {
  return new Promise((resolve, reject) => {
    request(url, { agent: false }, (res) => {
      res.resume();
      res.on("end", resolve);
    })
      .on("error", reject)
      .end();
  });
}

/** Polls a cheap route back to back until `done`; the longest wait for one answer. */
async function poller(url, done) {
  let longest = 0;
  while (!done()) {
    const start = performance.now();
    await get(url);
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
      label: "/mcp launch_run body",
      budget: 36 * MiB,
      path: "/mcp",
      headers: { ...json, authorization: `Bearer ${pat}` },
      // Only a launch_run may send the launch body's budget: the call, then its file's base64.
      chunks: (total) =>
        toolCall(
          "launch_run",
          (function* () {
            yield '{"workflow_id":"wf_P7Qd2Lx9","inputs":{},"idempotency_key":"k","files":{"invoice_pdf":{"filename":"i.pdf","mime_type":"application/pdf","base64":"';
            yield* filler(total, 0x41);
            yield '"}}}';
          })(),
        ),
    },
    {
      label: "/mcp body of any other call",
      budget: 2 * MiB,
      path: "/mcp",
      headers: { ...json, authorization: `Bearer ${pat}` },
      chunks: (total) =>
        toolCall(
          "get_run",
          (function* () {
            yield '{"run_id":"';
            yield* filler(total, 0x41);
            yield '"}';
          })(),
        ),
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

async function measure(surface) {
  const { pid, poll } = surface.target;
  await surface.prepare?.();
  // The poller's first answer from a process compiles its route: not a stall of this input.
  await get(poll);
  // Without a reset, the peak is the process's since it started: an upper bound.
  resetPeak(pid);
  const before = memoryOf(pid);
  let done = false;
  const waited = poller(poll, () => done);
  const answer = await surface.send();
  done = true;
  const stallMs = await waited;
  const after = memoryOf(pid);
  return { answer, growth: Math.max(0, after.peak - before.rss), stallMs };
}

/** The emulator's body routes: ten times each budget, streamed; refused with 413. */
function bodySurfaces(emulator, list) {
  return list.map((s) => ({
    label: `${s.label} (${size(10 * s.budget)})`,
    budget: s.budget,
    target: { pid: emulator.pid, poll: `${emulator.url}/_emulator/clock` },
    send: () =>
      send(`${emulator.url}${s.path}`, {
        headers: s.headers,
        chunks: s.chunks ? s.chunks(10 * s.budget) : filler(10 * s.budget, 0x20),
      }),
    refused: (a) => a.status === 413,
  }));
}

const size = (bytes) => (bytes >= MiB ? `${bytes / MiB} MiB` : `${bytes / KiB} KiB`);

export async function run({ quick = false, log = console.log } = {}) {
  const repeats = quick ? 1 : 3;
  const emulator = await startEmulatorProcess({ clock: "virtual" });
  const others = await otherSurfaces(emulator);
  try {
    const list = [...bodySurfaces(emulator, await surfaces(emulator.url)), ...others.surfaces];
    const rows = [];
    const samples = {};
    for (const surface of list) {
      const taken = [];
      for (let r = 0; r < repeats; r += 1) taken.push(await measure(surface));
      samples[surface.label] = taken.map(({ growth, stallMs }) => ({ growth, stallMs }));
      const answers = [
        ...new Set(taken.map((t) => `${t.answer.status} ${t.answer.refusal ?? ""}`.trim())),
      ];
      log(
        `${surface.label}: ${answers.join(" | ")}; peak growth ${taken.map((t) => (t.growth / MiB).toFixed(2)).join(", ")} MiB (budget ${size(surface.budget)}); longest wait of another caller ${taken.map((t) => t.stallMs.toFixed(0)).join(", ")} ms`,
      );
      if (!taken.every((t) => surface.refused(t.answer)))
        throw new Error(`${surface.label}: answered ${answers.join(" | ")}, not its refusal`);
      rows.push(
        compareRow(
          `${surface.label}: peak memory growth / budget`,
          "x",
          taken.map((t) => t.growth / surface.budget),
          undefined,
          growthTarget(surface.budget),
        ),
        compareRow(
          `${surface.label}: another caller's longest wait`,
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
        `${repeats} repeat(s) per surface; each server in a process of its own (the emulator with a virtual clock, a callback receiver, the invoice desk, a test process replaying a recorded run); bodies streamed in 64 KiB chunks without a Content-Length; every answer was the surface's refusal.`,
        "Peak growth: VmHWM after writing 5 to /proc/<pid>/clear_refs, minus VmRSS just before the input (Linux only). Count budgets (steps, fields) are set against the bytes that carry them; see docs/limits.md.",
      ],
    };
  } finally {
    await others.stop();
    await emulator.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { standalone } = await import("../lib/standalone.mjs");
  await standalone({ id, title, anchor, help, run });
}
