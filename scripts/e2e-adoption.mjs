#!/usr/bin/env node
// The adoption path, end to end, as a new user takes it outside this repository: every
// publishable package packed (`pnpm pack`) and published to a local registry (Verdaccio on
// loopback), then installed BY NAME from it into a fresh `npm init` project in the system's
// temporary folder, with the toolchain the registry serves today (TypeScript `latest`, read when
// the test runs). The commands of the README's adoption block run in order (parsed from
// README.md, so the README cannot drift), built with the tsconfig `wfr init` wrote and run
// against the emulator. Then, side by side: the app again after `npm ci --omit=dev` (in a copy);
// the oldest TypeScript wfr supports, as CommonJS (in a copy; as ESM in the Yarn Plug'n'Play
// pass); and in the app itself the CI workflow `wfr init` wrote, run step by step, zod 3 in the
// app, as an ES module package, bundled with esbuild, run directly with tsx, built with Vite,
// Deno with only `--allow-net`, and last a one-field graph edit in the service (pull --check
// exits 4, only that workflow's generated files change, tsc fails at the using line). From the
// README's `npm init -y` on, beside all of it, against a service of their own: the matrix of
// package managers (pnpm, Yarn with Plug'n'Play and with node_modules, Bun), each as CommonJS
// and as ESM. At most three commands run at once (shell.mjs).
//
// Substitutions, and only these: the app's `.npmrc` names the local registry for the @wfr
// scope (what a team with a private scope writes), the example base URL becomes the emulator's
// and `export VAR=...` sets a key the emulator made.
// `node scripts/e2e-adoption.mjs [--keep] [--measure] [--cpu]`; exit 0 when every check holds.
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startLocalRegistry } from "./e2e-adoption/local-registry.mjs";
import { denoPass, managerPass, packageManagers, setPackageType } from "./e2e-adoption/matrix.mjs";
import { emulators, newKey, renameTicketUrl } from "./e2e-adoption/service.mjs";
import { check, fail, filesUnder, log, sh, transcript } from "./e2e-adoption/shell.mjs";
import {
  latestToolchains,
  npmRegistry,
  OLDEST_TYPESCRIPT,
  toolBin,
} from "./e2e-adoption/toolchains.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// The pnpm this repository is built with packs it (`workspace:` ranges become versions).
const PNPM_FOR_PACK = "pnpm@10.34.8";
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
const npmConfig = await npmRegistry();
const { registry, caFile } = npmConfig;

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
// Verdaccio starts while the packages are packed; the tools are installed once per version in
// the shared cache (nothing runs when they are there).
const versionsAsked = latestToolchains(npmConfig);
const registryStarted = startLocalRegistry(join(work, "registry"));
// Yarn 2 and later are published as @yarnpkg/cli-dist (the `yarn` package is Yarn 1).
const toolsReady = versionsAsked.then(async (v) => {
  const [pnpm, yarn, bun, deno] = await Promise.all([
    toolBin(cache, `pnpm@${v.pnpm}`, "pnpm"),
    toolBin(cache, `@yarnpkg/cli-dist@${v.yarn}`, "yarn"),
    toolBin(cache, `bun@${v.bun}`, "bun"),
    toolBin(cache, `deno@${v.deno}`, "deno"),
  ]);
  return { pnpm, yarn, bun, deno };
});
// Each is awaited below; marked handled now so that a failure is reported there, in order.
for (const started of [versionsAsked, registryStarted, toolsReady]) started.catch(() => {});
const publishable = [];
for (const dir of readdirSync(join(ROOT, "packages"))) {
  const pkgFile = join(ROOT, "packages", dir, "package.json");
  if (!existsSync(pkgFile)) continue;
  const pkg = JSON.parse(readFileSync(pkgFile, "utf8"));
  if (!pkg.private) publishable.push({ dir, name: pkg.name, version: pkg.version });
}
check(
  !publishable.some((p) => p.name === "@wfr/generated"),
  "@wfr/generated must not be published",
);
const packs = join(work, "packs");
mkdirSync(packs);
const pnpmForPack = await toolBin(cache, PNPM_FOR_PACK, "pnpm");
const filters = publishable.map((p) => `--filter ./packages/${p.dir}`).join(" ");
await sh(ROOT, `${pnpmForPack} -r ${filters} pack --pack-destination ${packs}`);
const tarballs = new Map();
for (const { name, version } of publishable) {
  const file = join(packs, `${name.replace("@", "").replace("/", "-")}-${version}.tgz`);
  check(existsSync(file), `pnpm pack did not write ${file}`);
  tarballs.set(name, file);
}
const localRegistry = await registryStarted;
await Promise.all([...tarballs.values()].map((file) => localRegistry.publish(file)));
const versions = await versionsAsked;
log(
  `published ${tarballs.size} packages to ${localRegistry.url}: ${[...tarballs.keys()].join(", ")}; today's toolchains: TypeScript ${versions.typescript}, pnpm ${versions.pnpm}, Yarn ${versions.yarn}, Bun ${versions.bun}, Deno ${versions.deno}`,
);
/** The app's `.npmrc`: the @wfr scope from the team's registry. */
const scopeNpmrc = (dir) => writeFileSync(join(dir, ".npmrc"), localRegistry.scopeNpmrc);

