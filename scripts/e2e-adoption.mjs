#!/usr/bin/env node
// The adoption path, end to end, as a new user takes it outside this repository: every
// publishable package packed (`pnpm pack`) and published to a local registry (Verdaccio on
// loopback), then installed BY NAME from it into a fresh `npm init` project in the system's
// temporary folder, with the toolchain the registry serves today (TypeScript `latest`, read when
// the test runs). The commands of the README's adoption block run in order (parsed from
// README.md, so the README cannot drift), built with the tsconfig `wfr init` wrote and run
// against the emulator. Then: the CI workflow `wfr init` wrote, run step by step; the app again
// after `npm ci --omit=dev`; with zod 3 in the app; as an ES module package; bundled with
// esbuild; run directly with tsx; built with Vite; the oldest TypeScript wfr supports (as ESM in
// the Yarn Plug'n'Play pass); Deno with only `--allow-net`; a one-field graph edit in the
// service (pull --check exits 4, only that workflow's generated files change, tsc fails at the
// using line); and the matrix of package managers (pnpm, Yarn with Plug'n'Play and with
// node_modules, Bun), each as CommonJS and as ESM.
//
// Substitutions, and only these: the app's `.npmrc` names the local registry for the @wfr
// scope (what a team with a private scope writes), the example base URL becomes the emulator's
// and `export VAR=...` sets a key the emulator made.
// `node scripts/e2e-adoption.mjs [--keep] [--measure]`; exit 0 when every check holds.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startLocalRegistry } from "./e2e-adoption/local-registry.mjs";
import { denoPass, managerPass, packageManagers, setPackageType } from "./e2e-adoption/matrix.mjs";
import { check, fail, filesUnder, log, sh, transcript } from "./e2e-adoption/shell.mjs";
import { latestToolchains, OLDEST_TYPESCRIPT, toolBin } from "./e2e-adoption/toolchains.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const PNPM = ["--yes", "pnpm@10.34.8"];
const ZOD3 = "zod@3.25.76";
const ESBUILD = "esbuild@0.28.2";
const TSX = "tsx@4.23.15";
const VITE = "vite@8.3.8";
const keep = process.argv.includes("--keep");
const measure = process.argv.includes("--measure");
const work = mkdtempSync(join(tmpdir(), "wfr-e2e-"));
// One npm cache (and pnpm store, Yarn and Bun caches) for every run on this machine.
const cache = join(tmpdir(), "wfr-e2e-cache");
const npmFlags = [
  "--cache",
  join(cache, "npm"),
  "--prefer-offline",
  "--no-audit",
  "--no-fund",
  "--loglevel=error",
];
// The registry npm is configured with: every package but the @wfr scope comes from it, trusted
// as npm trusts it (its `cafile`, where one is set).
const registry = execFileSync("npm", ["config", "get", "registry"], { encoding: "utf8" }).trim();
const npmCaFile = execFileSync("npm", ["config", "get", "cafile"], { encoding: "utf8" }).trim();
const caFile =
  npmCaFile === "" || npmCaFile === "null" || npmCaFile === "undefined" ? undefined : npmCaFile;

