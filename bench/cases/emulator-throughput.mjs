// Emulator throughput: launches/s and p50/p99 latency at 1, 16 and 64 concurrent clients on
// loopback, with 10,000 runs already stored, next to a bare node:http server answering a fixed
// 202 body and next to Prism (@stoplight/prism-cli mock mode on the same production definition).
// The emulator and the bare server run in this process; Prism in its own (its CLI); the load
// client always in a child process of its own (bench/lib/load-client.mjs). Interleaved by repeat.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { atLeast, atMost, compareRow } from "../lib/rows.mjs";

export const id = "emulator-throughput";
export const title = "Emulator launch throughput on loopback";
export const anchorName = "bare node:http";
export const anchor =
  "a bare node:http server answering a fixed 202 body (and Prism 5.14.2 mock mode, same definition)";
export const help = `node bench/cases/emulator-throughput.mjs [--quick]
Stores 10,000 runs in the built emulator (virtual clock: runs stay queued), then drives POST
/automations/wf_P7Qd2Lx9/runs (valid body with a small PDF attachment, unique Idempotency-Key)
from a child-process client at 1, 16 and 64 concurrent keep-alive clients, 2 s or 20,000
requests per cell, 3 repeats, against the emulator, a bare node:http 202 server and Prism mock.
--quick: 100 stored runs, concurrency 1, 0.5 s, one repeat.
Targets: emulator >= 0.5x bare launches/s; emulator ahead of Prism.`;

const root = fileURLToPath(new URL("../../", import.meta.url));
const WORKFLOW = "wf_P7Qd2Lx9";
const DEFINITION = join(root, "schemas/sample/openapi.json");
const PRISM = join(root, "bench/node_modules/.bin/prism");
const LOAD_CLIENT = join(root, "bench/lib/load-client.mjs");
const BODY = JSON.stringify({
  inputs: { vendor_name: "Bench Paper Co", amount: 42.5, invoice_pdf: { attachment_id: "a1" } },
  input_context: {
    attachments: [
      {
        id: "a1",
        filename: "invoice.pdf",
        mimeType: "application/pdf",
        base64: Buffer.from("%PDF-1.4\n% bench invoice\n").toString("base64"),
      },
    ],
  },
  metadata: { bench: true },
});

