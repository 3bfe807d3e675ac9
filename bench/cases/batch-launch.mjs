// The batch launcher's throughput against the emulator at concurrency 1, 8
// and 32, as users run it: the emulator in a Node process of its own, the
// built launcher in another with a fresh journal each time (its default file
// journal; PGlite once more at concurrency 8 and 32), rows of "Draft customer
// reply". The anchor likewise: a bare loop of raw launches (fetch, an
// idempotency key, no journal) at the same concurrency in a Node process
// started for it, as the launcher is, interleaved with the launcher runs. The
// loop in this process (warm code, sharing no process with the emulator any
// more) is kept as a row without a target.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL as toFileUrl } from "node:url";
import { startEmulatorProcess } from "../lib/emulator-process.mjs";
import { atLeast, compareRow } from "../lib/rows.mjs";

export const id = "batch-launch";
export const title = "Batch launcher: rows per second against the emulator";
export const anchorName = "raw launches";
export const anchor =
  "a bare loop of raw launches (no journal) at the same concurrency, same emulator, same run";

const MAIN = fileURLToPath(new URL("../../apps/batch-launch/dist/main.js", import.meta.url));

function launch(repo, file, concurrency, key, databaseUrl = "") {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [MAIN, file, "--workflow", "Draft customer reply", "--concurrency", String(concurrency)],
      {
        cwd: repo,
        env: { ...process.env, WFR_PRODUCTION_API_KEY: key, DATABASE_URL: databaseUrl },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.once("exit", (code) => {
      if (code !== 0) return reject(new Error(stderr.slice(-500)));
      // The launcher's own figure: from the first launch to the last outcome,
      // without Node start-up, the definition read and the journal's opening
      // (for PGlite, seconds of PostgreSQL booting in WebAssembly).
      const own = /launched, \d+ failed in ([\d.]+) s/.exec(stderr);
      if (!own) return reject(new Error(`no timing line in: ${stderr.slice(-500)}`));
      resolve({ whole: (performance.now() - started) / 1000, launching: Number(own[1]) });
    });
  });
}

/** The launch path of "Draft customer reply" in the definition, found by its name. */
function launchPathOf(definition) {
  const { paths } = JSON.parse(definition);
  for (const [path, item] of Object.entries(paths)) {
    if (path.endsWith("/runs") && JSON.stringify(item).includes("Draft customer reply"))
      return path;
  }
  throw new Error('no launch path for "Draft customer reply" in the definition');
}

/** rows launches, `concurrency` in flight, each a POST with its own key: the service's own pace. */
async function rawLaunches(url, token, rows, concurrency, tag) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < rows; i = next++) {
        const response = await fetch(url, {
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            "idempotency-key": `raw-${tag}-${i}`,
          },
          body: JSON.stringify({
            inputs: { ticket_url: `https://help.example.com/t/${i}`, tone: "formal" },
            metadata: { batch_file: tag, batch_row: String(i) },
          }),
        });
        if (response.status !== 202) throw new Error(`raw launch answered ${response.status}`);
        await response.arrayBuffer();
      }
    }),
  );
  return rows / ((performance.now() - started) / 1000);
}

/** The same loop in a fresh Node process: its rows/s, printed by the child. */
function rawLaunchesInFreshProcess(url, token, rows, concurrency, tag) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [fileURLToPath(import.meta.url), RAW_LOOP, url, String(rows), String(concurrency), tag],
      { env: { ...process.env, WFR_BENCH_TOKEN: token }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.once("exit", (code) => {
      const rate = Number(stdout.trim());
      if (code !== 0 || !Number.isFinite(rate))
        return reject(new Error(`raw loop process: ${stderr.slice(-500)}`));
      resolve(rate);
    });
  });
}

/** The argument that makes this module run one raw loop and print its rate. */
const RAW_LOOP = "--raw-loop";