// --- the README's adoption block and app ---------------------------------------------------
const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const marker = readme.indexOf("<!-- adoption-steps");
check(marker >= 0, "README.md has no <!-- adoption-steps --> block");
const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(marker));
const appBlock = /```ts\n([\s\S]*?)```/.exec(readme.slice(marker));
check(block && appBlock, "README.md: the adoption block or its app is missing");
const steps = block[1]
  .split("\n")
  .map((l) => l.replace(/\s+#\s.*$/, "").trim())
  .filter((l) => l !== "");
const APP = appBlock[1];
check(
  steps.every((l) => !/^npx wfr\b/.test(l)),
  "the README calls a bare `npx wfr`, which installs whatever the registry serves under `wfr` where the bin is missing",
);

// --- the toolchains of today, and the packages published to a registry of the team's own ---
const versionsAsked = latestToolchains();
const packs = join(work, "packs");
mkdirSync(packs);
execFileSync(
  "npx",
  [...PNPM, "-r", "--filter", "./packages/*", "pack", "--pack-destination", packs],
  { cwd: ROOT, stdio: "pipe" },
);
const tarballs = new Map();
for (const dir of readdirSync(join(ROOT, "packages"))) {
  const pkgFile = join(ROOT, "packages", dir, "package.json");
  if (!existsSync(pkgFile)) continue;
  const pkg = JSON.parse(readFileSync(pkgFile, "utf8"));
  if (pkg.private) continue;
  const file = join(packs, `${pkg.name.replace("@", "").replace("/", "-")}-${pkg.version}.tgz`);
  check(existsSync(file), `pnpm pack did not write ${file}`);
  tarballs.set(pkg.name, file);
}
check(!tarballs.has("@wfr/generated"), "@wfr/generated must not be published");
const localRegistry = await startLocalRegistry(join(work, "registry"));
await Promise.all([...tarballs.values()].map((file) => localRegistry.publish(file)));
const versions = await versionsAsked;
log(
  `published ${tarballs.size} packages to ${localRegistry.url}: ${[...tarballs.keys()].join(", ")}; today's toolchains: TypeScript ${versions.typescript}, pnpm ${versions.pnpm}, Yarn ${versions.yarn}, Bun ${versions.bun}, Deno ${versions.deno}`,
);
/** The app's `.npmrc`: the @wfr scope from the team's registry. */
const scopeNpmrc = (dir) => writeFileSync(join(dir, ".npmrc"), localRegistry.scopeNpmrc);

// --- the service: the emulator, with the sample workflow the app launches succeeding --------
const emulatorDir = join(ROOT, "packages", "emulator");
const YAML = createRequire(join(emulatorDir, "package.json"))("yaml");
const { startEmulator } = await import(pathToFileURL(join(emulatorDir, "dist", "index.js")).href);
function catalogFile(name, edit) {
  const catalog = YAML.parse(
    readFileSync(join(emulatorDir, "fixtures", "sample-catalog.yaml"), "utf8"),
  );
  const wf = catalog.environments.production.workflows.find((w) => w.id === "wf_P0ZrTt55");
  wf.scenario = {
    session: "browser",
    steps: [
      { succeed: { outputs: { drafted_message: "Thanks, we are on it.", confidence: 0.9 } } },
    ],
  };
  edit?.(wf);
  const file = join(work, name);
  writeFileSync(file, YAML.stringify(catalog));
  return file;
}
let emulator = await startEmulator({ port: 0, catalog: catalogFile("catalog.yaml") });
const port = new URL(emulator.url).port;
async function newKey() {
  const request = () =>
    fetch(`${emulator.url}/_emulator/keys`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ environment: "production", scopes: ["workflows:run", "runs:read"] }),
    });
  let r;
  try {
    r = await request();
  } catch (error) {
    // After a restart on the same port, fetch may reuse a pooled socket the stopped emulator
    // closed; that request never reached the new one, so sending it again is safe.
    if (error?.cause?.code !== "UND_ERR_SOCKET") throw error;
    r = await request();
  }
  return String((await r.json()).token);
}

// --- npm: the README, literally ------------------------------------------------------------
const app = join(work, "app");
mkdirSync(app);
const env = {};
let ran = "";
for (const step of steps) {
  let line = step.replace(
    "https://workflows.example.com/production/api/v1",
    `${emulator.url}/production/api/v1`,
  );
  const exported = /^export ([A-Z_][A-Z0-9_]*)=\.\.\.$/.exec(line);
  if (exported) {
    env[exported[1]] = await newKey();
    transcript.push(`$ ${step}\n`);
    continue;
  }
  if (/^npm (i|install)\b/.test(line)) line = `${line} ${npmFlags.join(" ")}`;
  if (line === "npx tsc") {
    mkdirSync(join(app, "src"), { recursive: true });
    writeFileSync(join(app, "src", "app.ts"), APP);
  }
  const r = await sh(app, line, env);
  if (line === "npm init -y") scopeNpmrc(app);
  if (line.startsWith("node dist/app.js")) ran = r.stdout;
  log(`ok: ${step}`);
}
check(/^drafted: Thanks, we are on it\.$/m.test(ran), `the app printed ${JSON.stringify(ran)}`);
check(existsSync(join(app, "tsconfig.json")), "wfr init wrote no tsconfig.json");
const appPkg = JSON.parse(readFileSync(join(app, "package.json"), "utf8"));
check(appPkg.imports?.["#wfr/*"] === "./wfr-generated/*.js", "wfr init wrote no #wfr/* alias");
check(!appPkg.dependencies?.zod && !appPkg.devDependencies?.zod, "the app must not need zod");
check(
  /^\^/.test(appPkg.dependencies?.["@wfr/runtime"] ?? ""),
  `npm saved @wfr/runtime as ${appPkg.dependencies?.["@wfr/runtime"]}, not a semver range from the registry`,
);
const installedTs = JSON.parse(
  readFileSync(join(app, "node_modules", "typescript", "package.json"), "utf8"),
).version;
check(installedTs === versions.typescript, `npm i -D typescript gave ${installedTs}, not latest`);
const definition = readFileSync(join(app, "schemas", "production", "openapi.json"), "utf8");
check(definition.split("\n").length > 100, "the pulled definition is not formatted");
log(
  `the app ran as CommonJS (${appPkg.type ?? "no type"}) with TypeScript ${installedTs} and the tsconfig wfr init wrote: ${ran.trim()}`,
);

