#!/usr/bin/env node
// `pnpm test`'s test phase: the adoption e2e starts at once, beside Turbo's run of every other
// task. The e2e is the longest task (up to three processes at a time, scripts/e2e-adoption/
// shell.mjs); under Turbo it waited for a free slot behind the packages' suites (4 min 50 s into
// a loaded run) and then ran on alone at the end, against the machine's other load
// (docs/suite-time.md).
// Exit 0 when both pass; each one's output is printed as it comes, the e2e's lines marked.
import { spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const turboArgs = process.argv.slice(2);

function run(label, command, args) {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    const relay = (stream, out) => {
      let rest = "";
      stream.on("data", (chunk) => {
        const lines = (rest + chunk).split("\n");
        rest = lines.pop() ?? "";
        for (const line of lines) out.write(label ? `${label}${line}\n` : `${line}\n`);
      });
      stream.on("end", () => {
        if (rest !== "") out.write(label ? `${label}${rest}\n` : `${rest}\n`);
      });
    };
    relay(child.stdout, process.stdout);
    relay(child.stderr, process.stderr);
    child.on("error", (error) => {
      process.stderr.write(`${label}${error.message}\n`);
      done(1);
    });
    child.on("close", (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

const [e2e, turbo] = await Promise.all([
  run("//:test:e2e: ", process.execPath, [resolve(ROOT, "scripts/e2e-adoption.mjs")]),
  run("", resolve(ROOT, "node_modules/.bin/turbo"), turboArgs),
]);
if (e2e !== 0) process.stderr.write(`test-tasks: the adoption e2e exited ${e2e}\n`);
if (turbo !== 0) process.stderr.write(`test-tasks: turbo exited ${turbo}\n`);
process.exit(e2e !== 0 || turbo !== 0 ? 1 : 0);
