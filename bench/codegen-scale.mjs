#!/usr/bin/env node
// Generator and type-check cost at scale: @wfr/codegen vs openapi-typescript (+ openapi-fetch).
//
// For each N (default 300 and 3000) it writes a synthetic definition with N enabled workflows
// in the exact shape of schemas/production/openapi.json (the production file is the template:
// its enabled launch operations and Workflow_<id>_* components are cloned with fresh ids
// wf_B000001..., names "Bench workflow 1"..., and one extra input and output field each), then
//   1. times `node packages/codegen/dist/cli.js generate` and the openapi-typescript CLI on it
//      (wall time, median of --runs);
//   2. times `tsc --noEmit` (wall time and peak RSS via /usr/bin/time, median of --runs) on two
//      equivalent one-file apps that launch wf_B000001 with typed inputs and read a typed result:
//      (a) @wfr/runtime + the generated module for that one workflow,
//      (b) openapi-fetch + the openapi-typescript schema.d.ts of the whole definition.
// Neither app passes `metadata`: openapi-typescript turns the definition's `metadata: {type: object}`
// into Record<string, never>, so any metadata key is a type error there.
// Everything is written under a mkdtemp dir in os.tmpdir() and removed at the end (--keep keeps it).
// A measurement, not a test: nothing is asserted about times.
//
// Prerequisites (built dist):
//   npx pnpm@10.34.8 --filter @wfr/codegen... build   # codegen + runtime dist
//   npx pnpm@10.34.8 --filter @wfr/runtime build
// Usage:
//   node bench/codegen-scale.mjs [--sizes 300,3000] [--runs 3] [--keep]

import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  benchId,
  CODEGEN_CLI,
  checkPrerequisites,
  findIdentifier,
  makeDefinition,
  median,
  OT_CLI,
  OT_FLAGS,
  ROOT,
  TIME_BIN,
  TSC,
  timed,
  timedWithRss,
  writeApps,
  ZOD_DIR,
} from "./lib/codegen-fixture.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : dflt;
};
if (args.includes("--help") || args.includes("-h")) {
  console.log(
    "usage: node bench/codegen-scale.mjs [--sizes 300,3000] [--runs 3] [--keep]\n" +
      "Times generate (ours vs openapi-typescript), the one-workflow app's tsc --noEmit (time, peak RSS),\n" +
      "and importing the generated environment index at run time. Needs built codegen and runtime dist.",
  );
  process.exit(0);
}
const SIZES = opt("sizes", "300,3000").split(",").map(Number);
const RUNS = Number(opt("runs", "3"));
const KEEP = args.includes("--keep");

checkPrerequisites();

const tmpRoot = mkdtempSync(join(tmpdir(), "wfr-codegen-scale-"));
const fmtS = (ms) => `${(ms / 1000).toFixed(2)} s`;
const fmtMB = (kib) => `${(kib / 1024).toFixed(0)} MB`;
const ratio = (a, b) => `${(a / b).toFixed(2)}x`;

const COMMAND = `node bench/codegen-scale.mjs --sizes ${SIZES.join(",")} --runs ${RUNS}`;
console.log(`$ ${COMMAND}`);
console.log(
  `node ${process.version}, ${RUNS} run(s) per cell, medians; openapi-typescript ${OT_FLAGS.join(" ")}; tsc = node node_modules/typescript/lib/tsc.js -p <app tsconfig> (noEmit), peak RSS from ${TIME_BIN} %M`,
);

