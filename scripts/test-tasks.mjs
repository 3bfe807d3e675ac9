#!/usr/bin/env node
// `pnpm test`'s test phase, after `pnpm build`: every workspace package's `test` script and the
// root's tasks named by `--root=<script>`, at most `--concurrency` at a time, the longest first;
// and the adoption e2e, started at once beside them, whose slot then takes the next tasks too.
//
// Why not Turbo's run: the builds are done (one `tsc -b`), so Turbo only chose the order, and it
// chose it afresh each run, by the package graph rather than by what a task costs. In the loaded
// runs of 2026-11-29 the emulator's suite (185-255 s) started anywhere from the first minute to
// the sixth, and the batch launcher's (170-265 s) likewise: a long task started last ran on alone
// at the end while the other slots stood empty. Longest first keeps the slots full to the end
// (docs/suite-time.md, "How it is ordered"). The e2e is the longest task (up to three processes at
// a time, scripts/e2e-adoption/shell.mjs); in a slot it waited behind the packages' suites (4 min
// 50 s into a loaded run at `e8c6a2f`) and then ran on alone at the end.
//
// node scripts/test-tasks.mjs [--concurrency=N] [--root=<script>]... [--filter=!<package>]... [--list]
// (`--list`: print the tasks in the order they would start, and run nothing).
// `--filter=!<package>` leaves a package's suite out (scripts/e2e-template-path.mjs runs the
// suites of the packages that can import `@wfr/generated`, and checks this list against them).
// Each line of output is marked with its task; a summary of every task's time and exit ends the
// run, and after it each failed task's failures again: CI keeps only the tail of a long log, and
// the tail of four interleaved suites is somebody else's passing tests (stop 46's CI said only
// "failed: @wfr/emulator:test"). Exit 0 when every task passes.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The order tasks start in: the longest first, by their wall time in `.ci/run` from a clean
 * clone (2026-11-29: the most of a quiet run and two loaded ones, in seconds, for the record).
 * A task not listed starts after these, and the summary says so: add it where its time puts it.
 */
const LONGEST_FIRST = [
  ["//:test:template", 290],
  ["@wfr/batch-launch:test", 265],
  ["@wfr/emulator:test", 255],
  ["@wfr/codegen:test", 254],
  ["@wfr/cli:test", 242],
  ["@wfr/store-postgres:test", 126],
  ["@wfr/fault-suite:test", 110],
  ["@wfr/runtime:test", 80],
  ["//:lint:packages", 40],
  ["@wfr/store-redis:test", 34],
  ["//:check:static", 20],
  ["@wfr/mcp:test", 12],
  ["@wfr/definition-reader:test", 5],
  ["@wfr/protocol:test", 3],
];

function parseArgs(argv) {
  const options = { concurrency: 4, roots: [], leftOut: new Set(), list: false };
  for (const arg of argv) {
    const [flag, value] = arg.split(/=(.*)/s);
    if (arg === "--list") options.list = true;
    else if (flag === "--concurrency" && Number(value) >= 1) options.concurrency = Number(value);
    else if (flag === "--root" && value) options.roots.push(value);
    else if (flag === "--filter" && value?.startsWith("!")) options.leftOut.add(value.slice(1));
    else {
      process.stderr.write(`test-tasks: unknown argument ${JSON.stringify(arg)}\n`);
      process.exit(2);
    }
  }
  return options;
}

/** The `packages:` entries of pnpm-workspace.yaml (`dir/*` or `dir`), as directories. */
function workspaceDirs() {
  const lines = readFileSync(join(ROOT, "pnpm-workspace.yaml"), "utf8").split("\n");
  const start = lines.findIndex((line) => /^packages:\s*$/.test(line));
  const dirs = [];
  for (const line of lines.slice(start + 1)) {
    const entry = /^\s+-\s+["']?([^"'\s]+)["']?\s*$/.exec(line);
    if (!entry) break;
    const pattern = entry[1];
    if (pattern.endsWith("/*")) {
      const group = pattern.slice(0, -2);
      dirs.push(...readdirSync(join(ROOT, group)).map((name) => `${group}/${name}`));
    } else dirs.push(pattern);
  }
  return dirs;
}

function tasksToRun({ roots, leftOut }) {
  const rootManifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  const rootScripts = rootManifest.scripts ?? {};
  const tasks = roots.map((script) => {
    if (!rootScripts[script]) {
      process.stderr.write(`test-tasks: the root package.json has no script ${script}\n`);
      process.exit(2);
    }
    return {
      name: `//:${script}`,
      cwd: ROOT,
      script,
      text: rootScripts[script],
      pkg: rootManifest.name,
    };
  });
  for (const dir of workspaceDirs()) {
    const file = join(ROOT, dir, "package.json");
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, "utf8"));
    if (!manifest.scripts?.test || leftOut.has(manifest.name)) continue;
    tasks.push({
      name: `${manifest.name}:test`,
      cwd: join(ROOT, dir),
      script: "test",
      text: manifest.scripts.test,
      pkg: manifest.name,
    });
  }
  const rank = new Map(LONGEST_FIRST.map(([name], i) => [name, i]));
  const rankOf = (task) => rank.get(task.name) ?? LONGEST_FIRST.length;
  return tasks.sort((a, b) => rankOf(a) - rankOf(b) || a.name.localeCompare(b.name));
}

