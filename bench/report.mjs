// `pnpm bench:report`: docs/benchmarks.md from bench/results/*.json, with a
// table per case and an SVG chart per case rendered by Vega-Lite in Node.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import * as vega from "vega";
import { compile } from "vega-lite";

const here = fileURLToPath(new URL(".", import.meta.url));
const { values: args } = parseArgs({
  options: {
    results: { type: "string", default: join(here, "results") },
    out: { type: "string", default: join(here, "..", "docs") },
    help: { type: "boolean", default: false },
  },
});
if (args.help) {
  console.log(`pnpm bench:report [--results bench/results] [--out docs]

Renders <out>/benchmarks.md and <out>/benchmarks/<case>.svg from the JSON results of \`pnpm bench\`.`);
  process.exit(0);
}

const results = readdirSync(args.results)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(args.results, f), "utf8")));
if (results.length === 0) {
  console.error(`no results in ${args.results}: run \`pnpm bench\` first`);
  process.exit(1);
}

const chartsDir = join(args.out, "benchmarks");
mkdirSync(chartsDir, { recursive: true });

const fmt = (x) => (!Number.isFinite(x) ? "n/a" : Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(2));

async function chart(result) {
  // One bar per side and measure, the medians, with min-max as an error bar.
  const values = [];
  for (const row of result.rows) {
    values.push({
      measure: `${row.label} (${row.unit})`,
      side: "wfr",
      median: row.ours.median,
      min: row.ours.min,
      max: row.ours.max,
    });
    if (row.anchor) {
      values.push({
        measure: `${row.label} (${row.unit})`,
        // A row may name its own anchor (hey-api, the per-workflow import) where it is not the case's.
        side: row.anchorName ?? result.anchorName ?? "anchor",
        median: row.anchor.median,
        min: row.anchor.min,
        max: row.anchor.max,
      });
    }
  }
  const spec = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    data: { values },
    facet: {
      row: {
        field: "measure",
        type: "nominal",
        title: null,
        header: { labelAngle: 0, labelAlign: "left", labelLimit: 360 },
      },
    },
    spec: {
      width: 360,
      height: { step: 16 },
      layer: [
        {
          mark: "bar",
          encoding: {
            x: { field: "median", type: "quantitative", title: "median" },
            y: { field: "side", type: "nominal", title: null },
            color: { field: "side", type: "nominal", legend: null },
          },
        },
        {
          mark: { type: "rule" },
          encoding: {
            x: { field: "min", type: "quantitative" },
            x2: { field: "max" },
            y: { field: "side", type: "nominal" },
          },
        },
      ],
    },
    resolve: { scale: { x: "independent" } },
    config: { font: "sans-serif" },
  };
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  const svg = await view.toSVG();
  await view.finalize();
  return svg;
}

const lines = [
  "# Benchmarks",
  "",
  "Made by `pnpm bench` (every case against its anchor, in one run, on one machine) and `pnpm bench:report`.",
  "Figures are medians of repeated runs with [min-max]; compare the ratios, which come from one run, not absolute times.",
  "",
];
const first = results[0];
lines.push(
  `Machine: ${first.machine.cpus} x ${first.machine.cpuModel}, ${first.machine.memoryGiB} GiB, Node ${first.machine.node}, ${first.date.slice(0, 10)}${results.some((r) => r.quick) ? " (**quick run: smallest sizes, one repetition**)" : ""}.`,
  "",
);
lines.push("| case | measure | target | ratio | met |", "|---|---|---|---|---|");
for (const result of results) {
  for (const row of result.rows.filter((r) => r.target)) {
    lines.push(
      `| ${result.case} | ${row.label} | ${row.target} | ${Number.isFinite(row.ratio) ? `${row.ratio.toFixed(2)}x` : fmt(row.ours.median)} | ${row.met ? "yes" : "**no**"} |`,
    );
  }
}
lines.push("");
for (const result of results) {
  lines.push(
    `## ${result.title}`,
    "",
    `Anchor: ${result.anchor}. Case \`${result.case}\`, ${result.seconds.toFixed(0)} s${result.quick ? ", **--quick: smallest size, one repetition**" : ""}, ${result.date.slice(0, 16)}Z.`,
    "",
  );
  lines.push(
    "| measure | unit | wfr | anchor | ratio | target | met |",
    "|---|---|---|---|---|---|---|",
  );
  for (const row of result.rows) {
    const side = (s) => (s ? `${fmt(s.median)} [${fmt(s.min)}-${fmt(s.max)}]` : "");
    const anchorCell =
      row.anchorName && row.anchor ? `${side(row.anchor)} (${row.anchorName})` : side(row.anchor);
    lines.push(
      `| ${row.label} | ${row.unit} | ${side(row.ours)} | ${anchorCell} | ${Number.isFinite(row.ratio) ? `${row.ratio.toFixed(2)}x` : ""} | ${row.target ?? ""} | ${row.met === undefined || row.met === null ? "" : row.met ? "yes" : "**no**"} |`,
    );
  }
  for (const note of result.notes ?? []) lines.push("", `- ${note}`);
  const svgName = `${result.case}.svg`;
  writeFileSync(join(chartsDir, svgName), await chart(result));
  lines.push("", `![${result.title}](benchmarks/${svgName})`, "");
}
// Profiles of missed targets, written by hand after a run (bench/findings.md), follow the tables.
const findings = join(here, "findings.md");
if (existsSync(findings)) lines.push(readFileSync(findings, "utf8").trim(), "");
writeFileSync(join(args.out, "benchmarks.md"), `${lines.join("\n")}\n`);
console.log(`wrote ${join(args.out, "benchmarks.md")} and ${results.length} charts`);
