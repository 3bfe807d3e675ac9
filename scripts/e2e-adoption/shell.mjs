// The adoption test's small I/O edge: a log with timestamps, checks that fail with a message,
// and shell command lines run asynchronously (the emulator answers from this same process
// meanwhile), each recorded in the transcript.
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

/**
 * Runs a shell command line in `cwd`; resolves to its exit code and output. `expect` is the exit
 * code it must have (null: any); `input` is written to its standard input.
 */
export function sh(cwd, line, env = {}, { expect = 0, input } = {}) {
  return new Promise((done, reject) => {
    const cpuFile = cpuDir === null ? null : join(cpuDir, String(cpuCount++));
    const argv = ["sh", "-c", line];
    if (cpuFile) argv.unshift("/usr/bin/time", "-f", "%U %S %e", "-o", cpuFile);
    const child = spawn(argv[0], argv.slice(1), {
      cwd,
      env: { ...process.env, ...env, NO_COLOR: "1", npm_config_update_notifier: "false" },
      stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", reject);
    if (input !== undefined) child.stdin.end(input);
    child.on("close", (code) => {
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