/**
 * The tasks that reach the npm registry: the adoption e2e (its local registry's uplink, the
 * package managers it installs, the versions it reads as `latest`). Every other task talks to
 * loopback only, and runs without `NODE_EXTRA_CA_CERTS`: Node reads and parses that bundle when
 * a process starts, whether or not the process opens a TLS connection (about 0.1 CPU-s a process
 * with this machine's 144 certificates, against 0.05 for all the rest of an empty Node's start),
 * and these tasks start hundreds of Node processes (docs/suite-time.md, "The CA bundle at every
 * start, and the emulator's start"). npm and pnpm read `cafile` from `.npmrc` and do not need it.
 */
const REACHES_THE_REGISTRY = new Set(["//:test:e2e"]);

function taskEnvironment(label) {
  if (REACHES_THE_REGISTRY.has(label)) return process.env;
  const { NODE_EXTRA_CA_CERTS: _bundle, ...env } = process.env;
  return env;
}

/**
 * A package.json script as `pnpm run` starts it: `/bin/sh -c` in the package's folder, with the
 * package's and the root's `node_modules/.bin` first on PATH. Started directly, not through
 * `pnpm run`, whose 8.7 MB bundle cost about 0.7 CPU-s a task (1.93 against 1.21 CPU-s for
 * `packages/protocol`'s suite, four runs each): about 11 CPU-s over the fifteen tasks. The rest of
 * pnpm's environment (`npm_execpath`, which `lint:packages` reads, `npm_config_*`) is this
 * process's, which `pnpm test` started; scripts/e2e-template-path.mjs starts the suites in its copy
 * the same way.
 */
function scriptInvocation(task) {
  const bins = [join(task.cwd, "node_modules", ".bin"), join(ROOT, "node_modules", ".bin")];
  return {
    command: SHELL,
    args: ["-c", `{\n${task.text}\n}; status=$?; times >&3; exit $status`],
    env: {
      PATH: [...new Set(bins)].concat(process.env.PATH ?? "").join(":"),
      npm_lifecycle_event: task.script,
      npm_package_name: task.pkg,
    },
  };
}

/** Where there is no `/bin/sh`: the package manager that started this script, `pnpm run <script>`. */
function runScriptCommand(script) {
  const execPath = process.env.npm_execpath;
  if (execPath && /pnpm/.test(execPath))
    return execPath.endsWith(".js") || execPath.endsWith(".cjs")
      ? [process.execPath, [execPath, "run", script]]
      : [execPath, ["run", script]];
  return ["npx", ["--yes", "pnpm@10.34.8", "run", script]];
}

/** How many lines of a failed task's failures are printed again at the end. */
const FAILURE_LINES = 120;

/**
 * What of a failed task's output to print again: Vitest's failure sections when there are
 * any ("Failed Tests", "Failed Suites", "Unhandled Errors": each test, error, diff and stack), else
 * the task's last lines.
 */
function failureExcerpt(lines, limit = FAILURE_LINES) {
  const plain = lines.map((line) => stripVTControlCharacters(line));
  const first = plain.findIndex((line) =>
    /⎯+ (Failed (Suites?|Tests?) \d+|Unhandled Errors?) ⎯+/.test(line),
  );
  const section = first === -1 ? plain.slice(-limit) : plain.slice(first);
  const end = section.findIndex((line, i) => i > 0 && /^\s*Test Files\s/.test(line));
  const excerpt = end === -1 ? section : section.slice(0, end);
  return excerpt.length <= limit
    ? excerpt
    : [
        ...excerpt.slice(0, limit),
        `... and ${excerpt.length - limit} more line(s), in the log above`,
      ];
}

/**
 * Each task runs under `/bin/sh`, which prints its children's CPU time (the `times` builtin: the
 * task's processes and every descendant they waited for) on descriptor 3 when the task ends. The
 * suite is bound by CPU on two cores (docs/suite-time.md), so the summary gives each task's CPU
 * beside its wall time, in CI's log as in a local run.
 */
const SHELL = "/bin/sh";
const WITH_CPU_TIMES = '"$@"; status=$?; times >&3; exit $status';

/** CPU-seconds (user + system) from the children's line of `times` (dash and bash formats). */
function childrenCpuSeconds(timesOutput) {
  const line = timesOutput.trim().split("\n").at(-1) ?? "";
  const parts = [...line.matchAll(/(\d+)m([\d.]+)s/g)];
  if (parts.length !== 2) return undefined;
  return parts.reduce(
    (sum, [, minutes, seconds]) => sum + Number(minutes) * 60 + Number(seconds),
    0,
  );
}

