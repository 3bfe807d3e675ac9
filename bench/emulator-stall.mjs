#!/usr/bin/env node
// Worst event-loop stall of the built emulator while it handles one maximum-size launch:
// metadata of --keys keys (default 1,000,000, about 16.8 MB of JSON), sent from a child process
// so only the server's work is on this event loop. Side by side: the same body answered by a
// bare node:http server that reads it and JSON.parses it (the floor any JSON API pays).
// Each server first answers one small launch (one metadata key) that is not measured: a fresh
// server's first request pays for compiling its code paths (hundreds of ms), which at
// --keys 10000 would be most of what the script measured.
//
//   npx pnpm@10.34.8 --filter @wfr/emulator build && node bench/emulator-stall.mjs
//   node bench/emulator-stall.mjs --keys 1000000
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({ options: { keys: { type: "string", default: "1000000" } } });
const KEYS = Number(args.keys);

// The client: builds the body itself and POSTs it once, printing status and bytes.
const CLIENT = `
const [url, token, keys] = process.argv.slice(1);
// Launches wf_P9hHc2Vb (inputs: contacts) with metadata of \`keys\` members.
const metadata = {};
for (let i = 0; i < Number(keys); i++) metadata["k" + i] = i;
const body = JSON.stringify({ inputs: { contacts: [] }, metadata });
const t0 = performance.now();
fetch(url, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer " + token }, body })
  .then(async (r) => { await r.arrayBuffer(); console.log(JSON.stringify({ status: r.status, bytes: body.length, ms: performance.now() - t0 })); });
`;

function runClient(url, token, keys) {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ["-e", CLIENT, url, token, String(keys)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    c.stdout.on("data", (d) => {
      out += d;
    });
    c.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(out))));
  });
}

/** One warm-up launch (not measured), then the measured one with --keys members. */
async function measure(url, token) {
  const warm = await runClient(url, token, 1);
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const res = await runClient(url, token, KEYS);
  h.disable();
  return { ...res, warmStatus: warm.status, stallMs: h.max / 1e6 };
}

const { startEmulator } = await import("../packages/emulator/dist/index.js");
const emu = await startEmulator({ port: 0, clock: "virtual" });
const bare = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    JSON.parse(Buffer.concat(chunks).toString("utf8"));
    res.writeHead(202, { "content-type": "application/json" });
    res.end('{"status":"queued"}');
  });
});
await new Promise((r) => bare.listen(0, "127.0.0.1", r));
try {
  const base = String(emu.url).replace(/\/$/, "");
  const key = await fetch(`${base}/_emulator/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ environment: "production" }),
  }).then((r) => r.json());
  const t = performance.now();
  const e = await measure(`${base}/production/api/v1/automations/wf_P9hHc2Vb/runs`, key.token);
  const b = await measure(`http://127.0.0.1:${bare.address().port}/`, "x");
  const row = (name, r) =>
    `| ${name} | ${r.warmStatus} | ${r.status} | ${r.ms.toFixed(0)} | ${r.stallMs.toFixed(1)} |`;
  console.log(
    `metadata keys: ${KEYS}, body ${(e.bytes / 1e6).toFixed(2)} MB, after one warm-up launch each`,
  );
  console.log("| server | warm-up status | status | request ms | worst stall ms |");
  console.log("| --- | --- | --- | --- | --- |");
  console.log(row("emulator", e));
  console.log(row("bare node:http + JSON.parse", b));
  console.log(
    `stall ratio emulator/bare: ${(e.stallMs / b.stallMs).toFixed(2)}  (total ${((performance.now() - t) / 1000).toFixed(1)} s)`,
  );
} finally {
  await emu.close();
  await new Promise((r) => bare.close(r));
}
