// Minified + gzipped size of @wfr/runtime (dist/index.js, dependencies
// bundled in) next to openapi-fetch alone, built in one esbuild run with the
// same settings. Run after `pnpm --filter @wfr/runtime build`:
//   node bench/runtime-size.mjs
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const runtimeDir = join(root, "packages/runtime");
const requireFromRuntime = createRequire(join(runtimeDir, "package.json"));
const { build } = requireFromRuntime("esbuild");

const entries = {
  "@wfr/runtime": join(runtimeDir, "dist/index.js"),
  "openapi-fetch": requireFromRuntime.resolve("openapi-fetch").replace(/\.cjs$/, ".mjs"),
};

const result = await build({
  entryPoints: Object.entries(entries).map(([name, path]) => ({
    in: path,
    out: name.replace(/\W/g, "_"),
  })),
  bundle: true,
  minify: true,
  format: "esm",
  platform: "neutral",
  mainFields: ["module", "main"],
  write: false,
  outdir: "out",
  logLevel: "warning",
});

const rows = Object.entries(entries).map(([name, path]) => {
  const out = result.outputFiles.find((f) => f.path.endsWith(`${name.replace(/\W/g, "_")}.js`));
  if (!out) throw new Error(`no output for ${name}`);
  return {
    name,
    entry: relative(root, path),
    minified: out.contents.byteLength,
    gzipped: gzipSync(out.contents, { level: 9 }).byteLength,
  };
});
const kb = (n) => `${(n / 1024).toFixed(2)} KiB`;
console.log(`${"package".padEnd(16)} ${"min".padStart(11)} ${"min+gzip".padStart(11)}  entry`);
for (const row of rows) {
  console.log(
    `${row.name.padEnd(16)} ${kb(row.minified).padStart(11)} ${kb(row.gzipped).padStart(11)}  ${row.entry}`,
  );
}
