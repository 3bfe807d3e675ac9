// The adoption test's small I/O edge: a log with timestamps, checks that fail with a message,
// and shell command lines run asynchronously (the emulator answers from this same process
// meanwhile), a few at a time, each recorded in the transcript.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";

const started = Date.now();
export const transcript = [];
// `--cpu`: each command line's CPU (user + system, its children included) and wall time, logged as
// it ends, from GNU time; how the test's cost was measured (docs/suite-time.md).
const cpuDir = process.argv.includes("--cpu") ? mkdtempSync(join(tmpdir(), "wfr-e2e-cpu-")) : null;
let cpuCount = 0;
if (cpuDir !== null) process.once("exit", () => rmSync(cpuDir, { recursive: true, force: true }));

export function log(line) {
  const stamp = `${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s`;
  process.stdout.write(`[e2e ${stamp}] ${line}\n`);
}

export function fail(message) {
  throw new Error(`e2e-adoption: ${message}`);
}

export function check(condition, message) {
  if (!condition) fail(message);
}

// At most three command lines run at once: the machine the suite runs on has two cores, and
// Turbo runs four tasks beside this test (docs/suite-time.md). The passes queue here for a slot
// instead of crowding the cores; a command marked `behind` (the package managers' passes) waits
// behind every other (the npm app's steps: the longest chain, one step after the other).
const MAX_RUNNING = 3;
let running = 0;
const waiting = { first: [], behind: [] };
const children = new Set();
// A test that fails stops at once: what it started goes with it.
process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

async function slot(behind) {
  if (running < MAX_RUNNING) running++;
  else await new Promise((next) => waiting[behind ? "behind" : "first"].push(next));
}

function release() {
  const next = waiting.first.shift() ?? waiting.behind.shift();
  if (next) next();
  else running--;
}

/**
 * Runs a shell command line in `cwd` once a slot is free; resolves to its exit code and output.
 * `expect` is the exit code it must have (null: any); `input` is written to its standard input;
 * `behind`: the command waits for a slot behind every command not so marked.
 */
export async function sh(cwd, line, env = {}, { expect = 0, input, behind = false } = {}) {
  await slot(behind);
  try {
    return await shNow(cwd, line, env, { expect, input });
  } finally {
    release();
  }
}

function shNow(cwd, line, env, { expect, input }) {
  return new Promise((done, reject) => {
    const cpuFile = cpuDir === null ? null : join(cpuDir, String(cpuCount++));
    const argv = ["sh", "-c", line];
    if (cpuFile) argv.unshift("/usr/bin/time", "-f", "%U %S %e", "-o", cpuFile);
    const child = spawn(argv[0], argv.slice(1), {
      cwd,
      env: { ...process.env, ...env, NO_COLOR: "1", npm_config_update_notifier: "false" },
      stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    children.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", (error) => {
      children.delete(child);
      reject(error);
    });
    if (input !== undefined) child.stdin.end(input);
    child.on("close", (code) => {
      children.delete(child);
      const output = `${stdout}${stderr}`;
      transcript.push(`$ ${line}\n${output}`);
      if (cpuFile) {
        const [user, system, wall] = readFileSync(cpuFile, "utf8")
          .trim()
          .split("\n")
          .at(-1)
          .split(" ");
        rmSync(cpuFile);
        log(`cpu ${(Number(user) + Number(system)).toFixed(1)} s, wall ${wall} s: ${line}`);
      }
      if (expect !== null && code !== expect)
        reject(
          new Error(
            `e2e-adoption: \`${line}\` in ${cwd} exited ${code} (expected ${expect}):\n${output}`,
          ),
        );
      else done({ code, output, stdout });
    });
  });
}

/** Every file under `dir`, by its path relative to `dir`, with its text. */
export function filesUnder(dir) {
  const out = new Map();
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.set(relative(dir, full).split(sep).join("/"), readFileSync(full, "utf8"));
    }
  };
  walk(dir);
  return out;
}