export async function run({ quick, log }) {
  const rows = quick ? 16 : 400;
  const repeats = quick ? 1 : 3;
  // --quick proves the case runs (both journals, the anchor, the rows): one concurrency is enough.
  const concurrencies = quick ? [8] : [1, 8, 32];
  const pooled = concurrencies.filter((c) => c !== 1);
  const emulator = await startEmulatorProcess();
  const samples = { 1: [], 8: [], 32: [] };
  const whole = { 1: [], 8: [], 32: [] };
  const raw = { 1: [], 8: [], 32: [] };
  const rawInThisProcess = { 1: [], 8: [], 32: [] };
  const pglite = {
    8: { launching: [], whole: [], raw: [] },
    32: { launching: [], whole: [], raw: [] },
  };
  try {
    const keyResponse = await fetch(`${emulator.url}/_emulator/keys`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ environment: "production", scopes: ["workflows:run", "runs:read"] }),
    });
    const { token } = await keyResponse.json();
    const definition = await (
      await fetch(`${emulator.url}/production/api-docs/openapi.json`)
    ).text();
    const rawUrl = `${emulator.url}/production/api/v1${launchPathOf(definition)}`;
    for (let r = 0; r < repeats; r++) {
      for (const concurrency of concurrencies) {
        const repo = mkdtempSync(join(tmpdir(), "wfr-bench-batch-"));
        try {
          mkdirSync(join(repo, "schemas", "production"), { recursive: true });
          writeFileSync(join(repo, "schemas", "production", "openapi.json"), definition);
          writeFileSync(
            join(repo, "wfr.config.json"),
            JSON.stringify({
              environments: [
                {
                  name: "production",
                  baseUrl: `${emulator.url}/production/api/v1`,
                  apiKeyEnv: "WFR_PRODUCTION_API_KEY",
                },
              ],
            }),
          );
          const file = `rows-${r}-${concurrency}.csv`;
          const lines = ["id,ticket_url,tone"];
          for (let i = 0; i < rows; i++)
            lines.push(`${file}-${i},https://help.example.com/t/${i},formal`);
          writeFileSync(join(repo, file), `${lines.join("\n")}\n`);
          raw[concurrency].push(
            await rawLaunchesInFreshProcess(
              rawUrl,
              token,
              rows,
              concurrency,
              `raw-${r}-${concurrency}`,
            ),
          );
          rawInThisProcess[concurrency].push(
            await rawLaunches(rawUrl, token, rows, concurrency, `raw-here-${r}-${concurrency}`),
          );
          const seconds = await launch(repo, file, concurrency, token);
          samples[concurrency].push(rows / seconds.launching);
          whole[concurrency].push(rows / seconds.whole);
          if (concurrency !== 1) {
            // The same rows again through a fresh PGlite journal, against its own raw anchor.
            const again = `pglite-${file}`;
            writeFileSync(join(repo, again), `${lines.join("\n").replaceAll(file, again)}\n`);
            pglite[concurrency].raw.push(
              await rawLaunchesInFreshProcess(
                rawUrl,
                token,
                rows,
                concurrency,
                `raw-pglite-${r}-${concurrency}`,
              ),
            );
            const onPglite = await launch(
              repo,
              again,
              concurrency,
              token,
              `pglite:${join(repo, ".wfr", "pglite")}`,
            );
            pglite[concurrency].launching.push(rows / onPglite.launching);
            pglite[concurrency].whole.push(rows / onPglite.whole);
          }
        } finally {
          rmSync(repo, { recursive: true, force: true });
        }
      }
      log(`repeat ${r + 1}/${repeats} done`);
    }
  } finally {
    await emulator.stop();
  }
  /** The targets: at least 0.9x raw launches at 32, 0.6x at 8; none at 1. */
  const target = (c) => (c === 32 ? atLeast(0.9) : c === 8 ? atLeast(0.6) : undefined);
  return {
    rows: [
      ...concurrencies.map((c) =>
        compareRow(`file journal, concurrency ${c}`, "rows/s", samples[c], raw[c], target(c)),
      ),
      ...pooled.map((c) =>
        compareRow(
          `PGlite journal, concurrency ${c}`,
          "rows/s",
          pglite[c].launching,
          pglite[c].raw,
          target(c),
        ),
      ),
      ...concurrencies.map((c) =>
        compareRow(
          `file journal, concurrency ${c}, against the raw loop in the bench's own process`,
          "rows/s",
          samples[c],
          rawInThisProcess[c],
        ),
      ),
      ...concurrencies.map((c) =>
        compareRow(`whole process, c ${c}`, "rows/s", whole[c], raw[c], {
          text: ">= 150 rows/s",
          holds: (_ratio, ours) => ours.median >= 150,
        }),
      ),
      ...pooled.map((c) =>
        compareRow(
          `PGlite journal, whole process, c ${c}`,
          "rows/s",
          pglite[c].whole,
          pglite[c].raw,
        ),
      ),
    ],
    samples: { launching: samples, whole, raw, rawInThisProcess, pglite },
    notes: [
      `${rows} rows per run, ${repeats} repeats; the emulator in a Node process of its own. "concurrency n": the launcher's own rows/s from its first launch to its last outcome (journal writes and report included). "whole process": Node start-up, the definition read and the creation of a fresh journal included. The launcher's default journal is a file; the PGlite rows run the same rows through a fresh PGlite journal (DATABASE_URL=pglite:<dir>). Anchor: ${rows} raw launches (fetch, no journal) at the same concurrency from a Node process started for them, as the launcher is, just before each launcher run.`,
      `"against the raw loop in the bench's own process": the same raw launches from this process, whose code is warm from thousands of launches; no target.`,
    ],
  };
}

const isMain = process.argv[1] && import.meta.url === toFileUrl(process.argv[1]).href;
if (isMain && process.argv[2] === RAW_LOOP) {
  const [url, rows, concurrency, tag] = process.argv.slice(3);
  const rate = await rawLaunches(
    url,
    process.env.WFR_BENCH_TOKEN,
    Number(rows),
    Number(concurrency),
    tag,
  );
  process.stdout.write(`${rate}\n`);
} else if (isMain) {
  const { standalone } = await import("../lib/standalone.mjs");
  await standalone({ id, title, anchor, help: `node bench/cases/${id}.mjs [--quick]`, run });
}
