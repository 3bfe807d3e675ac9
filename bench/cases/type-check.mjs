// Type-check cost: `tsc --noEmit --extendedDiagnostics` wall time, peak RSS, files read and
// instantiations for an app that uses 1 workflow and one that uses 20, against environments of 300
// and 3,000 workflows, under TypeScript 7 and 5.9. Our apps in three import shapes (one workflow's
// module; the README's: the environment module and each workflow's module; the environment's index)
// next to the same apps written with openapi-typescript types + openapi-fetch (the anchor) and
// with @hey-api/openapi-ts's SDK. Interleaved, one run. The apps: lib/type-check-apps.mjs.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  CODEGEN_CLI,
  COMPILERS,
  checkPrerequisites,
  HEY_CLI,
  indexIdentifiers,
  makeDefinition,
  OT_CLI,
  OT_FLAGS,
  timed,
  timedWithRss,
} from "../lib/codegen-fixture.mjs";
import { atMost, compareRow } from "../lib/rows.mjs";
import {
  HEY_OUT,
  OT_OUT,
  SHAPES,
  writeBaseConfig,
  writeShapeApps,
} from "../lib/type-check-apps.mjs";

export const id = "type-check";
export const title = "Type-check cost of an app using generated workflows";
export const anchorName = "openapi-typescript + openapi-fetch";
export const anchor =
  "the same app written with openapi-typescript 7 types + openapi-fetch, same tsconfig";
export const help = `node bench/cases/type-check.mjs [--quick]
For N = 300, 3000 workflows (--quick: 30, one repeat, the 1-workflow app only, TypeScript 7 only) generates wfr,
openapi-typescript and @hey-api/openapi-ts output once, then runs
\`node <typescript>/lib/tsc.js -p <app> --extendedDiagnostics\` (noEmit) with TypeScript 7 (root
devDependency) and 5.9 (bench devDependency) on the 1-workflow and the 20-workflow app of each
shape: wfr per-workflow import, wfr README import (environment module + workflow modules), wfr
index import, openapi-typescript + openapi-fetch, hey-api; interleaved, 5 repeats. Reports wall
time, peak RSS (/usr/bin/time), files read and instantiations.
Targets, under each compiler: wfr per-workflow 1-workflow app <= 0.5x the anchor's time at N=300,
and grows < 10% from N=300 to N=3000; the README import's growth within 1.1x of the per-workflow
import's.`;

const SHAPE_LABEL = {
  "per-workflow": "per-workflow import",
  readme: "README import",
  index: "index import",
};

function diagnostics(stdout) {
  const num = (re) => {
    const m = re.exec(stdout);
    return m ? Number(m[1]) : Number.NaN;
  };
  return {
    files: num(/^Files:\s+(\d+)/m),
    instantiations: num(/^Instantiations:\s+(\d+)/m),
  };
}

/** Generates every side's code for an environment of `n` workflows into `dir`. */
function generateSides(dir, n) {
  const schemas = join(dir, "schemas");
  const defFile = join(schemas, "bench", "openapi.json");
  mkdirSync(dirname(defFile), { recursive: true });
  writeFileSync(defFile, JSON.stringify(makeDefinition(n).definition, null, 2));
  timed(
    process.execPath,
    [CODEGEN_CLI, "generate", "--schemas", schemas, "--out", "generated"],
    dir,
  );
  timed(OT_CLI, [defFile, "-o", join(dir, OT_OUT, "schema.d.ts"), ...OT_FLAGS]);
  timed(HEY_CLI, ["-i", defFile, "-o", join(dir, HEY_OUT)], dir);
  writeBaseConfig(dir);
  return indexIdentifiers(join(dir, "generated", "bench"));
}

/** Each repeat's `later` over the same repeat's `earlier` (measured back to back). */
function growthSamples(earlier, later) {
  return later.map((x, i) => x / earlier[i]);
}