/** How a task starts: its command, arguments and environment additions (descriptor 3 gets `times`). */
function invocation(command, args) {
  return existsSync(SHELL)
    ? { command: SHELL, args: ["-c", WITH_CPU_TIMES, "sh", command, ...args], env: {}, timed: true }
    : { command, args, env: {}, timed: false };
}

function scriptTask(task) {
  if (existsSync(SHELL)) return { ...scriptInvocation(task), timed: true };
  const [command, args] = runScriptCommand(task.script);
  return { command, args, env: {}, timed: false };
}

function run(label, how, cwd) {
  const started = Date.now();
  const kept = [];
  return new Promise((done) => {
    const child = spawn(how.command, how.args, {
      cwd,
      env: { ...taskEnvironment(label), ...how.env },
      stdio: how.timed ? ["ignore", "pipe", "pipe", "pipe"] : ["ignore", "pipe", "pipe"],
    });
    let times = "";
    child.stdio[3]?.on("data", (chunk) => {
      times += chunk;
    });
    const relay = (stream, out) => {
      let rest = "";
      const write = (line) => {
        kept.push(line);
        out.write(`${label}: ${line}\n`);
      };
      stream.on("data", (chunk) => {
        const lines = (rest + chunk).split("\n");
        rest = lines.pop() ?? "";
        for (const line of lines) write(line);
      });
      stream.on("end", () => {
        if (rest !== "") write(rest);
      });
    };
    relay(child.stdout, process.stdout);
    relay(child.stderr, process.stderr);
    const finish = (code) =>
      done({
        label,
        code,
        seconds: (Date.now() - started) / 1000,
        cpu: childrenCpuSeconds(times),
        lines: code === 0 ? [] : kept,
      });
    child.on("error", (error) => {
      process.stderr.write(`${label}: ${error.message}\n`);
      finish(1);
    });
    child.on("close", (code, signal) => finish(code ?? (signal ? 1 : 0)));
  });
}

const options = parseArgs(process.argv.slice(2));
const queue = tasksToRun(options);
const unranked = queue.filter((task) => !LONGEST_FIRST.some(([name]) => name === task.name));
if (options.list) {
  process.stdout.write(
    `${["//:test:e2e (at once)", ...queue.map((task) => task.name)].join("\n")}\n`,
  );
  process.exit(0);
}
const started = Date.now();
/** Runs the queue's next task, one after another, until the queue is empty. */
async function drainQueue() {
  const outcomes = [];
  for (let task = queue.shift(); task; task = queue.shift()) {
    outcomes.push(await run(task.name, scriptTask(task), task.cwd));
  }
  return outcomes;
}
// The e2e's own slot takes the queue's next tasks when the e2e is done: in a loaded run the e2e
// ended about 2 minutes before the test phase, and for those minutes four tasks ran where five
// had, and the busy machine's other work took the share a fifth would have had.
const e2eThenQueue = (async () => [
  await run(
    "//:test:e2e",
    invocation(process.execPath, [resolve(ROOT, "scripts/e2e-adoption.mjs")]),
    ROOT,
  ),
  ...(await drainQueue()),
])();
const slots = Array.from({ length: Math.min(options.concurrency, queue.length) }, drainQueue);
const outcomes = [...(await e2eThenQueue), ...(await Promise.all(slots)).flat()];

const failed = outcomes.filter((outcome) => outcome.code !== 0);
process.stdout.write(
  `test-tasks: ${outcomes.length} tasks in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
);
for (const { label, code, seconds, cpu } of outcomes.sort((a, b) => b.seconds - a.seconds))
  process.stdout.write(
    `test-tasks:   ${label} ${seconds.toFixed(1)} s${cpu === undefined ? "" : `, ${cpu.toFixed(1)} CPU-s`}${code === 0 ? "" : `, exit ${code}`}\n`,
  );
const cpuTotal = outcomes.reduce((sum, { cpu }) => sum + (cpu ?? 0), 0);
if (outcomes.every(({ cpu }) => cpu !== undefined))
  process.stdout.write(`test-tasks: ${cpuTotal.toFixed(0)} CPU-s in all (user + system)\n`);
for (const task of unranked)
  process.stdout.write(
    `test-tasks: ${task.name} is not in LONGEST_FIRST (scripts/test-tasks.mjs): it started after the listed tasks; list it by its time\n`,
  );
for (const { label, lines } of failed) {
  process.stdout.write(`test-tasks: ---- ${label} failed; its failures again ----\n`);
  for (const line of failureExcerpt(lines)) process.stdout.write(`${label}: ${line}\n`);
}
if (failed.length > 0)
  process.stderr.write(`test-tasks: failed: ${failed.map((f) => f.label).join(", ")}\n`);
process.exit(failed.length > 0 ? 1 : 0);
