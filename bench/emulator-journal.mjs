#!/usr/bin/env node
// The built emulator's journal over time, in one run:
// - journal bytes per run over its whole life (launch with --meta-mib of metadata, a callback,
//   every state change to the end), against the launch body's size;
// - a journal grown to --target-mb by such runs: restart time (replay + compaction on start);
// - the worst event-loop stall while a background compaction of that state runs
//   (monitorEventLoopDelay max), next to its synchronous serialization time.
//
//   npx pnpm@10.34.8 --filter @wfr/emulator build && node bench/emulator-journal.mjs
//   node bench/emulator-journal.mjs --target-mb 100 --meta-mib 4
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: {
    "target-mb": { type: "string", default: "100" },
    "meta-mib": { type: "string", default: "4" },
  },
});
const TARGET = Number(args["target-mb"]) * 1e6;
const META = Number(args["meta-mib"]) * 1024 * 1024;
const CRM = "wf_P9hHc2Vb";

const { startEmulator } = await import("../packages/emulator/dist/index.js");
const dir = mkdtempSync(join(tmpdir(), "wfr-bench-journal-"));
const data = join(dir, "journal.jsonl");

async function call(method, url, body, headers = {}) {
  const r = await fetch(url, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

try {
  // compactAfterBytes above the target: only the measured compaction runs.
  let emu = await startEmulator({
    port: 0,
    clock: "virtual",
    data,
    allowLocalCallbacks: true,
    compactAfterBytes: 10 * TARGET,
  });
  const key = await call("POST", `${emu.url}/_emulator/keys`, { environment: "production" });
  const auth = { authorization: `Bearer ${key.body.token}` };
  const perRun = [];
  let bodyBytes = 0;
  let runs = 0;
  while (statSync(data).size < TARGET) {
    const before = statSync(data).size;
    const body = {
      inputs: { contacts: [] },
      metadata: { blob: "m".repeat(META), n: runs },
      callback_url: "http://127.0.0.1:9/closed",
    };
    bodyBytes = JSON.stringify(body).length;
    const r = await call(
      "POST",
      `${emu.url}/production/api/v1/automations/${CRM}/runs`,
      body,
      auth,
    );
    if (r.status !== 202) throw new Error(`launch: ${r.status}`);
    for (let i = 0; i < 20; i++)
      await call("POST", `${emu.url}/_emulator/clock/advance`, { ms: 100 });
    perRun.push(statSync(data).size - before);
    runs += 1;
  }
  // Let the refused callbacks' retries finish (their attempts are journalled too).
  await new Promise((r) => setTimeout(r, 1500));
  const size = statSync(data).size;
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const compact = await call("POST", `${emu.url}/_emulator/journal/compact`, {});
  h.disable();
  await emu.close();
  const t0 = performance.now();
  emu = await startEmulator({ port: 0, clock: "virtual", data });
  const restartMs = performance.now() - t0;
  await emu.close();
  const median = [...perRun].sort((a, b) => a - b)[Math.floor(perRun.length / 2)];
  console.log(
    JSON.stringify(
      {
        runs,
        launch_body_bytes: bodyBytes,
        journal_bytes_per_run_median: median,
        ratio: Number((median / bodyBytes).toFixed(4)),
        journal_mb_before_compaction: Number((size / 1e6).toFixed(1)),
        background_compaction: compact.body,
        event_loop_max_stall_ms: Number((h.max / 1e6).toFixed(1)),
        restart_ms: Math.round(restartMs),
        restart_journal_mb: Number((statSync(data).size / 1e6).toFixed(1)),
      },
      null,
      2,
    ),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
