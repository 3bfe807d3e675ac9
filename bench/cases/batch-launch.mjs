// The batch launcher's throughput against the emulator at concurrency 1, 8
// and 32: the built launcher as its own process, a fresh PGlite journal each
// time, rows of "Draft customer reply".
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL as toFileUrl } from "node:url";
import { startEmulator } from "@wfr/emulator";
import { compareRow } from "../lib/rows.mjs";

export const id = "batch-launch";
export const title = "Batch launcher: rows per second against the emulator";
export const anchorName = "concurrency 1";
export const anchor = "the same launcher at concurrency 1, same run";

const MAIN = fileURLToPath(new URL("../../apps/batch-launch/dist/main.js", import.meta.url));

function launch(repo, file, concurrency, key) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [MAIN, file, "--workflow", "Draft customer reply", "--concurrency", String(concurrency)],
      {
        cwd: repo,
        env: { ...process.env, WFR_PRODUCTION_API_KEY: key, DATABASE_URL: "" },
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
      // without Node start-up, the definition read and the PGlite journal's
      // creation (seconds of initdb in WASM, which dominated the whole process).
      const own = /launched, \d+ failed in ([\d.]+) s/.exec(stderr);
      if (!own) return reject(new Error(`no timing line in: ${stderr.slice(-500)}`));
      resolve({ whole: (performance.now() - started) / 1000, launching: Number(own[1]) });
    });
  });
}

export async function run({ quick, log }) {
  const rows = quick ? 40 : 400;
  const repeats = quick ? 1 : 3;
  const emulator = await startEmulator({ port: 0 });
  const samples = { 1: [], 8: [], 32: [] };
  const whole = { 1: [], 8: [], 32: [] };
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
    for (let r = 0; r < repeats; r++) {
      for (const concurrency of [1, 8, 32]) {
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
          const seconds = await launch(repo, file, concurrency, token);
          samples[concurrency].push(rows / seconds.launching);
          whole[concurrency].push(rows / seconds.whole);
        } finally {
          rmSync(repo, { recursive: true, force: true });
        }
      }
      log(`repeat ${r + 1}/${repeats} done`);
    }
  } finally {
    await emulator.close();
  }
  return {
    rows: [
      ...[1, 8, 32].map((c) => compareRow(`concurrency ${c}`, "rows/s", samples[c], samples[1])),
      ...[1, 8, 32].map((c) => compareRow(`whole process, c ${c}`, "rows/s", whole[c], whole[1])),
    ],
    samples: { launching: samples, whole },
    notes: [
      `${rows} rows per run, ${repeats} repeats. "concurrency n": the launcher's own rows/s from its first launch to its last outcome (journal writes and report included). "whole process": Node start-up, the definition read and the creation of a fresh PGlite journal included.`,
    ],
  };
}

if (process.argv[1] && import.meta.url === toFileUrl(process.argv[1]).href) {
  const { standalone } = await import("../lib/standalone.mjs");
  await standalone({ id, title, anchor, help: `node bench/cases/${id}.mjs [--quick]`, run });
}