if (measure) {
  const m = join(work, "measure");
  mkdirSync(m);
  await sh(m, "npm init -y");
  scopeNpmrc(m);
  await sh(m, `npm i @wfr/runtime @wfr/cli ${npmFlags.join(" ")}`);
  const count = (await sh(m, "npm ls --all --parseable | wc -l")).stdout.trim();
  const size = (await sh(m, "du -sh node_modules")).stdout.trim();
  log(
    `measure: generate and launch (@wfr/runtime + @wfr/cli): ${Number(count) - 1} packages, ${size}`,
  );
}

// --- the CI workflow wfr init wrote, step by step ------------------------------------------
const ci = readFileSync(join(app, ".github", "workflows", "wfr.yml"), "utf8");
check(!/\bnpx\b/.test(ci), "the CI workflow calls npx, which may install what it does not find");
const ciSteps = [...ci.matchAll(/^\s+(?:- )?run: (.+)$/gm)]
  .map((m) => (m[1].startsWith('"') ? JSON.parse(m[1]) : m[1]))
  .filter((l) => l !== "npm ci");
check(
  ciSteps.some((l) => l.includes("tsc --noEmit")),
  "the CI workflow has no type-check",
);
for (const line of ciSteps) await sh(app, line, env);
log(`ok: the CI workflow's steps pass here (${ciSteps.join("; ")})`);

// --- production dependencies only ----------------------------------------------------------
rmSync(join(app, "node_modules"), { recursive: true, force: true });
await sh(app, `npm ci --omit=dev ${npmFlags.join(" ")}`);
check(!existsSync(join(app, "node_modules", "@wfr", "cli")), "npm ci --omit=dev kept @wfr/cli");
check(
  (await sh(app, "node dist/app.js", env)).stdout.startsWith("drafted: "),
  "the app after --omit=dev",
);
log("ok: npm ci --omit=dev; node dist/app.js");

// --- zod 3 in the app ----------------------------------------------------------------------
await sh(app, `npm ci ${npmFlags.join(" ")}`);
await sh(app, `npm i ${ZOD3} ${npmFlags.join(" ")}`);
const appZod = JSON.parse(readFileSync(join(app, "node_modules", "zod", "package.json"), "utf8"));
check(appZod.version.startsWith("3."), `the app's zod is ${appZod.version}, not 3`);
await sh(app, "npx tsc", env);
check(
  (await sh(app, "node dist/app.js", env)).stdout.startsWith("drafted: "),
  "the app with zod 3",
);
log(`ok: with zod ${appZod.version} in the app: tsc and the run`);

// --- the same app as an ES module package --------------------------------------------------
setPackageType(app, "module");
await sh(app, "npx tsc", env);
check((await sh(app, "node dist/app.js", env)).stdout.startsWith("drafted: "), "the app as ESM");
log("ok: as an ES module package (type: module), same tsconfig: tsc and the run");

// --- bundlers and direct execution: each resolves the #wfr/* alias -------------------------
await sh(app, `npm i -D ${ESBUILD} ${TSX} ${VITE} ${npmFlags.join(" ")}`);
await sh(
  app,
  "npx --no-install esbuild src/app.ts --bundle --platform=node --format=esm --outfile=bundle/app.mjs --log-level=warning",
);
check(
  (await sh(app, "node bundle/app.mjs", env)).stdout.startsWith("drafted: "),
  "the esbuild bundle",
);
log("ok: bundled with esbuild (the #wfr/* alias resolved), the bundle runs");
check(
  (await sh(app, "npx --no-install tsx src/app.ts", env)).stdout.startsWith("drafted: "),
  "the app run by tsx",
);
log("ok: run directly with tsx (no build step)");
await sh(app, "npx --no-install vite build --ssr src/app.ts --outDir vite-dist --logLevel warn");
check(
  (await sh(app, "node vite-dist/app.js", env)).stdout.startsWith("drafted: "),
  "the Vite build",
);
log("ok: built with Vite (--ssr), the build runs");

// --- Deno, with no permission but the network to the service --------------------------------
const deno = await toolBin(`deno@${versions.deno}`, "deno");
await denoPass({
  deno,
  dir: app,
  app: APP,
  emulatorUrl: emulator.url,
  key: env.WFR_PRODUCTION_API_KEY,
});

