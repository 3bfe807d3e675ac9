// The adoption test's small I/O edge: a log with timestamps, checks that fail with a message,
// and shell command lines run asynchronously (the emulator answers from this same process
// meanwhile), each recorded in the transcript.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

const started = Date.now();
export const transcript = [];

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
    const child = spawn("sh", ["-c", line], {
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
