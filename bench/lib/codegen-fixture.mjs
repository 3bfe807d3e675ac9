// Shared by bench/cases/generation.mjs, type-check.mjs and bundle.mjs: the synthetic N-workflow
// definition (cloned from schemas/sample/openapi.json) and process timers with peak RSS. The apps
// the type-check case compiles are in type-check-apps.mjs.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const CODEGEN_CLI = join(ROOT, "packages/codegen/dist/cli.js");
export const OT_CLI = join(ROOT, "packages/codegen/node_modules/.bin/openapi-typescript");
// The compilers an app's users have: TypeScript 7 (the root devDependency, the release
// `npm i typescript` installs) and 5.9 (this package's devDependency, the oldest the packages'
// peerDependencies allow). Each `lib/tsc.js` is run with Node; 7's starts its native compiler.
export const COMPILERS = [
  { name: "TS 7", tsc: join(ROOT, "node_modules/typescript/lib/tsc.js"), major: 7 },
  { name: "TS 5.9", tsc: join(ROOT, "bench/node_modules/typescript/lib/tsc.js"), major: 5 },
];
export const HEY_CLI = join(ROOT, "bench/node_modules/.bin/openapi-ts");
export const RUNTIME_DTS = join(ROOT, "packages/runtime/dist/index.d.ts");
// The competitor's client and zod come from this package's own dependencies (bench/package.json).
export const OPENAPI_FETCH_DTS = join(ROOT, "bench/node_modules/openapi-fetch/dist/index.d.mts");
export const ZOD_DIR = join(ROOT, "bench/node_modules/zod");
export const TEMPLATE = join(ROOT, "schemas/sample/openapi.json");
export const TIME_BIN = "/usr/bin/time";
// openapi-typescript 7 defaults to --default-non-nullable true, which makes every input with a
// saved `default` (currency, paid) *required* in the launch body; the definition format says such
// fields are optional, so the equivalent app needs this flag.
export const OT_FLAGS = ["--default-non-nullable", "false"];

export function checkPrerequisites() {
  for (const [what, file, fix] of [
    ["codegen dist", CODEGEN_CLI, "npx pnpm@10.34.8 --filter @wfr/codegen... build"],
    ["runtime dist", RUNTIME_DTS, "npx pnpm@10.34.8 --filter @wfr/runtime build"],
    [
      "openapi-typescript CLI",
      OT_CLI,
      "npx pnpm@10.34.8 install (devDependency of packages/codegen)",
    ],
    ["openapi-fetch types", OPENAPI_FETCH_DTS, "npx pnpm@10.34.8 install (dependency of bench)"],
    ...COMPILERS.map((c) => [`typescript (${c.name})`, c.tsc, "npx pnpm@10.34.8 install"]),
    ["@hey-api/openapi-ts CLI", HEY_CLI, "npx pnpm@10.34.8 install (devDependency of bench)"],
    ["zod", join(ZOD_DIR, "package.json"), "npx pnpm@10.34.8 install"],
    ["GNU time", TIME_BIN, "apt-get install -y time"],
  ]) {
    if (!existsSync(file)) {
      throw new Error(`missing ${what}: ${file}; fix: ${fix}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 1. Synthetic definition
// ---------------------------------------------------------------------------------------------

export const benchId = (i) => `wf_B${String(i).padStart(6, "0")}`;
export const benchName = (i) => `Bench workflow ${i}`;
export const EXTRA_INPUTS = [
  { type: "string", "x-input-type": "text", maxLength: 120 },
  { type: "number", "x-input-type": "number" },
  { type: "boolean", "x-input-type": "boolean", default: false },
  { type: "string", "x-input-type": "text", enum: ["low", "normal", "high"] },
  { type: "string", "x-input-type": "text", format: "date" },
];
export const EXTRA_OUTPUTS = [
  { type: "string" },
  { type: "number" },
  { type: "boolean" },
  { type: ["string", "null"] },
];

export function makeDefinition(n) {
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

export function timed(cmd, argv, cwd = ROOT) {
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
export function timedWithRss(cmd, argv, cwd = ROOT) {
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
  return { ms, rssKiB: Number(m[2]), stdout: r.stdout };
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export function findIdentifier(benchDir, id) {
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
// Main
// ---------------------------------------------------------------------------------------------

/** Every generated workflow module of an environment folder: workflow id -> { identifier, module }. */
export function indexIdentifiers(benchDir) {
  const map = new Map();
  for (const f of readdirSync(benchDir)) {
    if (!f.endsWith(".d.ts") || /\.(types|schema)\.d\.ts$/.test(f) || f === "index.d.ts") continue;
    const text = readFileSync(join(benchDir, f), "utf8");
    const wf = /"(wf_B\d{6})"/.exec(text);
    const m = /export declare const (\w+)\s*:/.exec(text);
    if (wf && m) map.set(wf[1], { identifier: m[1], module: f.replace(/\.d\.ts$/, "") });
  }
  return map;
}