// --- the services: the emulator, with the sample workflow the app launches succeeding --------
// The npm app's, and the package managers' own, already after the one-field graph edit: the npm
// app's edit restarts its service, and the package managers' passes start at once beside it.
const startService = await emulators(ROOT);
let emulator = await startService(join(work, "catalog.yaml"));
const port = Number(new URL(emulator.url).port);
const editedService = await startService(join(work, "catalog-managers.yaml"), renameTicketUrl);

// The `package.json` of the README's `npm init -y`, for the package managers' passes.
let initWritten;
let initFailed;
const initPackageJson = new Promise((done, reject) => {
  initWritten = done;
  initFailed = reject;
});
initPackageJson.catch(() => {});

/**
 * A pass's folder, once it passed: removed at once (unless --keep), while the other passes still
 * run, not all at the end (about 20,000 files; 5 to 25 s of removal after the last pass).
 */
const discard = (dir) => (keep ? undefined : rm(dir, { recursive: true, force: true }));

/** `node <file>` prints the README app's success. */
async function runs(dir, file, what, env) {
  const run = await sh(dir, `node ${file}`, env);
  check(run.stdout.startsWith("drafted: "), `${what} printed ${JSON.stringify(run.output)}`);
}

// --- npm: the README, literally ------------------------------------------------------------
const app = join(work, "app");
mkdirSync(app);
const env = {};
async function readmeBlock() {
  let ran = "";
  for (const step of steps) {
    let line = step.replace(
      "https://workflows.example.com/production/api/v1",
      `${emulator.url}/production/api/v1`,
    );
    const exported = /^export ([A-Z_][A-Z0-9_]*)=\.\.\.$/.exec(line);
    if (exported) {
      env[exported[1]] = await newKey(emulator);
      transcript.push(`$ ${step}\n`);
      continue;
    }
    if (/^npm (i|install)\b/.test(line)) line = `${line} ${npmFlags.join(" ")}`;
    if (line === "npx tsc") {
      mkdirSync(join(app, "src"), { recursive: true });
      writeFileSync(join(app, "src", "app.ts"), APP);
    }
    const r = await sh(app, line, env);
    if (line === "npm init -y") {
      initWritten(JSON.parse(readFileSync(join(app, "package.json"), "utf8")));
      scopeNpmrc(app);
    }
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
}

async function measureSize() {
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

// --- the legs after the README's block, side by side, each in its own copy of the app --------
// Each copy is the app as the README's block left it (CommonJS, TypeScript latest).

/** Production dependencies only: a copy without node_modules, `npm ci --omit=dev`, the run. */
async function productionOnly(dir) {
  await sh(dir, `npm ci --omit=dev ${npmFlags.join(" ")}`);
  check(!existsSync(join(dir, "node_modules", "@wfr", "cli")), "npm ci --omit=dev kept @wfr/cli");
  await runs(dir, "dist/app.js", "the app after --omit=dev", env);
  log("ok: npm ci --omit=dev; node dist/app.js");
  await discard(dir);
}

/**
 * The oldest TypeScript wfr supports, as CommonJS, in a copy with its node_modules (the app
 * itself keeps TypeScript latest: no second install to go back). As an ES module it is checked by
 * the Yarn Plug'n'Play pass of the matrix, which builds with it because TypeScript 7 cannot read
 * Plug'n'Play (that pass fails when this stops being so): a second check here cost 10 CPU-s.
 */
async function oldestTypescript(dir) {
  await sh(dir, `npm i -D typescript@${OLDEST_TYPESCRIPT} ${npmFlags.join(" ")}`);
  await sh(dir, "node_modules/.bin/tsc", env);
  await runs(
    dir,
    "dist/app.js",
    `the app as CommonJS built by TypeScript ${OLDEST_TYPESCRIPT}`,
    env,
  );
  log(`ok: TypeScript ${OLDEST_TYPESCRIPT} (the oldest supported), as CommonJS: tsc and the run`);
  await discard(dir);
}

/**
 * In the app itself: the CI workflow `wfr init` wrote, step by step; zod 3 in the app; the app as
 * an ES module package; esbuild, tsx and Vite; Deno. The tools the app installed run from
 * node_modules/.bin (an npx start each saved); the README's own `npx` lines run above, literally.
 */
async function inTheApp() {
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

  // zod 3 beside the bundlers, in one npm process instead of two: where npm saves a package
  // (dependencies or devDependencies) does not change how it resolves.
  await sh(app, `npm i ${ZOD3} ${ESBUILD} ${TSX} ${VITE} ${npmFlags.join(" ")}`);
  const appZod = JSON.parse(readFileSync(join(app, "node_modules", "zod", "package.json"), "utf8"));
  check(appZod.version.startsWith("3."), `the app's zod is ${appZod.version}, not 3`);
  // The README's CommonJS build runs with zod 3 beside it; it is type-checked with zod 3 as an
  // ES module just below, not rebuilt as CommonJS first: the generated code is ES modules in
  // either (wfr-generated/package.json), importing @wfr/runtime and @wfr/runtime/zod, whose
  // `exports` name one `types` for import and require alike.
  const readJson = (...path) => JSON.parse(readFileSync(join(app, ...path), "utf8"));
  const exportsMap = readJson("node_modules", "@wfr", "runtime", "package.json").exports;
  check(
    readJson("wfr-generated", "package.json").type === "module" &&
      Object.values(exportsMap).every((e) => typeof e === "string" || !("require" in e)),
    "CommonJS and ES module apps may now see different generated code or @wfr/runtime types: type-check the app with zod 3 as CommonJS too",
  );
  await runs(app, "dist/app.js", "the app with zod 3", env);
  setPackageType(app, "module");
  await sh(app, "node_modules/.bin/tsc", env);
  await runs(app, "dist/app.js", "the app as ESM", env);
  log(
    `ok: with zod ${appZod.version} in the app: the CommonJS build runs; as an ES module package (type: module), same tsconfig: tsc and the run`,
  );

  // Bundlers and direct execution: each resolves the #wfr/* alias.
  await sh(
    app,
    "node_modules/.bin/esbuild src/app.ts --bundle --platform=node --format=esm --outfile=bundle/app.mjs --log-level=warning",
  );
  await runs(app, "bundle/app.mjs", "the esbuild bundle", env);
  log("ok: bundled with esbuild (the #wfr/* alias resolved), the bundle runs");
  check(
    (await sh(app, "node_modules/.bin/tsx src/app.ts", env)).stdout.startsWith("drafted: "),
    "the app run by tsx",
  );
  log("ok: run directly with tsx (no build step)");
  await sh(app, "node_modules/.bin/vite build --ssr src/app.ts --outDir vite-dist --logLevel warn");
  await runs(app, "vite-dist/app.js", "the Vite build", env);
  log("ok: built with Vite (--ssr), the build runs");

  // Deno, with no permission but the network to the service.
  await denoPass({
    deno: (await toolsReady).deno,
    dir: app,
    app: APP,
    emulatorUrl: emulator.url,
    key: env.WFR_PRODUCTION_API_KEY,
  });
}

/**
 * A one-field graph edit in the service, in the app as the README built it (CommonJS, TypeScript
 * latest): pull --check exits 4, only that workflow's generated files change, tsc fails at the
 * using line. Last of the npm app's legs: it restarts their service.
 */
async function graphEdit() {
  setPackageType(app, "commonjs");
  const wfr = "node_modules/.bin/wfr";
  const before = filesUnder(join(app, "wfr-generated"));
  const definitionBefore = readFileSync(join(app, "schemas", "production", "openapi.json"), "utf8");
  await emulator.close();
  emulator = await startService(join(work, "catalog-edited.yaml"), renameTicketUrl, port);
  env.WFR_PRODUCTION_API_KEY = await newKey(emulator);
  const drift = await sh(app, `${wfr} schemas pull --check`, env, { expect: 4 });
  check(/BREAKING/.test(drift.output), "pull --check did not report the breaking change");
  await sh(app, `${wfr} schemas pull`, env);
  await sh(app, `${wfr} generate --check`, env, { expect: 3 });
  await sh(app, `${wfr} generate`, env);
  const after = filesUnder(join(app, "wfr-generated"));
  const changed = [...new Set([...before.keys(), ...after.keys()])]
    .filter((p) => before.get(p) !== after.get(p))
    .sort();
  const allowed = (p) =>
    p.startsWith("production/draftCustomerReply.") || p === "wfr-manifest.json";
  check(
    changed.length > 0 && changed.every(allowed),
    `a one-field edit changed ${changed.join(", ")}`,
  );
  const definitionAfter = readFileSync(join(app, "schemas", "production", "openapi.json"), "utf8");
  const a = definitionBefore.split("\n");
  const b = definitionAfter.split("\n");
  const changedLines = b.filter((l, i) => a[i] !== l).length;
  const broken = await sh(app, "node_modules/.bin/tsc", env, { expect: 2 });
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
}

const npmApp = (async () => {
  try {
    await readmeBlock();
  } catch (error) {
    initFailed(error);
    throw error;
  }
  if (measure) await measureSize();
  // The copies first: the app's own leg changes the app at once.
  const productionDir = join(work, "app-production");
  cpSync(app, productionDir, {
    recursive: true,
    filter: (from) => from !== join(app, "node_modules"),
  });
  const oldestDir = join(work, "app-oldest-typescript");
  await sh(work, `cp -a ${app} ${oldestDir}`);
  // All three settle before the edit restarts their service; each failure is reported.
  const legs = await Promise.allSettled([
    inTheApp(),
    productionOnly(productionDir),
    oldestTypescript(oldestDir),
  ]);
  const failed = legs.filter((l) => l.status === "rejected").map((l) => l.reason.message);
  if (failed.length > 0) fail(failed.join("\n\n"));
  await graphEdit();
})();

// --- the package managers: three passes at a time, behind the npm app's steps ---------------
// From the README's `npm init -y` on, against the edited service, beside the npm app's legs; the
// slots of shell.mjs keep three commands running in all.
const managerPasses = (async () => {
  const packageJson = await initPackageJson.catch(() => undefined);
  if (packageJson === undefined) return ["not run: the README's block failed before npm init -y"];
  const managers = packageManagers({
    bins: await toolsReady,
    versions,
    registry,
    scopeRegistry: localRegistry.url,
    cache,
    // Bun's cache is by name and version: one a run, or a run before's @wfr packages are reused.
    work,
    caFile,
  });
  const penv = { WFR_PRODUCTION_API_KEY: await newKey(editedService) };
  // The longest pass (Yarn Plug'n'Play builds with TypeScript 5.9) first.
  const queue = ["yarn-pnp", "pnpm", "yarn-node-modules", "bun"].map((n) => [n, managers[n]]);
  const failures = [];
  await Promise.all(
    [0, 1, 2].map(async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [name, manager] = next;
        await managerPass(name, manager, {
          work,
          app: APP,
          emulatorUrl: editedService.url,
          env: penv,
          packageJson,
        }).then(
          (dir) => discard(dir),
          (error) => failures.push(`${manager.label}: ${error.message}`),
        );
      }
    }),
  );
  return failures;
})();

const [npmOutcome, managerOutcome] = await Promise.allSettled([npmApp, managerPasses]);
// The npm app's service may be down already, where the edit failed restarting it.
await emulator.close().catch(() => {});
await editedService.close();
await localRegistry.close();
writeFileSync(join(work, "transcript.txt"), transcript.join("\n"));
const failures = [
  ...(npmOutcome.status === "rejected" ? [`the npm app: ${npmOutcome.reason.message}`] : []),
  ...(managerOutcome.status === "rejected"
    ? [`the package managers: ${managerOutcome.reason.message}`]
    : managerOutcome.value),
];
if (failures.length > 0) fail(`${failures.length} pass(es) failed:\n${failures.join("\n\n")}`);
log(`all adoption checks hold; transcript: ${join(work, "transcript.txt")}`);
if (!keep) rmSync(work, { recursive: true, force: true });
