// The service rate-limits launches: a proxy on loopback in front of the
// emulator answers 429 with Retry-After to the first attempts of some rows'
// launches. The launcher waits as told, resends the same launch, says that it
// is waiting, and every row ends with exactly one run and the right report.
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
const ROWS = 24;
const LIMITED_EVERY = 4; // rows 0, 4, 8, ... are rate-limited
const REFUSALS_PER_LIMITED_ROW = 2;
const RETRY_AFTER_SECONDS = 1;
let emulator: RunningEmulator;
let proxy: Server;
let repo: string;
let key: string;
/** Per idempotency key: when each launch attempt reached the proxy, and what it answered. */
const attempts = new Map<string, { at: number; status: number; row: string }[]>();

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  const upstream = new URL(emulator.url);
  proxy = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const idempotencyKey = request.headers["idempotency-key"];
    if (request.method === "POST" && /\/automations\/[^/]+\/runs$/.test(String(request.url))) {
      const row = String(
        (JSON.parse(body.toString()) as { metadata?: { batch_row?: string } }).metadata?.batch_row,
      );
      const seen = attempts.get(String(idempotencyKey)) ?? [];
      attempts.set(String(idempotencyKey), seen);
      const index = Number(row.split("-").at(-1));
      if (index % LIMITED_EVERY === 0 && seen.length < REFUSALS_PER_LIMITED_ROW) {
        seen.push({ at: Date.now(), status: 429, row });
        response.writeHead(429, {
          "content-type": "application/json",
          "retry-after": String(RETRY_AFTER_SECONDS),
        });
        response.end(JSON.stringify({ error: { code: "RATE_LIMITED", message: "slow down" } }));
        return;
      }
      seen.push({ at: Date.now(), status: 0, row });
    }
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(
        ([name]) => !["host", "content-length", "connection"].includes(name),
      ),
    ) as Record<string, string>;
    const answer = await fetch(`${upstream.origin}${request.url}`, {
      method: request.method ?? "GET",
      headers,
      ...(request.method === "GET" || request.method === "HEAD" ? {} : { body }),
    });
    const copied: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!["content-length", "content-encoding", "transfer-encoding"].includes(name))
        copied[name] = value;
    });
    response.writeHead(answer.status, copied);
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const response = await fetch(`${emulator.url}/_emulator/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ environment: "production", scopes: ["workflows:run", "runs:read"] }),
  });
  key = ((await response.json()) as { token: string }).token;
  repo = mkdtempSync(join(tmpdir(), "batch-launch-429-"));
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
});
afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await emulator?.close();
  if (repo) rmSync(repo, { recursive: true, force: true });
});

it("429 with Retry-After: waits, resends, says it is waiting; every row launched once", async () => {
  const file = join(repo, "limited.csv");
  const lines = ["id,ticket_url,tone"];
  for (let i = 0; i < ROWS; i++) lines.push(`r-${i},https://help.example.com/t/${i},formal`);
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

  // The limited rows were refused, waited at least Retry-After, then were sent once more.
  const limited = [...attempts.values()].filter((seen) => seen[0]?.status === 429);
  expect(limited).toHaveLength(ROWS / LIMITED_EVERY);
  for (const seen of limited) {
    expect(seen.map((a) => a.status)).toEqual([429, 429, 0]);
    for (let i = 1; i < seen.length; i++)
      expect((seen[i]?.at ?? 0) - (seen[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(
        RETRY_AFTER_SECONDS * 1000 - 50,
      );
  }
  // One attempt for every other row; one key per row.
  expect(attempts.size).toBe(ROWS);
  expect([...attempts.values()].filter((seen) => seen.length === 1)).toHaveLength(
    ROWS - ROWS / LIMITED_EVERY,
  );
  // The progress says it is waiting, once per refusal.
  expect(output.match(/^waiting 1 s: rate limited \(HTTP 429\)/gm)).toHaveLength(
    (ROWS / LIMITED_EVERY) * REFUSALS_PER_LIMITED_ROW,
  );

  // Exactly one run per row in the service, and the report names it.
  const { runs } = (await (
    await fetch(`${emulator.url}/_emulator/environments/production/runs`)
  ).json()) as { runs: { run_id: string; metadata?: { batch_row?: string } }[] };
  const runsByRow = new Map<string, string[]>();
  for (const run of runs) {
    const row = String(run.metadata?.batch_row);
    runsByRow.set(row, [...(runsByRow.get(row) ?? []), run.run_id]);
  }
  expect(runsByRow.size).toBe(ROWS);
  expect([...runsByRow.values()].every((ids) => ids.length === 1)).toBe(true);
  const report = readFileSync(`${file}.report.jsonl`, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { key: string; run_id?: string; error?: unknown });
  expect(report).toHaveLength(ROWS);
  for (const entry of report) expect(entry.run_id).toBe(runsByRow.get(entry.key)?.[0]);
  console.log(
    `429s: ${limited.length * REFUSALS_PER_LIMITED_ROW} refusals on ${limited.length} rows; ${ROWS} rows, runs per row: 1`,
  );
});
