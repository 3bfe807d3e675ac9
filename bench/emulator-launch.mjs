#!/usr/bin/env node
// Launch throughput of the built emulator next to a bare node:http server answering a fixed
// 202 JSON body, measured in one run on loopback with the same client.
//
//   npx pnpm@10.34.8 --filter @wfr/emulator build && node bench/emulator-launch.mjs
//   node bench/emulator-launch.mjs --concurrency 64 --seconds 10 --max 20000
//
// See bench/README.md.
import { Agent, createServer, request } from "node:http";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: {
    concurrency: { type: "string", default: "64" },
    seconds: { type: "string", default: "10" },
    max: { type: "string", default: "20000" },
    warmup: { type: "string", default: "500" },
  },
});
const CONCURRENCY = Number(args.concurrency);
const SECONDS = Number(args.seconds);
const MAX = Number(args.max);
const WARMUP = Number(args.warmup);

const WORKFLOW = "wf_P7Qd2Lx9";
const PDF_B64 = Buffer.from("%PDF-1.4\n% bench invoice\n").toString("base64");
const BODY = Buffer.from(
  JSON.stringify({
    inputs: { vendor_name: "Bench Paper Co", amount: 42.5, invoice_pdf: { attachment_id: "a1" } },
    input_context: {
      attachments: [
        { id: "a1", filename: "invoice.pdf", mimeType: "application/pdf", base64: PDF_B64 },
      ],
    },
    metadata: { bench: true },
  }),
);

function send(agent, url, headers) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", agent, headers }, (res) => {
      res.on("data", () => {});
      res.on("end", () => resolve(res.statusCode));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(BODY);
  });
}

function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)];
}

async function drive(name, url, token) {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const baseHeaders = {
    "content-type": "application/json",
    "content-length": String(BODY.length),
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
  let seq = 0;
  const one = () =>
    send(agent, url, {
      ...baseHeaders,
      "idempotency-key": `bench-${name}-${process.pid}-${seq++}`,
    });

  // Warm up (connections, JIT) outside the measurement.
  for (let i = 0; i < WARMUP; i += CONCURRENCY) {
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, WARMUP - i) }, one));
  }

  const latencies = [];
  const statuses = new Map();
  let issued = 0;
  const start = performance.now();
  const deadline = start + SECONDS * 1000;
  const worker = async () => {
    while (issued < MAX && performance.now() < deadline) {
      issued++;
      const t0 = performance.now();
      const status = await one();
      latencies.push(performance.now() - t0);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    name,
    requests: latencies.length,
    seconds: elapsed,
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    statuses: Object.fromEntries(statuses),
  };
}

async function main() {
  let startEmulator;
  try {
    ({ startEmulator } = await import("../packages/emulator/dist/index.js"));
  } catch (err) {
    console.error("Build the emulator first: npx pnpm@10.34.8 --filter @wfr/emulator build");
    throw err;
  }

  const emu = await startEmulator({ port: 0, host: "127.0.0.1", clock: "virtual" });
  const bareBody = Buffer.from(
    JSON.stringify({ run_id: "run_bench", workflow_id: WORKFLOW, status: "queued" }),
  );
  const bare = createServer((req, res) => {
    req.on("data", () => {});
    req.on("end", () => {
      res.writeHead(202, {
        "content-type": "application/json",
        "content-length": String(bareBody.length),
      });
      res.end(bareBody);
    });
  });
  await new Promise((r) => bare.listen(0, "127.0.0.1", r));

  try {
    const emuUrl = String(emu.url).replace(/\/$/, "");
    const keyRes = await fetch(`${emuUrl}/_emulator/keys`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ environment: "production", scopes: ["workflows:run", "runs:read"] }),
    });
    if (keyRes.status !== 201) throw new Error(`key creation failed: ${keyRes.status}`);
    const { token } = await keyRes.json();
    // Keep runs queued so the bench measures the launch path only.
    await fetch(`${emuUrl}/_emulator/environments/production/workflows/${WORKFLOW}/scenario`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ steps: [{ wait_ms: 3_600_000 }, { succeed: {} }] }),
    });

    const emuLaunch = `${emuUrl}/production/api/v1/automations/${WORKFLOW}/runs`;
    const check = await fetch(emuLaunch, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: BODY,
    });
    if (check.status !== 202) {
      throw new Error(`emulator launch is not 202: ${check.status} ${await check.text()}`);
    }

    const bareUrl = `http://127.0.0.1:${bare.address().port}/automations/${WORKFLOW}/runs`;
    console.log(
      `node ${process.version}, ${CONCURRENCY} concurrent clients, keep-alive, ` +
        `bounded by ${SECONDS}s or ${MAX} requests each, body ${BODY.length} bytes`,
    );
    const rows = [
      await drive("bare node:http", bareUrl),
      await drive("wfr-emulator", emuLaunch, token),
    ];
    const fmt = (n, d = 0) => n.toFixed(d).padStart(10);
    console.log(
      `${"server".padEnd(16)}${"requests".padStart(10)}${"launch/s".padStart(10)}${"p50 ms".padStart(10)}${"p99 ms".padStart(10)}  statuses`,
    );
    for (const r of rows) {
      console.log(
        `${r.name.padEnd(16)}${fmt(r.requests)}${fmt(r.rps)}${fmt(r.p50, 2)}${fmt(r.p99, 2)}  ${JSON.stringify(r.statuses)}`,
      );
    }
    const [b, e] = rows;
    console.log(
      `emulator / bare: throughput ${(e.rps / b.rps).toFixed(2)}x, p50 ${(e.p50 / b.p50).toFixed(2)}x, p99 ${(e.p99 / b.p99).toFixed(2)}x`,
    );
    const non202 = Object.entries(e.statuses).filter(([s]) => s !== "202");
    if (non202.length > 0) {
      console.error(`emulator answered non-202 statuses: ${JSON.stringify(non202)}`);
      process.exitCode = 1;
    }
  } finally {
    await new Promise((r) => {
      bare.closeAllConnections();
      bare.close(r);
    });
    await emu.close();
  }
}

await main();