const rows = [];
try {
  for (const n of SIZES) {
    const tmp = join(tmpRoot, `n${n}`);
    const schemasDir = join(tmp, "schemas");
    const defFile = join(schemasDir, "bench", "openapi.json");
    mkdirSync(dirname(defFile), { recursive: true });
    const { definition } = makeDefinition(n);
    const defText = JSON.stringify(definition, null, 2);
    writeFileSync(defFile, defText);
    const id = benchId(1);
    process.stderr.write(
      `N=${n}: definition ${(defText.length / 1024 / 1024).toFixed(1)} MB, ${Object.keys(definition.paths).length} paths\n`,
    );

    const genOut = join(tmp, "generated");
    const otOut = join(tmp, "ot", "schema.d.ts");
    const genMs = [];
    const otMs = [];
    for (let r = 0; r < RUNS; r++) {
      rmSync(genOut, { recursive: true, force: true });
      genMs.push(
        timed(process.execPath, [CODEGEN_CLI, "generate", "--schemas", schemasDir, "--out", genOut])
          .ms,
      );
      rmSync(join(tmp, "ot"), { recursive: true, force: true });
      otMs.push(timed(OT_CLI, [defFile, "-o", otOut, ...OT_FLAGS]).ms);
      process.stderr.write(
        `  generate run ${r + 1}: ours ${fmtS(genMs.at(-1))}, openapi-typescript ${fmtS(otMs.at(-1))}\n`,
      );
    }
    const genFiles = readdirSync(join(genOut, "bench")).length;
    // Run-time cost of `import { workflows } from "@wfr/generated/bench"` (schemas are lazy).
    mkdirSync(join(tmp, "node_modules", "@wfr"), { recursive: true });
    if (!existsSync(join(tmp, "node_modules", "zod"))) {
      symlinkSync(ZOD_DIR, join(tmp, "node_modules", "zod"), "dir");
      symlinkSync(
        join(ROOT, "packages/runtime"),
        join(tmp, "node_modules", "@wfr", "runtime"),
        "dir",
      );
    }
    const indexUrl = pathToFileURL(join(genOut, "bench", "index.js")).href;
    const importRuns = [];
    for (let r = 0; r < RUNS; r++)
      importRuns.push(
        timedWithRss(
          process.execPath,
          [
            "--input-type=module",
            "-e",
            `const m = await import(${JSON.stringify(indexUrl)}); if (Object.keys(m.workflows).length === 0) process.exit(1);`,
          ],
          tmp,
        ),
      );
    const { identifier, module } = findIdentifier(join(genOut, "bench"), id);
    writeApps(tmp, module, identifier, id);

    const tsc = (cfg) => [`--max-old-space-size=4096`, TSC, "-p", join(tmp, cfg)];
    const wfr = [];
    const ot = [];
    for (let r = 0; r < RUNS; r++) {
      wfr.push(timedWithRss(process.execPath, tsc("tsconfig.wfr.json"), tmp));
      ot.push(timedWithRss(process.execPath, tsc("tsconfig.ot.json"), tmp));
      process.stderr.write(
        `  tsc run ${r + 1}: wfr ${fmtS(wfr.at(-1).ms)} ${fmtMB(wfr.at(-1).rssKiB)}, ot ${fmtS(ot.at(-1).ms)} ${fmtMB(ot.at(-1).rssKiB)}\n`,
      );
    }
    // File counts as tsc sees them (one extra run each, not timed).
    const listed = (cfg) =>
      timed(process.execPath, [TSC, "-p", join(tmp, cfg), "--listFilesOnly"], tmp)
        .stdout.trim()
        .split("\n").length;
    rows.push({
      n,
      defMB: defText.length / 1024 / 1024,
      genFiles,
      identifier: `${module}.d.ts: ${identifier}`,
      gen: median(genMs),
      ot: median(otMs),
      otDtsMB: readFileSync(otOut).length / 1024 / 1024,
      wfrMs: median(wfr.map((x) => x.ms)),
      wfrRss: median(wfr.map((x) => x.rssKiB)),
      otTscMs: median(ot.map((x) => x.ms)),
      otRss: median(ot.map((x) => x.rssKiB)),
      importMs: median(importRuns.map((x) => x.ms)),
      importRss: median(importRuns.map((x) => x.rssKiB)),
      wfrFiles: listed("tsconfig.wfr.json"),
      otFiles: listed("tsconfig.ot.json"),
    });
  }

  console.log("");
  const head = [
    "N",
    "def",
    "generate ours",
    "generate openapi-ts",
    "ours/ot",
    "tsc wfr app",
    "tsc ot app",
    "wfr/ot",
    "RSS wfr app",
    "RSS ot app",
    "wfr/ot",
  ];
  const body = rows.map((r) => [
    String(r.n),
    `${r.defMB.toFixed(1)} MB`,
    fmtS(r.gen),
    fmtS(r.ot),
    ratio(r.gen, r.ot),
    fmtS(r.wfrMs),
    fmtS(r.otTscMs),
    ratio(r.wfrMs, r.otTscMs),
    fmtMB(r.wfrRss),
    fmtMB(r.otRss),
    ratio(r.wfrRss, r.otRss),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padStart(widths[i])).join(" | ")} |`;
  console.log(line(head));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const b of body) console.log(line(b));
  console.log("");
  for (const r of rows) {
    console.log(
      `N=${r.n}: consumable-package cost: none (no build step; @wfr/generated exports the generated .js/.d.ts); node import of the env index ${fmtS(r.importMs)}, peak RSS ${fmtMB(r.importRss)}`,
    );
    console.log(
      `N=${r.n}: ours wrote ${r.genFiles} files in bench/ (app imports ${r.identifier}); openapi-typescript schema.d.ts ${r.otDtsMB.toFixed(1)} MB; files in the tsc program: wfr app ${r.wfrFiles}, ot app ${r.otFiles}`,
    );
  }
  if (rows.length >= 2) {
    const a = rows[0];
    const b = rows.at(-1);
    const pct = (x, y) => `${x <= y ? "+" : ""}${(((y - x) / x) * 100).toFixed(1)}%`;
    console.log(
      `wfr app check, N=${a.n} -> N=${b.n}: ${fmtS(a.wfrMs)} -> ${fmtS(b.wfrMs)} (${pct(a.wfrMs, b.wfrMs)}), RSS ${fmtMB(a.wfrRss)} -> ${fmtMB(b.wfrRss)} (${pct(a.wfrRss, b.wfrRss)})`,
    );
    console.log(
      `ot  app check, N=${a.n} -> N=${b.n}: ${fmtS(a.otTscMs)} -> ${fmtS(b.otTscMs)} (${pct(a.otTscMs, b.otTscMs)}), RSS ${fmtMB(a.otRss)} -> ${fmtMB(b.otRss)} (${pct(a.otRss, b.otRss)})`,
    );
  }
} finally {
  if (KEEP) console.error(`kept ${tmpRoot}`);
  else rmSync(tmpRoot, { recursive: true, force: true });
}