export async function run({ quick = false, log = console.log } = {}) {
  checkPrerequisites();
  const sizes = quick ? [30] : [300, 3000];
  // Five: on a shared 2-core machine three left single slow runs in the medians of the growth rows.
  const repeats = quick ? 1 : 5;
  // --quick proves the case runs: the compiler users get by default is enough for that.
  const compilers = quick ? COMPILERS.slice(0, 1) : COMPILERS;
  const rows = [];
  const samples = {};
  const notes = [];
  /** wall samples by `${compiler}|${app}|${shape}|${n}` */
  const wall = {};
  const tmpRoot = mkdtempSync(join(tmpdir(), "wfr-bench-type-check-"));
  try {
    const envs = sizes.map((n) => {
      const dir = join(tmpRoot, `n${n}`);
      mkdirSync(dir, { recursive: true });
      const identifiers = generateSides(dir, n);
      const many = Math.min(20, n);
      const apps = [
        { name: "1 workflow", configs: writeShapeApps(dir, identifiers, 1) },
        { name: `${many} workflows`, configs: writeShapeApps(dir, identifiers, many) },
      ];
      // --quick checks the 1-workflow app only (the 20-workflow app is written, not checked).
      return { n, dir, apps: quick ? apps.slice(0, 1) : apps };
    });
    /** samples by `${n}|${app}|${compiler}` -> shape -> [{ ms, rssKiB, files, instantiations }] */
    const got = {};
    // Every repeat runs every program once, both environment sizes back to back, so that the
    // growth from 300 to 3,000 is a ratio of neighbours, not of two stretches of a shared machine.
    for (let r = 0; r < repeats; r++)
      for (const appIndex of [0, 1])
        for (const compiler of compilers)
          for (const env of envs) {
            const app = env.apps[appIndex];
            if (!app) continue;
            const key = `${env.n}|${app.name}|${compiler.name}`;
            got[key] ??= Object.fromEntries(SHAPES.map((s) => [s, []]));
            for (const shape of SHAPES) {
              const argv = ["--max-old-space-size=4096", compiler.tsc];
              argv.push("-p", join(env.dir, app.configs[shape]), "--extendedDiagnostics");
              const t = timedWithRss(process.execPath, argv, env.dir);
              got[key][shape].push({ ms: t.ms, rssKiB: t.rssKiB, ...diagnostics(t.stdout) });
            }
            log(
              `N=${env.n} ${app.name} ${compiler.name} repeat ${r + 1}: ${SHAPES.map((s) => `${s} ${got[key][s].at(-1).ms.toFixed(0)} ms`).join(", ")}`,
            );
          }
    for (const env of envs)
      for (const app of env.apps)
        for (const compiler of compilers) {
          const n = env.n;
          const sides = got[`${n}|${app.name}|${compiler.name}`];
          const label = `${compiler.name}, ${app.name}, N=${n}`;
          const of = (shape, key) => sides[shape].map((x) => x[key]);
          const ot = (key) => of("ot", key);
          const target = app.name === "1 workflow" && n === 300 ? atMost(0.5) : undefined;
          rows.push(
            compareRow(
              `${label}, per-workflow import, wall`,
              "ms",
              of("per-workflow", "ms"),
              ot("ms"),
              target,
            ),
            compareRow(`${label}, README import, wall`, "ms", of("readme", "ms"), ot("ms")),
            compareRow(`${label}, index import, wall`, "ms", of("index", "ms"), ot("ms")),
            compareRow(
              `${label}, per-workflow import, peak RSS`,
              "MiB",
              of("per-workflow", "rssKiB").map((k) => k / 1024),
              ot("rssKiB").map((k) => k / 1024),
            ),
            compareRow(
              `${label}, index import, peak RSS`,
              "MiB",
              of("index", "rssKiB").map((k) => k / 1024),
              ot("rssKiB").map((k) => k / 1024),
            ),
            compareRow(
              `${label}, README import, files read`,
              "files",
              of("readme", "files"),
              ot("files"),
            ),
            compareRow(
              `${label}, index import, files read`,
              "files",
              of("index", "files"),
              ot("files"),
            ),
          );
          if (sides["per-workflow"].some((x) => Number.isFinite(x.instantiations)))
            rows.push(
              compareRow(
                `${label}, per-workflow import, instantiations`,
                "count",
                of("per-workflow", "instantiations"),
                ot("instantiations"),
              ),
            );
          const heyRow = compareRow(
            `${label}, per-workflow import vs hey-api, wall`,
            "ms",
            of("per-workflow", "ms"),
            of("hey", "ms"),
          );
          heyRow.anchorName = "hey-api";
          rows.push(heyRow);
          samples[label] = sides;
          for (const shape of SHAPES)
            wall[`${compiler.name}|${app.name}|${shape}|${n}`] = of(shape, "ms");
        }
    if (!quick)
      for (const compiler of compilers)
        for (const app of ["1 workflow", "20 workflows"]) {
          const growth = (shape) =>
            growthSamples(
              wall[`${compiler.name}|${app}|${shape}|300`],
              wall[`${compiler.name}|${app}|${shape}|3000`],
            );
          const perWorkflow = growth("per-workflow");
          for (const shape of ["per-workflow", "readme", "index"]) {
            const row = compareRow(
              `${compiler.name}, ${app}, ${SHAPE_LABEL[shape]}, wall N=3000 / N=300 (growth)`,
              "x",
              growth(shape),
            );
            if (shape === "per-workflow" && app === "1 workflow") {
              row.target = "< 1.10x";
              row.met = row.ours.median < 1.1;
            }
            rows.push(row);
          }
          // The README's import against the per-workflow import: growth over growth.
          const relative = compareRow(
            `${compiler.name}, ${app}, README import growth / per-workflow import growth`,
            "x",
            growth("readme"),
            perWorkflow,
          );
          relative.anchorName = "per-workflow import";
          relative.target = "<= 1.1x";
          relative.met = relative.ratio <= 1.1;
          rows.push(relative);
        }
    notes.push(
      "The 1-workflow app launches one workflow with typed inputs (a file input included) and reads its typed result; the 20-workflow app waits for and reads the typed result of 20 workflows. Same tsconfig (strict, skipLibCheck, moduleResolution Bundler) for every side.",
      "Import shapes: per-workflow = `@wfr/generated/<env>/<workflow>` with a base URL; README = `#wfr/<env>/environment` + `#wfr/<env>/<workflow>` (what the README shows); index = `#wfr/<env>` (`environment`, `workflows`: every workflow of the environment, the documented cost). hey-api = @hey-api/openapi-ts's generated SDK functions and types, which are TypeScript sources the app's tsc checks.",
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
