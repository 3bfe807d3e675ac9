// batch-launch against a service that rate-limits: a loopback proxy in front of the emulator
// answers 429 with Retry-After to the first attempts of every other row, more often than the
// client's own retries allow. The launcher (the real CLI) waits and resends: every row gets
// exactly one run, the report names each run, and the progress says it is waiting.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningEmulator, startEmulator } from "@wfr/emulator";
import { afterAll, beforeAll, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const ROWS = 8;
/** 429s per limited key: more than the runtime's 4 attempts, so the launcher must wait itself. */
const REFUSALS = 6;
let emulator: RunningEmulator;
let proxy: Server;
let repo: string;
let key: string;
const refusedByKey = new Map<string, number>();
let refusals = 0;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  const upstream = new URL(emulator.url);
  proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const idem = String(req.headers["idempotency-key"] ?? "");
    const row = /-(\d+)$/.exec(
      JSON.parse(Buffer.concat(chunks).toString() || "{}")?.metadata?.batch_row ?? "",
    )?.[1];
    const limited = req.method === "POST" && row !== undefined && Number(row) % 2 === 0;
    const seen = refusedByKey.get(idem) ?? 0;
    if (limited && seen < REFUSALS) {
      refusedByKey.set(idem, seen + 1);
      refusals += 1;
      res.writeHead(429, { "content-type": "application/json", "retry-after": "1" });
      res.end(JSON.stringify({ error: "slow down", code: "RATE_LIMITED" }));
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(
        ([n]) => !["host", "content-length", "connection"].includes(n),
      ),
    ) as Record<string, string>;
    const r = await fetch(new URL(req.url ?? "/", upstream), {
      method: req.method ?? "GET",
      headers,
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    });
    res.writeHead(r.status, {
      "content-type": r.headers.get("content-type") ?? "application/json",
    });
    res.end(Buffer.from(await r.arrayBuffer()));
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const k = await fetch(`${emulator.url}/_emulator/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ environment: "production", scopes: ["workflows:run", "runs:read"] }),
  });
  key = ((await k.json()) as { token: string }).token;
  repo = mkdtempSync(join(tmpdir(), "batch-rate-limit-"));
  mkdirSync(join(repo, "schemas", "production"), { recursive: true });
  writeFileSync(
    join(repo, "schemas", "production", "openapi.json"),
    await (await fetch(`${emulator.url}/production/api-docs/openapi.json`)).text(),
  );
  writeFileSync(
    join(repo, "wfr.config.json"),
    JSON.stringify({
      environments: [
        { name: "production", baseUrl: `${proxyUrl}/production/api/v1`, apiKeyEnv: "WFR_KEY" },
      ],
    }),
  );
}, 60_000);

afterAll(async () => {
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  await emulator?.close();
  if (repo) rmSync(repo, { recursive: true, force: true });
});

it("waits out 429s beyond the client's retries and launches every row exactly once", async () => {
  const file = join(repo, "limited.csv");
  const lines = ["id,ticket_url,tone"];
  for (let i = 0; i < ROWS; i++) lines.push(`limited-${i},https://help.example.com/t/${i},formal`);
  writeFileSync(file, `${lines.join("\n")}\n`);
  const child = spawn(
    process.execPath,
    [BIN, file, "--workflow", "Draft customer reply", "--concurrency", "4"],
    {
      cwd: repo,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", WFR_KEY: key },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout.on("data", (d) => {
    output += d;
  });
  child.stderr.on("data", (d) => {
    output += d;
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  expect(code, output).toBe(0);
  // Every limited row was refused more often than the client retries by itself.
  expect(refusals).toBe((ROWS / 2) * REFUSALS);
  expect(output).toMatch(/rate limited: row \d+ waits 1 s before resending/);
  const report = readFileSync(`${file}.report.jsonl`, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(report).toHaveLength(ROWS);
  expect(report.every((o: { run_id?: string }) => typeof o.run_id === "string")).toBe(true);
  const { runs } = (await (
    await fetch(`${emulator.url}/_emulator/environments/production/runs`)
  ).json()) as {
    runs: { run_id: string; metadata: { batch_row?: string } }[];
  };
  const perRow = new Map<string, number>();
  for (const r of runs)
    if (r.metadata.batch_row)
      perRow.set(r.metadata.batch_row, (perRow.get(r.metadata.batch_row) ?? 0) + 1);
  expect(perRow.size).toBe(ROWS);
  expect([...perRow.values()].every((n) => n === 1)).toBe(true);
  expect(new Set(report.map((o: { run_id: string }) => o.run_id))).toEqual(
    new Set(runs.map((r) => r.run_id)),
  );
}, 180_000);
