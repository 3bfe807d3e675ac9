// Shared by bench/cases/generation.mjs and bench/cases/type-check.mjs:
// the synthetic N-workflow definition (cloned from schemas/sample/openapi.json), process timers
// with peak RSS, and the two equivalent apps (wfr vs openapi-typescript + openapi-fetch).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const CODEGEN_CLI = join(ROOT, "packages/codegen/dist/cli.js");
export const OT_CLI = join(ROOT, "packages/codegen/node_modules/.bin/openapi-typescript");
export const TSC = join(ROOT, "node_modules/typescript/lib/tsc.js");
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
    ["typescript", TSC, "npx pnpm@10.34.8 install"],
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
// Apps (same compiler options for both)
// ---------------------------------------------------------------------------------------------

export function writeApps(tmp, module, identifier, id) {
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

/**
 * The apps that use `count` workflows (wf_B000001..): each waits for and reads the typed result
 * of every one of them. wfr-app-<count>.ts (@wfr/runtime + generated modules) and
 * ot-app-<count>.ts (openapi-fetch + openapi-typescript's schema.d.ts), with
 * tsconfig.{wfr,ot}-<count>.json extending the tsconfig.base.json that writeApps wrote.
 */
export function writeManyApps(tmp, identifiers, count) {
  const wfrLines = [`import { createClient } from "@wfr/runtime";`];
  const otLines = [
    `import createClient from "openapi-fetch";`,
    `import type { components, paths } from "./ot/schema";`,
  ];
  const wfrBody = [];
  const otBody = [];
  for (let i = 1; i <= count; i++) {
    const id = benchId(i);
    const found = identifiers.get(id);
    if (!found) throw new Error(`no generated module for ${id}`);
    wfrLines.push(`import { ${found.identifier} } from "@wfr/generated/bench/${found.module}";`);
    wfrBody.push(`  const r${i} = await wfr.waitForResult(${found.identifier}, runIds[${i - 1}] ?? "");
  if (r${i}.state === "terminal" && r${i}.status === "succeeded") out.push(r${i}.outputs);`);
    otBody.push(`  const g${i} = await client.GET("/runs/{runId}/result", { params: { path: { runId: runIds[${i - 1}] ?? "" } } });
  const r${i} = g${i}.data as components["schemas"]["Workflow_${id}_Result"] | undefined;
  if (r${i} && r${i}.status === "succeeded" && r${i}.outputs) out.push(r${i}.outputs);`);
  }
  writeFileSync(
    join(tmp, `wfr-app-${count}.ts`),
    `${wfrLines.join("\n")}

export async function main(runIds: string[]): Promise<unknown[]> {
  const wfr = createClient({ baseUrl: "http://localhost:8787/api/v1", apiKey: "k" });
  const out: unknown[] = [];
${wfrBody.join("\n")}
  return out;
}
`,
  );
  writeFileSync(
    join(tmp, `ot-app-${count}.ts`),
    `${otLines.join("\n")}

export async function main(runIds: string[]): Promise<unknown[]> {
  const client = createClient<paths>({ baseUrl: "http://localhost:8787/api/v1", headers: { Authorization: "Bearer k" } });
  const out: unknown[] = [];
${otBody.join("\n")}
  return out;
}
`,
  );
  for (const side of ["wfr", "ot"])
    writeFileSync(
      join(tmp, `tsconfig.${side}-${count}.json`),
      JSON.stringify(
        { extends: "./tsconfig.base.json", files: [`${side}-app-${count}.ts`] },
        null,
        2,
      ),
    );
}
