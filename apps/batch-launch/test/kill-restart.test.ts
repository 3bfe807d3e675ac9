// batch-launch killed -9 at random points 20 times against the emulator, and
// restarted each time: every row gets exactly one run, none is lost. With the
// default file journal, with PGlite, and with the journal in PostgreSQL and
// two launchers sharing the file.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningEmulator, startEmulator } from "@wfr/emulator";
import { type PostgresServer, startPostgresServer } from "@wfr/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const ROWS = 150;
const KILLS = 20;
let emulator: RunningEmulator;
let pg: PostgresServer;
let repo: string;
let key: string;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  pg = await startPostgresServer();
  const response = await fetch(`${emulator.url}/_emulator/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ environment: "production", scopes: ["workflows:run", "runs:read"] }),
  });
  key = ((await response.json()) as { token: string }).token;
  repo = mkdtempSync(join(tmpdir(), "batch-launch-"));
  mkdirSync(join(repo, "schemas", "production"), { recursive: true });
  writeFileSync(
    join(repo, "schemas", "production", "openapi.json"),
    await (await fetch(`${emulator.url}/production/api-docs/openapi.json`)).text(),
  );
  writeFileSync(
    join(repo, "wfr.config.json"),
    JSON.stringify({
      environments: [
        { name: "production", baseUrl: `${emulator.url}/production/api/v1`, apiKeyEnv: "WFR_KEY" },
      ],
    }),
  );
});
afterAll(async () => {
  await emulator?.close();
  await pg?.stop();
  if (repo) rmSync(repo, { recursive: true, force: true });
});

function writeRows(name: string): string {
  const file = join(repo, name);
  const lines = ["id,ticket_url,tone"];
  for (let i = 0; i < ROWS; i++) lines.push(`${name}-${i},https://help.example.com/t/${i},formal`);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

function start(
  file: string,
  env: Record<string, string> = {},
): {
  child: ChildProcess;
  exited: Promise<number | null>;
  output: () => string;
  untilRows: (count: number) => Promise<void>;
} {
  // No V8 flag of the test's own: for a file of 150 rows the launcher keeps PGlite's
  // WebAssembly in V8's baseline tier itself (src/wasm-tiering.ts), which each short life
  // needs (a reopen: 1.8 s of CPU with V8's optimising tier, 0.9 s without).
  const child = spawn(
    process.execPath,
    [BIN, file, "--workflow", "Draft customer reply", "--concurrency", "8"],
    {
      cwd: repo,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", WFR_KEY: key, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  let rows = 0;
  // Waiters for a number of launched rows, woken by the launcher's own output (or its exit): a
  // timer polling the output woke this process every 2 ms of every life.
  const waiters = new Set<{ count: number; wake: () => void }>();
  const wakeReady = () => {
    for (const waiter of waiters)
      if (rows >= waiter.count || child.exitCode !== null || child.signalCode !== null) {
        waiters.delete(waiter);
        waiter.wake();
      }
  };
  // The progress lines (`row <n>: <run id>`) are written to stderr; a line may come in two chunks.
  let partial = "";
  child.stdout?.on("data", (d) => {
    output += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
    const lines = (partial + d).split("\n");
    partial = lines.pop() ?? "";
    rows += lines.filter((line) => line.startsWith("row ")).length;
    wakeReady();
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      resolve(code);
      wakeReady();
    }),
  );
  const untilRows = (count: number) =>
    new Promise<void>((wake) => {
      waiters.add({ count, wake });
      wakeReady();
    });
  return { child, exited, output: () => output, untilRows };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Kills -9 after a random number of launched rows in this life (0-12), plus a random fraction of a launch. */
async function killAtRandomPoint(launcher: ReturnType<typeof start>): Promise<void> {
  const target = Math.floor(Math.random() * 13);
  await launcher.untilRows(target);
  await sleep(Math.random() * 5);
  launcher.child.kill("SIGKILL");
  await launcher.exited;
}

async function runsPerRow(file: string): Promise<Map<string, number>> {
  const { runs } = (await (
    await fetch(`${emulator.url}/_emulator/environments/production/runs`)
  ).json()) as {
    runs: { metadata?: { batch_file?: string; batch_row?: string } }[];
  };
  const counts = new Map<string, number>();
  for (const run of runs) {
    const metadata = run.metadata;
    if (!metadata || metadata.batch_file !== file.split("/").at(-1)) continue;
    const row = String(metadata.batch_row);
    counts.set(row, (counts.get(row) ?? 0) + 1);
  }
  return counts;
}

describe("batch-launch survives kill -9", () => {
  it(`file journal (the default): killed ${KILLS} times, restarted each time: every row launched exactly once`, async () => {
    const file = writeRows("file.csv");
    for (let kill = 0; kill < KILLS; kill++) await killAtRandomPoint(start(file));
    const last = start(file);
    expect(await last.exited, last.output()).toBe(0);
    const counts = await runsPerRow(file);
    expect(counts.size).toBe(ROWS);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(readFileSync(join(repo, ".wfr", "batch-launch", "journal.jsonl"), "utf8")).toContain(
      '"op":"acknowledged"',
    );
    console.log(`file journal: ${KILLS} kills, ${counts.size} rows, runs per row: 1`);
  }, 900_000);

  it(`PGlite journal: killed ${KILLS} times, restarted each time: every row launched exactly once`, async () => {
    const file = writeRows("pglite.csv");
    const env = { DATABASE_URL: `pglite:${join(repo, ".wfr", "pglite-journal")}` };
    for (let kill = 0; kill < KILLS; kill++) await killAtRandomPoint(start(file, env));
    const last = start(file, env);
    expect(await last.exited, last.output()).toBe(0);
    const counts = await runsPerRow(file);
    expect(counts.size).toBe(ROWS);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    const report = readFileSync(`${file}.report.jsonl`, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(report).toHaveLength(ROWS);
    expect(report.every((r: { run_id?: string }) => typeof r.run_id === "string")).toBe(true);
    console.log(`PGlite: ${KILLS} kills, ${counts.size} rows, runs per row: 1`);
  }, 900_000); // 21 launcher starts, each opening PGlite: minutes on a loaded machine

  it(`PostgreSQL journal, two launchers sharing the file, ${KILLS} kills between them: every row exactly once`, async () => {
    const file = writeRows("shared.csv");
    const env = { DATABASE_URL: pg.url };
    const launchers = [start(file, env), start(file, env)];
    for (let kill = 0; kill < KILLS; kill++) {
      const which = kill % 2;
      await killAtRandomPoint(launchers[which] as ReturnType<typeof start>);
      launchers[which] = start(file, env);
    }
    const codes = await Promise.all(launchers.map((l) => l.exited));
    expect(codes, launchers.map((l) => l.output()).join("\n")).toEqual([0, 0]);
    const counts = await runsPerRow(file);
    expect(counts.size).toBe(ROWS);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    console.log(`PostgreSQL, two launchers: ${KILLS} kills, ${counts.size} rows, runs per row: 1`);
  }, 900_000);

  it("a cell that does not fit is reported with its row and column, and nothing is sent", async () => {
    const file = join(repo, "bad.csv");
    writeFileSync(file, "id,ticket_url,tone,colour\nb-1,https://help.example.com/t/1,formal,red\n");
    const launcher = start(file);
    expect(await launcher.exited).toBe(2);
    expect(launcher.output()).toContain('row 1, column "colour"');
    expect((await runsPerRow(file)).size).toBe(0);
  });
});