function client(options) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LOAD_CLIENT, "--drive", JSON.stringify(options)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load client exited ${code}`)),
    );
  });
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function startPrism() {
  const port = await freePort();
  const child = spawn(
    PRISM,
    ["mock", "-h", "127.0.0.1", "-p", String(port), "-v", "error", DEFINITION],
    { stdio: ["ignore", "ignore", "pipe"], detached: false },
  );
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`prism exited ${child.exitCode}: ${stderr}`);
    try {
      await fetch(`${url}/runs/none`, { signal: AbortSignal.timeout(1000) });
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    url,
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", resolve);
        child.kill("SIGTERM");
      }),
  };
}

export async function run({ quick = false, log = console.log } = {}) {
  const { startEmulator } = await import(
    pathToFileURL(join(root, "packages/emulator/dist/index.js")).href
  );
  const stored = quick ? 100 : 10_000;
  const concurrencies = quick ? [1] : [1, 16, 64];
  const repeats = quick ? 1 : 3;
  const seconds = quick ? 0.5 : 2;
  const max = 20_000;
  const warmup = quick ? 20 : 200;

  const emu = await startEmulator({ port: 0, host: "127.0.0.1", clock: "virtual" });
  const bareBody = JSON.stringify({ run_id: "run_bench", workflow_id: WORKFLOW, status: "queued" });
  const bare = createServer((req, res) => {
    req.on("data", () => {});
    req.on("end", () => {
      res.writeHead(202, {
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(bareBody)),
      });
      res.end(bareBody);
    });
  });
  await new Promise((r) => bare.listen(0, "127.0.0.1", r));
  let prism;
  const notes = [];
  try {
    const emuUrl = String(emu.url).replace(/\/$/, "");
    const keyRes = await fetch(`${emuUrl}/_emulator/keys`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ environment: "production", scopes: ["workflows:run", "runs:read"] }),
    });
    if (keyRes.status !== 201) throw new Error(`key creation failed: ${keyRes.status}`);
    const { token } = await keyRes.json();
    await fetch(`${emuUrl}/_emulator/environments/production/workflows/${WORKFLOW}/scenario`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ steps: [{ wait_ms: 3_600_000 }, { succeed: {} }] }),
    });
    const emuLaunch = `${emuUrl}/production/api/v1/automations/${WORKFLOW}/runs`;
    const seeded = await client({
      url: emuLaunch,
      token,
      body: BODY,
      concurrency: 16,
      seconds: 600,
      max: stored,
      tag: "seed",
    });
    if (seeded.statuses["202"] !== stored)
      throw new Error(`seeding stored ${JSON.stringify(seeded.statuses)}, wanted ${stored} x 202`);
    log(
      `stored ${stored} runs in the emulator (${seeded.rps.toFixed(0)} launches/s while seeding)`,
    );

    const servers = [
      { name: "emulator", url: emuLaunch, token },
      {
        name: "bare",
        url: `http://127.0.0.1:${bare.address().port}/automations/${WORKFLOW}/runs`,
      },
    ];
    if (existsSync(PRISM)) {
      try {
        prism = await startPrism();
        const probe = await fetch(`${prism.url}/automations/${WORKFLOW}/runs`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: BODY,
        });
        await probe.arrayBuffer();
        log(`prism mock answers the launch with ${probe.status}`);
        servers.push({
          name: "prism",
          url: `${prism.url}/automations/${WORKFLOW}/runs`,
          token,
          status: probe.status,
        });
      } catch (error) {
        notes.push(`Prism did not start: ${error.message}`);
      }
    } else notes.push("Prism (@stoplight/prism-cli) is not installed: no Prism rows.");

    const cells = {};
    for (let r = 0; r < repeats; r++) {
      for (const concurrency of concurrencies) {
        for (const server of servers) {
          const result = await client({
            url: server.url,
            token: server.token,
            body: BODY,
            concurrency,
            seconds,
            max,
            warmup,
            tag: `${server.name}-${r}`,
          });
          const key = `${server.name}@${concurrency}`;
          cells[key] ??= [];
          cells[key].push(result);
          log(
            `repeat ${r + 1}, ${concurrency} clients, ${server.name}: ${result.rps.toFixed(0)}/s p50 ${result.p50.toFixed(2)} ms p99 ${result.p99.toFixed(2)} ms ${JSON.stringify(result.statuses)}`,
          );
        }
      }
    }
    const bad = Object.entries(cells)
      .filter(([k]) => k.startsWith("emulator@"))
      .flatMap(([, v]) => v)
      .filter((x) => Object.keys(x.statuses).some((s) => s !== "202"));
    if (bad.length > 0) throw new Error(`the emulator answered non-202: ${JSON.stringify(bad)}`);

    const rows = [];
    const pick = (name, c, f) => (cells[`${name}@${c}`] ?? []).map(f);
    for (const c of concurrencies) {
      rows.push(
        compareRow(
          `${c} clients, launches/s vs bare`,
          "req/s",
          pick("emulator", c, (x) => x.rps),
          pick("bare", c, (x) => x.rps),
          atLeast(0.5),
        ),
        compareRow(
          `${c} clients, p50 vs bare`,
          "ms",
          pick("emulator", c, (x) => x.p50),
          pick("bare", c, (x) => x.p50),
        ),
        compareRow(
          `${c} clients, p99 vs bare`,
          "ms",
          pick("emulator", c, (x) => x.p99),
          pick("bare", c, (x) => x.p99),
        ),
      );
      if (cells[`prism@${c}`])
        rows.push(
          compareRow(
            `${c} clients, launches/s vs Prism`,
            "req/s",
            pick("emulator", c, (x) => x.rps),
            pick("prism", c, (x) => x.rps),
            { text: "> 1x", holds: (ratio) => ratio > 1 },
          ),
          compareRow(
            `${c} clients, p99 vs Prism`,
            "ms",
            pick("emulator", c, (x) => x.p99),
            pick("prism", c, (x) => x.p99),
            atMost(1),
          ),
        );
    }
    const prismServer = servers.find((s) => s.name === "prism");
    if (prismServer)
      notes.push(
        `Prism 5.14.2 (\`prism mock -v error\`, its own process) answers the launch with ${prismServer.status}: it validates the request against the definition and returns the documented example; it stores nothing.`,
      );
    notes.push(
      `${stored} runs stored before measuring; the emulator and the bare server share this process, the load client is a separate process; ${seconds} s or ${max} requests per cell after ${warmup} warm-up requests.`,
    );
    return { rows, samples: cells, notes };
  } finally {
    await prism?.close();
    await new Promise((r) => {
      bare.closeAllConnections();
      bare.close(r);
    });
    await emu.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { standalone } = await import("../lib/standalone.mjs");
  await standalone({ id, title, anchor, help, run });
}
