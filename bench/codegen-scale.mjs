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

import { spawnSync } from "node:child_process";
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
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
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

const CODEGEN_CLI = join(ROOT, "packages/codegen/dist/cli.js");
const OT_CLI = join(ROOT, "packages/codegen/node_modules/.bin/openapi-typescript");
const TSC = join(ROOT, "node_modules/typescript/lib/tsc.js");
const RUNTIME_DTS = join(ROOT, "packages/runtime/dist/index.d.ts");
const OPENAPI_FETCH_DTS = join(
  ROOT,
  "packages/runtime/node_modules/openapi-fetch/dist/index.d.mts",
);
const ZOD_DIR = join(ROOT, "packages/generated/node_modules/zod");
const TEMPLATE = join(ROOT, "schemas/production/openapi.json");
const TIME_BIN = "/usr/bin/time";
// openapi-typescript 7 defaults to --default-non-nullable true, which makes every input with a
// saved `default` (currency, paid) *required* in the launch body; the definition format says such
// fields are optional, so the equivalent app needs this flag.
const OT_FLAGS = ["--default-non-nullable", "false"];

for (const [what, file, fix] of [
  ["codegen dist", CODEGEN_CLI, "npx pnpm@10.34.8 --filter @wfr/codegen... build"],
  ["runtime dist", RUNTIME_DTS, "npx pnpm@10.34.8 --filter @wfr/runtime build"],
  [
    "openapi-typescript CLI",
    OT_CLI,
    "npx pnpm@10.34.8 install (devDependency of packages/codegen)",
  ],
  [
    "openapi-fetch types",
    OPENAPI_FETCH_DTS,
    "npx pnpm@10.34.8 install (dependency of packages/runtime)",
  ],
  ["typescript", TSC, "npx pnpm@10.34.8 install"],
  ["zod", join(ZOD_DIR, "package.json"), "npx pnpm@10.34.8 install"],
  ["GNU time", TIME_BIN, "apt-get install -y time"],
]) {
  if (!existsSync(file)) {
    console.error(`missing ${what}: ${file}\n  fix: ${fix}`);
    process.exit(2);
  }
}

// ---------------------------------------------------------------------------------------------
// 1. Synthetic definition
// ---------------------------------------------------------------------------------------------

const benchId = (i) => `wf_B${String(i).padStart(6, "0")}`;
const benchName = (i) => `Bench workflow ${i}`;
const EXTRA_INPUTS = [
  { type: "string", "x-input-type": "text", maxLength: 120 },
  { type: "number", "x-input-type": "number" },
  { type: "boolean", "x-input-type": "boolean", default: false },
  { type: "string", "x-input-type": "text", enum: ["low", "normal", "high"] },
  { type: "string", "x-input-type": "text", format: "date" },
];
const EXTRA_OUTPUTS = [
  { type: "string" },
  { type: "number" },
  { type: "boolean" },
  { type: ["string", "null"] },
];

function makeDefinition(n) {
  const template = JSON.parse(readFileSync(TEMPLATE, "utf8"));
  const launchPaths = Object.keys(template.paths).filter((p) =>
    /^\/automations\/[^/]+\/runs$/.test(p),
  );
  const enabled = launchPaths
    .map((p) => template.paths[p].post["x-workflow"])
    .filter((w) => w.state === "enabled");
  if (enabled.length === 0) throw new Error("template has no enabled workflow");

  const out = structuredClone(template);
  out.info.title = "Workflow Run API (bench)";
  out.info["x-environment"] = "bench";
  out.paths = {};
  const sharedSchemas = {};
  for (const [name, schema] of Object.entries(template.components.schemas)) {
    if (!name.startsWith("Workflow_")) sharedSchemas[name] = schema;
  }
  out.components.schemas = { ...sharedSchemas };

  for (let i = 1; i <= n; i++) {
    const src = enabled[(i - 1) % enabled.length];
    const id = benchId(i);
    const name = benchName(i);
    const swap = (value) =>
      JSON.parse(
        JSON.stringify(value)
          .replaceAll(src.id, id)
          .replaceAll(JSON.stringify(src.name).slice(1, -1), name),
      );
    const pathItem = swap(template.paths[`/automations/${src.id}/runs`]);
    const wf = pathItem.post["x-workflow"];
    wf.revision = 1 + (i % 37);
    pathItem.post.description = `Synthetic clone ${i} of ${src.id}.`;
    out.paths[`/automations/${id}/runs`] = pathItem;
    for (const suffix of ["Inputs", "Outputs", "LaunchBody", "Result"]) {
      const key = `Workflow_${src.id}_${suffix}`;
      if (template.components.schemas[key])
        out.components.schemas[`Workflow_${id}_${suffix}`] = swap(template.components.schemas[key]);
    }
    // Varied fields: one optional extra input and one extra output per workflow.
    const inputs = out.components.schemas[`Workflow_${id}_Inputs`];
    if (inputs?.properties)
      inputs.properties[`bench_field_${i}`] = structuredClone(
        EXTRA_INPUTS[i % EXTRA_INPUTS.length],
      );
    const outputs = out.components.schemas[`Workflow_${id}_Outputs`];
    if (outputs?.properties)
      outputs.properties[`bench_out_${i}`] = structuredClone(
        EXTRA_OUTPUTS[i % EXTRA_OUTPUTS.length],
      );
  }
  // Shared (non-launch) paths: /runs/{runId}, /runs/{runId}/result, ...
  for (const p of Object.keys(template.paths))
    if (!launchPaths.includes(p)) out.paths[p] = template.paths[p];
  return { definition: out, firstTemplate: enabled[0] };
}

