// Generation: wall time and peak RSS of the real generate CLI
// (packages/codegen/dist/cli.js generate) at 30, 300 and 3,000 workflows, next to
// openapi-typescript 7 on the same definition file, interleaved in one run; plus the cost of
// making the generated code consumable (a build step, if @wfr/generated had one).
// The definitions come from bench/lib/codegen-fixture.mjs (clones of the production
// definition's enabled workflows: text, number, boolean, enum, date and file inputs, maxLength and
// enum constraints, defaults, nullable outputs).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  CODEGEN_CLI,
  checkPrerequisites,
  makeDefinition,
  OT_CLI,
  OT_FLAGS,
  ROOT,
  timedWithRss,
} from "../lib/codegen-fixture.mjs";
import { atMost, compareRow } from "../lib/rows.mjs";

export const id = "generation";
export const title = "Generation: generate CLI wall time and peak memory";
export const anchorName = "openapi-typescript 7";
export const anchor = `openapi-typescript 7 CLI on the same definition (${OT_FLAGS.join(" ")})`;
export const help = `node bench/cases/generation.mjs [--quick]
Writes a synthetic definition of N workflows (30, 300, 3000; --quick: 30 once), then times
\`node packages/codegen/dist/cli.js generate --schemas <dir> --out <dir>\` and the
openapi-typescript CLI on the same file, interleaved, 3 repeats (peak RSS from /usr/bin/time).
Target: wfr <= 0.5x openapi-typescript's time at 300 and 3,000.`;

export async function run({ quick = false, log = console.log } = {}) {
  checkPrerequisites();
  const sizes = quick ? [30] : [30, 300, 3000];
  const repeats = quick ? 1 : 3;
  const rows = [];
  const samples = {};
  const notes = [];
  const tmpRoot = mkdtempSync(join(tmpdir(), "wfr-bench-generation-"));
  try {
    for (const n of sizes) {
      const dir = join(tmpRoot, `n${n}`);
      const schemas = join(dir, "schemas");
      const defFile = join(schemas, "bench", "openapi.json");
      mkdirSync(dirname(defFile), { recursive: true });
      const text = JSON.stringify(makeDefinition(n).definition, null, 2);
      writeFileSync(defFile, text);
      const genOut = join(dir, "generated");
      const otOut = join(dir, "ot", "schema.d.ts");
      const ours = [];
      const theirs = [];
      for (let r = 0; r < repeats; r++) {
        rmSync(genOut, { recursive: true, force: true });
        ours.push(
          timedWithRss(process.execPath, [
            CODEGEN_CLI,
            "generate",
            "--schemas",
            schemas,
            "--out",
            genOut,
          ]),
        );
        rmSync(join(dir, "ot"), { recursive: true, force: true });
        theirs.push(timedWithRss(OT_CLI, [defFile, "-o", otOut, ...OT_FLAGS]));
        log(
          `N=${n} repeat ${r + 1}: wfr ${ours.at(-1).ms.toFixed(0)} ms, openapi-typescript ${theirs.at(-1).ms.toFixed(0)} ms`,
        );
      }
      const target = n >= 300 ? atMost(0.5) : undefined;
      rows.push(
        compareRow(
          `generate, ${n} workflows, wall`,
          "ms",
          ours.map((x) => x.ms),
          theirs.map((x) => x.ms),
          target,
        ),
        compareRow(
          `generate, ${n} workflows, peak RSS`,
          "MiB",
          ours.map((x) => x.rssKiB / 1024),
          theirs.map((x) => x.rssKiB / 1024),
        ),
      );
      samples[n] = {
        definitionMiB: text.length / 2 ** 20,
        wfr: ours,
        openapiTypescript: theirs,
        openapiTypescriptDtsMiB: readFileSync(otOut).length / 2 ** 20,
      };
    }
    // The build step that makes generated code consumable: @wfr/generated ships the generated
    // .js and .d.ts as they are (exports point at src/*.js and src/*.d.ts) and has no build script.
    const generated = JSON.parse(
      readFileSync(join(ROOT, "packages/generated/package.json"), "utf8"),
    );
    const buildScript = generated.scripts?.build;
    const exportsTargets = JSON.stringify(generated.exports);
    const noBuild = !buildScript && !exportsTargets.includes("dist/");
    rows.push(
      compareRow("build step to consume the generated code", "ms", [noBuild ? 0 : Number.NaN]),
    );
    notes.push(
      noBuild
        ? `Build step 0 ms, determined at run time: packages/generated/package.json has no build script and its exports point at the generated files themselves (${exportsTargets}).`
        : `packages/generated has a build step (${buildScript}); not timed here.`,
      "openapi-typescript's output (one schema.d.ts) needs no build either; its runtime client is openapi-fetch.",
    );
  } finally {
    rmSync(tmpRoot, { recursive: true, force: true });
  }
  return {
    rows,
    samples,
    notes,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { standalone } = await import("../lib/standalone.mjs");
  await standalone({ id, title, anchor, help, run });
}
