// `pnpm bench`: every performance claim measured against its anchor, in one
// run, side by side. Each case prints a table and writes
// bench/results/<case>.json (machine, Node version, date, raw samples,
// min/median/max). `--quick`: every case once at its smallest size, into a
// temporary folder, as CI runs it so that the harness cannot rot.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { describeMachine } from "./lib/machine.mjs";
import { formatRows } from "./lib/table.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    out: { type: "string" },
    help: { type: "boolean", default: false },
  },
});

const casesDir = join(here, "cases");
const cases = [];
for (const name of readdirSync(casesDir)
  .filter((f) => f.endsWith(".mjs"))
  .sort()) {
  cases.push(await import(pathToFileURL(join(casesDir, name)).href));
}

if (args.help) {
  console.log(`pnpm bench [--quick] [--only id,id] [--out dir]

Runs each case against its anchor in one run and writes <out>/<case>.json
(default bench/results; with --quick a temporary folder, removed when the run
ends, unless --out is given).
Then \`pnpm bench:report\` renders docs/benchmarks.md from bench/results.
Build first: npx --yes pnpm@10.34.8 build
Each case also runs alone: node bench/cases/<id>.mjs [--quick] [--help] (prints, writes no JSON).

Cases:`);
  for (const c of cases)
    console.log(`  ${c.id.padEnd(22)} ${c.title}\n  ${"".padEnd(22)} anchor: ${c.anchor}`);
  process.exit(0);
}

const only = args.only ? new Set(args.only.split(",")) : undefined;
// A quick run's numbers are thrown away (bench/README.md): the folder made for them is removed
// when the run ends; one the user names with --out is kept.
const temporaryOut = args.quick && args.out === undefined;
const out =
  args.out ??
  (temporaryOut ? mkdtempSync(join(tmpdir(), "wfr-bench-quick-")) : join(here, "results"));
mkdirSync(out, { recursive: true });
const machine = describeMachine();
console.log(
  `wfr bench${args.quick ? " --quick" : ""}: ${machine.cpus} x ${machine.cpuModel}, ${machine.memoryGiB} GiB, Node ${machine.node}`,
);
let failed = 0;
for (const benchCase of cases) {
  if (only && !only.has(benchCase.id)) continue;
  console.log(`\n## ${benchCase.id}: ${benchCase.title}\n   anchor: ${benchCase.anchor}`);
  const started = Date.now();
  try {
    const result = await benchCase.run({
      quick: args.quick,
      log: (line) => console.log(`   ${line}`),
    });
    const rows = result.rows ?? [];
    console.log(formatRows(rows));
    for (const note of result.notes ?? []) console.log(`   note: ${note}`);
    // A case that produced no number is a broken harness: CI fails on it. Timings are never asserted.
    const numeric = rows.filter((r) => Number.isFinite(r.ours?.median));
    if (numeric.length === 0) throw new Error("the case produced no numbers");
    writeFileSync(
      join(out, `${benchCase.id}.json`),
      `${JSON.stringify(
        {
          case: benchCase.id,
          title: benchCase.title,
          anchor: benchCase.anchor,
          anchorName: benchCase.anchorName ?? "anchor",
          quick: args.quick,
          date: new Date().toISOString(),
          machine,
          seconds: (Date.now() - started) / 1000,
          rows,
          samples: result.samples ?? {},
          notes: result.notes ?? [],
          chart: result.chart ?? null,
        },
        null,
        2,
      )}\n`,
    );
  } catch (error) {
    failed += 1;
    console.error(`   FAILED: ${error instanceof Error ? (error.stack ?? error.message) : error}`);
  }
}
// Each case catches its own failure above, so the loop always gets here.
if (temporaryOut) {
  rmSync(out, { recursive: true, force: true });
  console.log("\nquick run: results not kept (--out <dir> keeps them)");
} else console.log(`\nresults in ${out}`);
if (failed > 0) {
  console.error(`${failed} case(s) failed`);
  process.exit(1);
}