// ---------------------------------------------------------------------------------------------
// Process helpers
// ---------------------------------------------------------------------------------------------

function timed(cmd, argv, cwd = ROOT) {
  const start = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { cwd, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) {
    throw new Error(
      `${cmd} ${argv.join(" ")} exited ${r.status}\n${r.stdout}\n${r.stderr}`.slice(0, 6000),
    );
  }
  return { ms, stdout: r.stdout, stderr: r.stderr };
}

// Wall time (own clock) and peak RSS (GNU time %M, KiB) of a child.
function timedWithRss(cmd, argv, cwd = ROOT) {
  const marker = "@@RSS@@";
  const start = process.hrtime.bigint();
  const r = spawnSync(TIME_BIN, ["-f", `${marker}%e %M`, cmd, ...argv], {
    cwd,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const m = new RegExp(`${marker}([\\d.]+) (\\d+)`).exec(r.stderr);
  if (r.status !== 0 || !m) {
    throw new Error(
      `${cmd} ${argv.join(" ")} exited ${r.status}\n${r.stdout}\n${r.stderr}`.slice(0, 6000),
    );
  }
  return { ms, rssKiB: Number(m[2]) };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function findIdentifier(benchDir, id) {
  for (const f of readdirSync(benchDir)) {
    if (
      !f.endsWith(".d.ts") ||
      f.endsWith(".types.d.ts") ||
      f.endsWith(".schema.d.ts") ||
      f === "index.d.ts"
    )
      continue;
    const text = readFileSync(join(benchDir, f), "utf8");
    if (!text.includes(`"${id}"`)) continue;
    const m = /export declare const (\w+)\s*:/.exec(text);
    if (m) return { identifier: m[1], module: f.replace(/\.d\.ts$/, "") };
  }
  throw new Error(`no generated module for ${id} in ${benchDir}`);
}

// ---------------------------------------------------------------------------------------------
// Apps (same compiler options for both)
// ---------------------------------------------------------------------------------------------

function writeApps(tmp, module, identifier, id) {
  const rel = (p) => relative(tmp, p).split("\\").join("/");
  const base = {
    compilerOptions: {
      target: "ES2022",
      lib: ["ES2023", "DOM", "DOM.Iterable"],
      module: "ESNext",
      moduleResolution: "Bundler",
      strict: true,
      noUncheckedIndexedAccess: true,
      verbatimModuleSyntax: true,
      isolatedModules: true,
      skipLibCheck: true,
      noEmit: true,
      types: [],
      paths: {
        "@wfr/runtime": [rel(RUNTIME_DTS)],
        "@wfr/generated/bench/*": ["./generated/bench/*.d.ts"],
        zod: [rel(ZOD_DIR)],
        "openapi-fetch": [rel(OPENAPI_FETCH_DTS)],
      },
    },
  };
  writeFileSync(join(tmp, "tsconfig.base.json"), JSON.stringify(base, null, 2));
  writeFileSync(
    join(tmp, "tsconfig.wfr.json"),
    JSON.stringify({ extends: "./tsconfig.base.json", files: ["wfr-app.ts"] }, null, 2),
  );
  writeFileSync(
    join(tmp, "tsconfig.ot.json"),
    JSON.stringify({ extends: "./tsconfig.base.json", files: ["ot-app.ts"] }, null, 2),
  );

  writeFileSync(
    join(tmp, "wfr-app.ts"),
    `import { createClient, file } from "@wfr/runtime";
import { ${identifier} } from "@wfr/generated/bench/${module}";

export async function main(): Promise<string> {
  const wfr = createClient({ baseUrl: "http://localhost:8787/api/v1", apiKey: "k" });
  const run = await wfr.launch(${identifier}, {
    inputs: {
      vendor_name: "Northwind Traders",
      amount: 1280.5,
      currency: "EUR",
      invoice_pdf: file(new Uint8Array([37, 80, 68, 70]), { filename: "inv.pdf", mimeType: "application/pdf" }),
    },
  });
  const result = await wfr.waitForResult(${identifier}, run.run_id);
  if (result.state === "terminal" && result.status === "succeeded") {
    const total: number = result.outputs.total;
    return \`\${result.outputs.invoice_id} \${total} \${result.outputs.status}\`;
  }
  return "failed";
}
`,
  );

  writeFileSync(
    join(tmp, "ot-app.ts"),
    `import createClient from "openapi-fetch";
import type { components, paths } from "./ot/schema";

type Result = components["schemas"]["Workflow_${id}_Result"];

export async function main(): Promise<string> {
  const client = createClient<paths>({ baseUrl: "http://localhost:8787/api/v1", headers: { Authorization: "Bearer k" } });
  const launched = await client.POST("/automations/${id}/runs", {
    body: {
      inputs: {
        vendor_name: "Northwind Traders",
        amount: 1280.5,
        currency: "EUR",
        invoice_pdf: { attachment_id: "att_1" },
      },
      input_context: {
        attachments: [{ id: "att_1", filename: "inv.pdf", mimeType: "application/pdf", base64: "JVBERg==" }],
      },
    },
  });
  if (!launched.data) return "launch failed";
  const got = await client.GET("/runs/{runId}/result", { params: { path: { runId: launched.data.run_id } } });
  const result = got.data as Result | undefined;
  if (result && result.status === "succeeded" && result.outputs) {
    const total: number = result.outputs.total;
    return \`\${result.outputs.invoice_id} \${total} \${result.outputs.status}\`;
  }
  return "failed";
}
`,
  );
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

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