// --- the oldest TypeScript wfr supports, as CommonJS ----------------------------------------
// As an ES module it is checked by the Yarn Plug'n'Play pass of the matrix, which builds with it
// because TypeScript 7 cannot read Plug'n'Play (that pass fails when this stops being so): a
// second check here cost 10 CPU-seconds.
await sh(app, `npm i -D typescript@${OLDEST_TYPESCRIPT} ${npmFlags.join(" ")}`);
setPackageType(app, "commonjs");
await sh(app, "npx tsc", env);
check(
  (await sh(app, "node dist/app.js", env)).stdout.startsWith("drafted: "),
  `the app as CommonJS built by TypeScript ${OLDEST_TYPESCRIPT}`,
);
log(`ok: TypeScript ${OLDEST_TYPESCRIPT} (the oldest supported), as CommonJS: tsc and the run`);
// Back to the TypeScript a team gets by default: the graph edit below is a type error for it.
await sh(app, `npm i -D typescript@${versions.typescript} ${npmFlags.join(" ")}`);

// --- a one-field graph edit in the service -------------------------------------------------
const before = filesUnder(join(app, "wfr-generated"));
const definitionBefore = readFileSync(join(app, "schemas", "production", "openapi.json"), "utf8");
await emulator.close();
emulator = await startEmulator({
  port: Number(port),
  catalog: catalogFile("catalog-edited.yaml", (wf) => {
    const props = wf.inputs.properties;
    wf.inputs.properties = Object.fromEntries(
      Object.entries(props).map(([k, v]) => [k === "ticket_url" ? "ticket_link" : k, v]),
    );
    wf.inputs.required = wf.inputs.required.map((r) => (r === "ticket_url" ? "ticket_link" : r));
    wf.example.inputs = { ticket_link: wf.example.inputs.ticket_url };
  }),
});
env.WFR_PRODUCTION_API_KEY = await newKey();
const drift = await sh(app, "npx --no wfr schemas pull --check", env, { expect: 4 });
check(/BREAKING/.test(drift.output), "pull --check did not report the breaking change");
await sh(app, "npx --no wfr schemas pull", env);
await sh(app, "npx --no wfr generate --check", env, { expect: 3 });
await sh(app, "npx --no wfr generate", env);
const after = filesUnder(join(app, "wfr-generated"));
const changed = [...new Set([...before.keys(), ...after.keys()])]
  .filter((p) => before.get(p) !== after.get(p))
  .sort();
const allowed = (p) => p.startsWith("production/draftCustomerReply.") || p === "wfr-manifest.json";
check(
  changed.length > 0 && changed.every(allowed),
  `a one-field edit changed ${changed.join(", ")}`,
);
const definitionAfter = readFileSync(join(app, "schemas", "production", "openapi.json"), "utf8");
const a = definitionBefore.split("\n");
const b = definitionAfter.split("\n");
const changedLines = b.filter((l, i) => a[i] !== l).length;
const broken = await sh(app, "npx tsc", env, { expect: 2 });
// The line of the README's app that names the input (the README's own, wherever it is now).
const usingLine = APP.split("\n").findIndex((line) => line.includes("ticket_url")) + 1;
check(
  usingLine > 0 && broken.output.includes(`src/app.ts(${usingLine},`),
  `tsc did not fail at the using line (${usingLine}):\n${broken.output}`,
);
check(/ticket_url/.test(broken.output), "tsc's error does not name the renamed input");
log(
  `ok: one-field edit: pull --check exit 4; generated files changed: ${changed.join(", ")} (of ${after.size}); definition lines changed: ${changedLines}; tsc: ${broken.output.split("\n")[0]}`,
);

// --- the package managers: two passes at a time (each mostly waits on its installs) ---------
// Against the edited service. The tools are found first: a synchronous call would stall the
// emulator in this process while another pass runs.
const [pnpm, yarn, bun] = await Promise.all([
  toolBin(`pnpm@${versions.pnpm}`, "pnpm"),
  toolBin(`@yarnpkg/cli-dist@${versions.yarn}`, "yarn"),
  toolBin(`bun@${versions.bun}`, "bun"),
]);
const managers = packageManagers({
  bins: { pnpm, yarn, bun },
  versions,
  registry,
  scopeRegistry: localRegistry.url,
  cache,
  // Bun's cache is by name and version: one a run, or a run before's @wfr packages are reused.
  work,
  caFile,
});
const penv = { WFR_PRODUCTION_API_KEY: env.WFR_PRODUCTION_API_KEY };
const queue = Object.entries(managers);
const failures = [];
await Promise.all(
  [0, 1].map(async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [name, manager] = next;
      await managerPass(name, manager, {
        work,
        app: APP,
        emulatorUrl: emulator.url,
        env: penv,
      }).catch((error) => failures.push(`${manager.label}: ${error.message}`));
    }
  }),
);

await emulator.close();
await localRegistry.close();
writeFileSync(join(work, "transcript.txt"), transcript.join("\n"));
if (failures.length > 0) fail(`${failures.length} pass(es) failed:\n${failures.join("\n\n")}`);
log(`all adoption checks hold; transcript: ${join(work, "transcript.txt")}`);
if (!keep) rmSync(work, { recursive: true, force: true });
