// Bytes an app ships: @wfr/runtime for an app that only launches and polls,
// and the generated code for one workflow, minified and gzipped by esbuild,
// next to openapi-fetch alone, built in one esbuild run with the same settings.
// Then an edge worker (launch one workflow, wait for its result) against an environment of 300
// workflows, in the three import shapes a team may copy: one workflow's module with a base URL,
// the README's (the environment module and the workflow's module), and the index (every workflow);
// and the same worker written with openapi-fetch and with @hey-api/openapi-ts's generated SDK
// (both over the same definition), which validate nothing.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL as toFileUrl } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import {
  CODEGEN_CLI,
  HEY_CLI,
  indexIdentifiers,
  makeDefinition,
  timed,
} from "../lib/codegen-fixture.mjs";
import { atMost, compareRow, valueAtMost } from "../lib/rows.mjs";

export const id = "bundle";
export const title = "Bundle size: what an app ships";
export const anchorName = "openapi-fetch";
export const anchor = "openapi-fetch alone (esbuild, minified, ESM, same run)";

const root = fileURLToPath(new URL("../../", import.meta.url));
const require = createRequire(join(root, "bench", "package.json"));

const ENTRIES = {
  // An app that only launches and polls.
  "runtime-launch-poll": `import { createClient } from "@wfr/runtime";
const wfr = createClient({ baseUrl: "https://api.example/api/v1", apiKey: "k" });
const run = await wfr.launch("wf_1", { inputs: {} });
console.log(await wfr.waitForRun(run.run_id));`,
  // One generated workflow module, with the runtime it imports.
  "generated-one-workflow": `import { invoiceIntake } from "@wfr/generated/sample/invoiceIntake";
console.log(invoiceIntake.id);`,
  "openapi-fetch": `import createClient from "openapi-fetch";
const api = createClient({ baseUrl: "https://api.example/api/v1" });
console.log(await api.GET("/runs/{runId}", { params: { path: { runId: "r" } } }));`,
};

/** The worker in each import shape, over the environment generated into `<gen>/bench`. */
function workerEntries(gen, workflow) {
  const own = `import { ${workflow.identifier} as wf } from "${gen}/bench/${workflow.module}.js";`;
  const worker = (options) => `
export default {
  async fetch(request, env) {
    const wfr = createClient({ ${options}, apiKey: env.WFR_API_KEY });
    const run = await wfr.launch(wf, { inputs: await request.json() });
    return Response.json(await wfr.waitForResult(wf, run.run_id));
  },
};`;
  return {
    "worker-per-workflow": `import { createClient } from "@wfr/runtime";
${own}${worker('baseUrl: "https://workflows.example.com/production/api/v1"')}`,
    "worker-readme": `import { createClient } from "@wfr/runtime";
import { environment } from "${gen}/bench/environment.js";
${own}${worker("environment")}`,
    "worker-index": `import { createClient } from "@wfr/runtime";
import { environment, workflows } from "${gen}/bench.js";
const wf = workflows.${workflow.identifier};${worker("environment")}`,
  };
}

const BASE_URL = "https://workflows.example.com/production/api/v1";

/**
 * The same worker without wfr: launch, then ask for the result until it is no longer 202 (the
 * run is still active), as `waitForResult` does, with openapi-fetch and with hey-api's SDK.
 */
function competitorWorkers(hey, id) {
  const wait = "await new Promise((resolve) => setTimeout(resolve, 1000));";
  return {
    "worker-openapi-fetch": `import createClient from "openapi-fetch";
export default {
  async fetch(request, env) {
    const api = createClient({ baseUrl: "${BASE_URL}", headers: { Authorization: \`Bearer \${env.WFR_API_KEY}\` } });
    const launched = await api.POST("/automations/${id}/runs", { body: { inputs: await request.json() } });
    const runId = launched.data.run_id;
    for (;;) {
      const got = await api.GET("/runs/{runId}/result", { params: { path: { runId } } });
      if (got.response.status !== 202) return Response.json(got.data);
      ${wait}
    }
  },
};`,
    "worker-hey-api": `import { createClient } from "${hey}/client/index.ts";
import { getRunResult, launch${id.replace(/^wf_/, "Wf")} } from "${hey}/sdk.gen.ts";
export default {
  async fetch(request, env) {
    const client = createClient({ baseUrl: "${BASE_URL}", auth: env.WFR_API_KEY });
    const launched = await launch${id.replace(/^wf_/, "Wf")}({ client, body: { inputs: await request.json() } });
    const runId = launched.data.run_id;
    for (;;) {
      const got = await getRunResult({ client, path: { runId } });
      if (got.response.status !== 202) return Response.json(got.data);
      ${wait}
    }
  },
};`,
  };
}

/**
 * Generates an environment of `n` workflows into `<dir>/gen` (wfr) and `<dir>/hey` (hey-api)
 * and returns the worker entries.
 */
function generateWorkers(dir, n) {
  const schemas = join(dir, "schemas");
  const definition = join(schemas, "bench", "openapi.json");
  mkdirSync(join(schemas, "bench"), { recursive: true });
  writeFileSync(definition, JSON.stringify(makeDefinition(n).definition));
  timed(process.execPath, [
    CODEGEN_CLI,
    "generate",
    "--schemas",
    schemas,
    "--out",
    join(dir, "gen"),
  ]);
  timed(HEY_CLI, ["-i", definition, "-o", join(dir, "hey")], dir);
  const first = indexIdentifiers(join(dir, "gen", "bench")).get("wf_B000001");
  const slash = (path) => path.split("\\").join("/");
  return {
    ...workerEntries(slash(join(dir, "gen")), first),
    ...competitorWorkers(slash(join(dir, "hey")), "wf_B000001"),
  };
}

