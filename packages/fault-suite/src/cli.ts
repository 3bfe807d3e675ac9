#!/usr/bin/env node
// `wfr-fault-suite [--long] [--seed <n>]`: the fault suite outside Vitest, printing its table.
// `--long` is the longer variant (more operations, more restarts and kills); `--seed` replays a
// run's fault schedule. Exit 1 when any row counts a lost or duplicated side effect.
import { freshSeed } from "./fault-schedule.js";
import { CI_SIZE, LONG_SIZE, runFaultSuite } from "./suite.js";
import { allHeld, renderTable } from "./tally.js";

const args = process.argv.slice(2);
const seedAt = args.indexOf("--seed");
const seed = seedAt >= 0 ? Number(args[seedAt + 1]) : freshSeed();
if (!Number.isSafeInteger(seed)) {
  process.stderr.write("--seed: a whole number\n");
  process.exit(2);
}
const size = args.includes("--long") ? LONG_SIZE : CI_SIZE;
const log = (line: string) => process.stderr.write(`fault-suite: ${line}\n`);
log(`${size.name} variant, seed ${seed}`);
try {
  const report = await runFaultSuite(size, seed, log);
  process.stdout.write(`${renderTable(report.rows)}\n\nseed ${seed} (${size.name})\n`);
  process.exitCode = allHeld(report.rows) ? 0 : 1;
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
