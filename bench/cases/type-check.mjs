// Type-check cost: `tsc --noEmit --extendedDiagnostics` wall time, peak RSS and instantiation
// count for an app that imports 1 workflow and one that uses 20, against environments of 30, 300
// and 3,000 workflows, next to the same apps written with openapi-typescript types +
// openapi-fetch. Also TypeScript 7 native preview (tsgo) on the same projects. Interleaved, one run.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  benchId,
  CODEGEN_CLI,
  checkPrerequisites,
  indexIdentifiers,
  makeDefinition,
  OT_CLI,
  OT_FLAGS,
  ROOT,
  TSC,
  timed,
  timedWithRss,
  writeApps,
  writeManyApps,
} from "../lib/codegen-fixture.mjs";
import { atMost, compareRow } from "../lib/rows.mjs";
import { summarize } from "../lib/stats.mjs";

export const id = "type-check";
export const title = "Type-check cost of an app using generated workflows";
export const anchorName = "openapi-typescript + openapi-fetch";
export const anchor =
  "the same app written with openapi-typescript 7 types + openapi-fetch, same tsconfig";
export const help = `node bench/cases/type-check.mjs [--quick]
For N = 30, 300, 3000 workflows (--quick: 30, one repeat, the 1-workflow app only) generates both sides once, then runs
\`node node_modules/typescript/lib/tsc.js -p <app> --extendedDiagnostics\` (noEmit) on the
1-workflow and the 20-workflow app of each side, interleaved, 3 repeats, and tsgo
(@typescript/native-preview) on the same projects. Reports wall time, peak RSS (/usr/bin/time)
and the Instantiations count.
Targets: wfr 1-workflow app <= 0.5x the anchor's tsc time at N=300; wfr 1-workflow app tsc time
grows < 10% from N=300 to N=3000.`;

const TSGO = join(ROOT, "bench/node_modules/.bin/tsgo");

function diagnostics(stdout) {
  const num = (re) => {
    const m = re.exec(stdout);
    return m ? Number(m[1]) : Number.NaN;
  };
  return {
    instantiations: num(/^Instantiations:\s+(\d+)/m),
    checkS: num(/^Check time:\s+([\d.]+)s/m),
  };
}

export async function run({ quick = false, log = console.log } = {}) {
  checkPrerequisites();
  const sizes = quick ? [30] : [30, 300, 3000];
  const repeats = quick ? 1 : 3;
  const hasTsgo = existsSync(TSGO);
  const rows = [];
  const samples = {};
  const notes = [];
  const growth = {};
  const tmpRoot = mkdtempSync(join(tmpdir(), "wfr-bench-type-check-"));
  try {
    for (const n of sizes) {
      const dir = join(tmpRoot, `n${n}`);
      const schemas = join(dir, "schemas");
      const defFile = join(schemas, "bench", "openapi.json");
      mkdirSync(dirname(defFile), { recursive: true });
      writeFileSync(defFile, JSON.stringify(makeDefinition(n).definition, null, 2));
      timed(process.execPath, [
        CODEGEN_CLI,
        "generate",
        "--schemas",
        schemas,
        "--out",
        join(dir, "generated"),
      ]);
      timed(OT_CLI, [defFile, "-o", join(dir, "ot", "schema.d.ts"), ...OT_FLAGS]);
      const identifiers = indexIdentifiers(join(dir, "generated", "bench"));
      const first = identifiers.get(benchId(1));
      writeApps(dir, first.module, first.identifier, benchId(1));
      const many = Math.min(20, n);
      writeManyApps(dir, identifiers, many);
      const apps = [
        { name: "1 workflow", wfr: "tsconfig.wfr.json", ot: "tsconfig.ot.json" },
        {
          name: `${many} workflows`,
          wfr: `tsconfig.wfr-${many}.json`,
          ot: `tsconfig.ot-${many}.json`,
        },
      ];
      const checkers = [
        {
          name: "tsc",
          argv: (cfg) => [
            process.execPath,
            ["--max-old-space-size=4096", TSC, "-p", join(dir, cfg), "--extendedDiagnostics"],
          ],
        },
      ];
      if (hasTsgo)
        checkers.push({
          name: "tsgo",
          argv: (cfg) => [TSGO, ["-p", join(dir, cfg), "--extendedDiagnostics"]],
        });
      // --quick checks the 1-workflow app only (the 20-workflow app is written, not checked).
      for (const app of quick ? apps.slice(0, 1) : apps) {
        for (const checker of checkers) {
          const ours = [];
          const theirs = [];
          for (let r = 0; r < repeats; r++) {
            for (const [side, list] of [
              ["wfr", ours],
              ["ot", theirs],
            ]) {
              const [cmd, argv] = checker.argv(app[side]);
              const t = timedWithRss(cmd, argv, dir);
              list.push({ ms: t.ms, rssKiB: t.rssKiB, ...diagnostics(t.stdout) });
            }
            log(
              `N=${n} ${app.name} ${checker.name} repeat ${r + 1}: wfr ${ours.at(-1).ms.toFixed(0)} ms, openapi-typescript ${theirs.at(-1).ms.toFixed(0)} ms`,
            );
          }
          const label = `${checker.name}, ${app.name}, N=${n}`;
          const target =
            checker.name === "tsc" && app.name === "1 workflow" && n === 300
              ? atMost(0.5)
              : undefined;
          rows.push(
            compareRow(
              `${label}, wall`,
              "ms",
              ours.map((x) => x.ms),
              theirs.map((x) => x.ms),
              target,
            ),
            compareRow(
              `${label}, peak RSS`,
              "MiB",
              ours.map((x) => x.rssKiB / 1024),
              theirs.map((x) => x.rssKiB / 1024),
            ),
          );
          if (checker.name === "tsc")
            rows.push(
              compareRow(
                `${label}, instantiations`,
                "count",
                ours.map((x) => x.instantiations),
                theirs.map((x) => x.instantiations),
              ),
            );
          samples[label] = { wfr: ours, openapiTypescript: theirs };
          if (checker.name === "tsc" && app.name === "1 workflow")
            growth[n] = ours.map((x) => x.ms);
        }
      }
    }
    if (growth[300] && growth[3000]) {
      // Our own figure against itself: N=3000 over N=300, median over median.
      const a = summarize(growth[300]).median;
      const row = compareRow(
        "tsc, 1 workflow, wall N=3000 / N=300 (growth)",
        "x",
        growth[3000].map((x) => x / a),
      );
      row.target = "< 1.10x";
      row.met = row.ours.median < 1.1;
      rows.push(row);
    }
    if (!hasTsgo)
      notes.push("tsgo (@typescript/native-preview) is not installed: no TypeScript 7 rows.");
    notes.push(
      "The 1-workflow app launches one workflow with typed inputs (a file input included) and reads its typed result; the 20-workflow app waits for and reads the typed result of 20 workflows. Same tsconfig (strict, skipLibCheck, moduleResolution Bundler) for both sides.",
    );
  } finally {
    rmSync(tmpRoot, { recursive: true, force: true });
  }
  return { rows, samples, notes };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { standalone } = await import("../lib/standalone.mjs");
  await standalone({ id, title, anchor, help, run });
}
