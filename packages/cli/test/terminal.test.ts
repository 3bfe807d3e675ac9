// TTY behaviour in a real pseudo-terminal (util-linux `script`): `runs watch`
// redraws one live line; `runs answer` asks at its prompt; NO_COLOR and pipes
// give plain output.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it, onTestFinished } from "vitest";
import { EXIT } from "../src/exit-codes.js";
import { BIN, type Fixture, runWfr, startFixture } from "./harness.js";

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
  const pulled = await runWfr(["schemas", "pull"], { cwd: fx.dir, env: fx.env });
  expect(pulled.code, pulled.stderr).toBe(0);
});
afterAll(async () => {
  await fx?.close();
});

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs `wfr args` in a pty; types `typeWhen.type` once `typeWhen.seen` was printed. */
function inPty(
  args: string[],
  options: {
    env?: Record<string, string>;
    typeWhen?: { seen: string; type: string };
    cwd?: string;
  } = {},
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolvePromise, reject) => {
    // A pty made by `script` without a parent terminal has 0 columns; give it a size.
    const command = `stty cols 120 rows 40; ${[process.execPath, BIN, ...args].map(quote).join(" ")}`;
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      cwd: options.cwd ?? fx.dir,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        TERM: "xterm-256color",
        ...fx.env,
        ...options.env,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    let typed = false;
    child.stdout.on("data", (d) => {
      output += d;
      if (
        options.typeWhen &&
        !typed &&
        output.replace(/\r\n/g, "").includes(options.typeWhen.seen)
      ) {
        typed = true;
        child.stdin.write(options.typeWhen.type);
      }
    });
    child.stderr.on("data", (d) => {
      output += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolvePromise({ code, output }));
  });
}

async function launchApproval(): Promise<string> {
  const r = await runWfr(["launch", "paymentApproval", "--input", "amount=5000", "--json"], {
    cwd: fx.dir,
    env: fx.env,
  });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).run_id;
}

it("watch redraws its live line in a TTY, then answer asks at its prompt", async () => {
  const runId = await launchApproval();
  const watch = await inPty(["runs", "watch", runId]);
  expect(watch.code, watch.output).toBe(EXIT.HUMAN_NEEDED);
  // The line is redrawn in place (carriage return + erase line), with a spinner frame.
  expect(watch.output.split("\r\u001b[2K").length).toBeGreaterThan(2);
  expect(watch.output).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \d+s/);
  expect(watch.output).toContain("person needed: Amount above limit");

  const answer = await inPty(["runs", "answer", runId], {
    typeWhen: { seen: "Your answer", type: '{"approved":true}\r' },
  });
  expect(answer.code, answer.output).toBe(EXIT.OK);
  expect(answer.output).toContain("Approve the payment?");
  expect(answer.output).toMatch(/answered \S+; status waiting_for_human_live/);
});

it("NO_COLOR in a TTY and a pipe both give lines without escape codes", async () => {
  const runId = await launchApproval();
  const noColor = await inPty(["runs", "watch", runId, "--timeout", "60"], {
    env: { NO_COLOR: "1" },
  });
  expect(noColor.code, noColor.output).toBe(EXIT.HUMAN_NEEDED);
  expect(noColor.output).not.toContain("\u001b[");
  // NO_COLOR drops colour only: a terminal still gets the live line, not NDJSON.
  expect(noColor.output).not.toContain('"run_id"');
  expect(noColor.output).toMatch(/\d+s /);
  const piped = await runWfr(["runs", "watch", runId], { cwd: fx.dir, env: fx.env });
  expect(piped.code).toBe(EXIT.HUMAN_NEEDED);
  expect(piped.stdout).not.toContain("\u001b");
  for (const line of piped.stdout.trim().split("\n")) expect(() => JSON.parse(line)).not.toThrow();
  const dumb = await inPty(["runs", "get", runId], { env: { TERM: "dumb" } });
  expect(dumb.output).not.toContain("\u001b[");
});

it("init shows its plan and asks before writing; answering no writes nothing", async () => {
  const repo = mkdtempSync(join(tmpdir(), "wfr-init-pty-"));
  onTestFinished(() => rmSync(repo, { recursive: true, force: true }));
  writeFileSync(join(repo, "package.json"), JSON.stringify({ name: "app" }));
  const args = [
    "init",
    "--env",
    "production",
    "--api-key-env",
    "WFR_PRODUCTION_API_KEY",
    "--base-url",
    "http://127.0.0.1:9/production/api/v1",
  ];
  const declined = await inPty(args, {
    cwd: repo,
    typeWhen: { seen: "Write these files?", type: "n\r" },
  });
  expect(declined.code, declined.output).toBe(2);
  expect(declined.output).toContain("+ wfr.config.json");
  expect(existsSync(join(repo, "wfr.config.json"))).toBe(false);
  const accepted = await inPty(args, {
    cwd: repo,
    typeWhen: { seen: "Write these files?", type: "y\r" },
  });
  expect(accepted.code, accepted.output).toBe(0);
  expect(
    JSON.parse(readFileSync(join(repo, "wfr.config.json"), "utf8")).environments[0].apiKeyEnv,
  ).toBe("WFR_PRODUCTION_API_KEY");
  expect(JSON.parse(readFileSync(join(repo, "package.json"), "utf8")).scripts.generate).toBe(
    "wfr generate",
  );
});
