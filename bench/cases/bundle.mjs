// Bytes an app ships: @wfr/runtime for an app that only launches and polls,
// and the generated code for one workflow, minified and gzipped by esbuild,
// next to openapi-fetch alone, built in one esbuild run with the same settings.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL as toFileUrl } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { compareRow } from "../lib/rows.mjs";

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

async function sizes() {
  const dir = mkdtempSync(join(tmpdir(), "wfr-bench-bundle-"));
  try {
    const result = {};
    for (const [name, source] of Object.entries(ENTRIES)) {
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
        resolveExtensions: [".mjs", ".js"],
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

export async function run() {
  void require;
  const s = await sizes();
  const one = (x) => [x];
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
    ],
    samples: s,
    notes: [
      "Sizes are deterministic: one build each. The runtime calls fetch itself (no openapi-fetch inside); its route types come from openapi-typescript at build time.",
    ],
  };
}

if (process.argv[1] && import.meta.url === toFileUrl(process.argv[1]).href) {
  const { standalone } = await import("../lib/standalone.mjs");
  await standalone({ id, title, anchor, help: `node bench/cases/${id}.mjs [--quick]`, run });
}