async function sizes(workflowsInEnvironment) {
  const dir = mkdtempSync(join(tmpdir(), "wfr-bench-bundle-"));
  try {
    const result = {};
    const entries = { ...ENTRIES, ...generateWorkers(dir, workflowsInEnvironment) };
    for (const [name, source] of Object.entries(entries)) {
      const entry = join(dir, `${name}.mjs`);
      writeFileSync(entry, source);
      const out = await build({
        entryPoints: [entry],
        bundle: true,
        minify: true,
        format: "esm",
        platform: "neutral",
        mainFields: ["module", "main"],
        conditions: ["import"],
        write: false,
        logLevel: "silent",
        nodePaths: [
          join(root, "bench", "node_modules"),
          join(root, "apps", "demo", "node_modules"),
        ],
        resolveExtensions: [".mjs", ".js", ".ts"],
      });
      const bytes = out.outputFiles[0].contents;
      result[name] = {
        minified: bytes.byteLength / 1024,
        gzipped: gzipSync(bytes, { level: 9 }).byteLength / 1024,
      };
    }
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run({ quick = false } = {}) {
  void require;
  const n = quick ? 30 : 300;
  const s = await sizes(n);
  const one = (x) => [x];
  const versusPerWorkflow = (shape, what) => {
    const row = compareRow(
      `worker, ${what}, ${n} workflows in the environment, min+gzip`,
      "KiB",
      one(s[shape].gzipped),
      one(s["worker-per-workflow"].gzipped),
      shape === "worker-readme" ? atMost(1.01) : undefined,
    );
    row.anchorName = "per-workflow import";
    return row;
  };
  // The same worker without wfr (no validation): what a team would write instead.
  const versusWorker = (anchorShape, anchorName) => {
    const row = compareRow(
      `worker, per-workflow import vs the same worker on ${anchorName.replace(/ worker$/, "")}, ${n} workflows in the environment, min+gzip`,
      "KiB",
      one(s["worker-per-workflow"].gzipped),
      one(s[anchorShape].gzipped),
    );
    row.anchorName = anchorName;
    return row;
  };
  // The edge budget: 30 KB = 29.3 KiB (1 KiB = 1024 bytes, the unit of every row here).
  const oneWorkflowWorkerTarget = compareRow(
    `one-workflow worker, per-workflow import, min+gzip (30 KB = 29.3 KiB)`,
    "KiB",
    one(s["worker-per-workflow"].gzipped),
    one(s["worker-openapi-fetch"].gzipped),
    valueAtMost(29.3, "KiB"),
  );
  oneWorkflowWorkerTarget.anchorName = "openapi-fetch worker";
  return {
    rows: [
      compareRow(
        "runtime, launch + poll app, min+gzip",
        "KiB",
        one(s["runtime-launch-poll"].gzipped),
        one(s["openapi-fetch"].gzipped),
      ),
      compareRow(
        "runtime, launch + poll app, minified",
        "KiB",
        one(s["runtime-launch-poll"].minified),
        one(s["openapi-fetch"].minified),
      ),
      compareRow(
        "one generated workflow + runtime + zod, min+gzip",
        "KiB",
        one(s["generated-one-workflow"].gzipped),
        one(s["openapi-fetch"].gzipped),
      ),
      compareRow(
        `worker, per-workflow import, ${n} workflows in the environment, min+gzip`,
        "KiB",
        one(s["worker-per-workflow"].gzipped),
        one(s["openapi-fetch"].gzipped),
      ),
      versusWorker("worker-openapi-fetch", "openapi-fetch worker"),
      versusWorker("worker-hey-api", "hey-api worker"),
      oneWorkflowWorkerTarget,
      versusPerWorkflow("worker-readme", "README import (environment module + workflow module)"),
      versusPerWorkflow("worker-index", "index import (every workflow)"),
    ],
    samples: s,
    notes: [
      "Sizes are deterministic: one build each. The runtime calls fetch itself (no openapi-fetch inside); its route types come from openapi-typescript at build time.",
      "The openapi-fetch and hey-api workers do the same job (launch one workflow of the same definition, ask for its result until it is not 202) and validate nothing; the wfr worker validates the inputs and the outputs against the workflow's schemas (zod/mini, only the functions those schemas use). The target row's budget is 30 KB = 29.3 KiB gzipped.",
      `The workers launch one workflow of a generated environment of ${n} workflows (bench/lib/codegen-fixture.mjs) and return its result. The README's and the index's rows are against the per-workflow worker, which names a base URL instead of importing \`environment\`: the README's adds the environment object only (target <= 1.01x); the index's carries every workflow of the environment, because \`workflows\` holds them all and no bundler can drop them.`,
    ],
  };
}

if (process.argv[1] && import.meta.url === toFileUrl(process.argv[1]).href) {
  const { standalone } = await import("../lib/standalone.mjs");
  await standalone({ id, title, anchor, help: `node bench/cases/${id}.mjs [--quick]`, run });
}
