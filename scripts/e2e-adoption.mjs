#!/usr/bin/env node
// The adoption path, end to end, as a new user takes it outside this
// repository: every publishable package packed (`pnpm pack`), installed from
// the tarballs with plain npm into a fresh `npm init` project in the system's
// temporary folder, the commands of the README's adoption block run in order
// (parsed from README.md, so the README cannot drift), built with `tsc`
// (rootDir src, outDir dist, skipLibCheck false) and run against the
// emulator. Then: the CI workflow `wfr init` wrote, run step by step; the app
// again after `npm ci --omit=dev`; again with zod 3 in the app; as an ES module
// package; bundled with esbuild; run directly with tsx; built with Vite; a one-field graph edit in the service (pull --check exits 4, only
// that workflow's generated files change, tsc fails at the using line); and a
// lighter pass with pnpm's strict layout, and one with yarn (classic).
//
// Substitutions, and only these: `@wfr/<name>` in an install command becomes
// the packed tarball (the registry does not have them), `typescript` and
// `@types/node` are pinned to the workspace's versions, the example base URL
// becomes the emulator's and `export VAR=...` sets a key the emulator made.
// `node scripts/e2e-adoption.mjs [--keep] [--measure]`; exit 0 when every check holds.
import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const PNPM = ["--yes", "pnpm@10.34.8"];
const TYPESCRIPT = "typescript@5.9.3";
const TYPES_NODE = "@types/node@20.19.25";
const ZOD3 = "zod@3.25.76";
const ESBUILD = "esbuild@0.28.2";
const TSX = "tsx@4.23.15";
const VITE = "vite@8.3.8";
const keep = process.argv.includes("--keep");
const measure = process.argv.includes("--measure");
const started = Date.now();
const work = mkdtempSync(join(tmpdir(), "wfr-e2e-"));
// One npm cache (and pnpm store) for every run on this machine: installs are offline after the first.
const cache = join(tmpdir(), "wfr-e2e-cache");
const npmFlags = [
  "--cache",
  join(cache, "npm"),
  "--prefer-offline",
  "--no-audit",
  "--no-fund",
  "--loglevel=error",
];
const transcript = [];

function log(line) {
  const stamp = `${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s`;
  process.stdout.write(`[e2e ${stamp}] ${line}\n`);
}

function fail(message) {
  throw new Error(`e2e-adoption: ${message}`);
}

function check(condition, message) {
  if (!condition) fail(message);
}

/**
 * Runs a shell command line in `cwd`; resolves to its exit code and output, recorded in the
 * transcript. Asynchronous: the emulator answers from this same process meanwhile.
 */
function sh(cwd, line, env = {}, { expect = 0 } = {}) {
  return new Promise((done, reject) => {
    const child = spawn("sh", ["-c", line], {
      cwd,
      env: { ...process.env, ...env, NO_COLOR: "1", npm_config_update_notifier: "false" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => {
      const output = `${stdout}${stderr}`;
      transcript.push(`$ ${line}\n${output}`);
      if (expect !== null && code !== expect)
        reject(
          new Error(
            `e2e-adoption: \`${line}\` in ${cwd} exited ${code} (expected ${expect}):\n${output}`,
          ),
        );
      else done({ code, output, stdout });
    });
  });
}

/**
 * The path of a package manager's executable, fetched once through npx. Each `npx --yes <pm>`
 * call re-resolves the package (1 to 3 CPU-seconds on 2 cores); the pnpm and yarn passes call
 * their package manager a dozen times.
 */
function packageManagerBin(spec, bin) {
  return execFileSync("npx", ["--yes", "-p", spec, "-c", `command -v ${bin}`], {
    encoding: "utf8",
  }).trim();
}

function filesUnder(dir) {
  const out = new Map();
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.set(relative(dir, full).split(sep).join("/"), readFileSync(full, "utf8"));
    }
  };
  walk(dir);
  return out;
}

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

// --- pack every publishable package ---------------------------------------------------------
const packs = join(work, "packs");
mkdirSync(packs);
execFileSync(
  "npx",
  [...PNPM, "-r", "--filter", "./packages/*", "pack", "--pack-destination", packs],
  {
    cwd: ROOT,
    stdio: "pipe",
  },
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
log(`packed ${tarballs.size} packages: ${[...tarballs.keys()].join(", ")}`);

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

/** What an install command of the README becomes here (see the header). */
function installLine(line) {
  return line
    .split(/\s+/)
    .map((word) => {
      if (tarballs.has(word)) return tarballs.get(word);
      if (word.startsWith("@wfr/")) fail(`the README installs ${word}, which is not published`);
      if (word === "typescript") return TYPESCRIPT;
      if (word === "@types/node") return TYPES_NODE;
      return word;
    })
    .join(" ");
}

const TSCONFIG = {
  compilerOptions: {
    rootDir: "src",
    outDir: "dist",
    module: "nodenext",
    target: "es2022",
    strict: true,
    skipLibCheck: false,
    incremental: true,
    tsBuildInfoFile: ".tsbuildinfo",
    types: ["node"],
  },
  include: ["src"],
};

/** The app's package.json gets overrides so that the packages' own @wfr dependencies resolve to the tarballs too. */
function pinWfrPackages(app, field) {
  const pkg = JSON.parse(readFileSync(join(app, "package.json"), "utf8"));
  // Relative, as npm saves a tarball it installs directly (an override must equal that spec).
  const pins = Object.fromEntries(
    [...tarballs].map(([name, file]) => [name, `file:${relative(app, file).split(sep).join("/")}`]),
  );
  if (field === "pnpm") pkg.pnpm = { ...pkg.pnpm, overrides: pins };
  else if (field === "yarn") pkg.resolutions = pins;
  else pkg.overrides = pins;
  writeFileSync(join(app, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
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
  if (/^npm (i|install)\b/.test(line)) line = `${installLine(line)} ${npmFlags.join(" ")}`;
  if (line === "npx tsc") {
    writeFileSync(join(app, "tsconfig.json"), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
    mkdirSync(join(app, "src"), { recursive: true });
    writeFileSync(join(app, "src", "app.ts"), APP);
  }
  const r = await sh(app, line, env);
  if (line === "npm init -y") pinWfrPackages(app, "npm");
  if (line.startsWith("node dist/app.js")) ran = r.stdout;
  log(`ok: ${step}`);
}
check(/^drafted: Thanks, we are on it\.$/m.test(ran), `the app printed ${JSON.stringify(ran)}`);
const appPkg = JSON.parse(readFileSync(join(app, "package.json"), "utf8"));
check(appPkg.imports?.["#wfr/*"] === "./wfr-generated/*.js", "wfr init wrote no #wfr/* alias");
check(!appPkg.dependencies?.zod && !appPkg.devDependencies?.zod, "the app must not need zod");
const definition = readFileSync(join(app, "schemas", "production", "openapi.json"), "utf8");
check(definition.split("\n").length > 100, "the pulled definition is not formatted");
log(`the app ran as CommonJS (${appPkg.type ?? "no type"}): ${ran.trim()}`);

if (measure) {
  const m = join(work, "measure");
  mkdirSync(m);
  await sh(m, "npm init -y");
  pinWfrPackages(m, "npm");
  await sh(m, installLine(`npm i @wfr/runtime @wfr/cli ${npmFlags.join(" ")}`));
  const count = (await sh(m, "npm ls --all --parseable | wc -l")).stdout.trim();
  const size = (await sh(m, "du -sh node_modules")).stdout.trim();
  log(
    `measure: generate and launch (@wfr/runtime + @wfr/cli): ${Number(count) - 1} packages, ${size}`,
  );
}

// --- the CI workflow wfr init wrote, step by step ------------------------------------------
const ci = readFileSync(join(app, ".github", "workflows", "wfr.yml"), "utf8");
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
log(`ok: with zod ${appZod.version} in the app: tsc (skipLibCheck false) and the run`);

// --- the same app as an ES module package --------------------------------------------------
const asEsm = { ...JSON.parse(readFileSync(join(app, "package.json"), "utf8")), type: "module" };
writeFileSync(join(app, "package.json"), `${JSON.stringify(asEsm, null, 2)}\n`);
await sh(app, "npx tsc", env);
check((await sh(app, "node dist/app.js", env)).stdout.startsWith("drafted: "), "the app as ESM");
log("ok: as an ES module package (type: module): tsc and the run");

// --- a bundler: esbuild resolves the #wfr/* alias and bundles the generated code ----------
await sh(app, `npm i -D ${ESBUILD} ${npmFlags.join(" ")}`);
await sh(
  app,
  "npx --no-install esbuild src/app.ts --bundle --platform=node --format=esm --outfile=bundle/app.mjs --log-level=warning",
);
check(
  (await sh(app, "node bundle/app.mjs", env)).stdout.startsWith("drafted: "),
  "the esbuild bundle",
);
log("ok: bundled with esbuild (the #wfr/* alias resolved), the bundle runs");

// --- direct execution: tsx runs src/app.ts, resolving the #wfr/* alias, with no build step --
await sh(app, `npm i -D ${TSX} ${npmFlags.join(" ")}`);
check(
  (await sh(app, "npx --no-install tsx src/app.ts", env)).stdout.startsWith("drafted: "),
  "the app run by tsx",
);
log("ok: run directly with tsx (no build step)");

// --- a Vite (server-side) build: the alias resolved and the generated code bundled --------
await sh(app, `npm i -D ${VITE} ${npmFlags.join(" ")}`);
await sh(app, "npx --no-install vite build --ssr src/app.ts --outDir vite-dist --logLevel warn");
check(
  (await sh(app, "node vite-dist/app.js", env)).stdout.startsWith("drafted: "),
  "the Vite build",
);
log("ok: built with Vite (--ssr), the build runs");

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
const drift = await sh(app, "npx wfr schemas pull --check", env, { expect: 4 });
check(/BREAKING/.test(drift.output), "pull --check did not report the breaking change");
await sh(app, "npx wfr schemas pull", env);
await sh(app, "npx wfr generate --check", env, { expect: 3 });
await sh(app, "npx wfr generate", env);
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
check(
  /src\/app\.ts\(7,/.test(broken.output),
  `tsc did not fail at the using line:\n${broken.output}`,
);
check(/ticket_url/.test(broken.output), "tsc's error does not name the renamed input");
log(
  `ok: one-field edit: pull --check exit 4; generated files changed: ${changed.join(", ")} (of ${after.size}); definition lines changed: ${changedLines}; tsc: ${broken.output.split("\n")[0]}`,
);

// --- pnpm and yarn: lighter passes, side by side (each mostly waits on its installs) ---------
// Both against the edited service; the package managers are found first, because
// execFileSync would stall the emulator in this process while the other pass runs.
const pnpm = packageManagerBin("pnpm@10.34.8", "pnpm");
const yarn = packageManagerBin("yarn@1.22.22", "yarn");
const yarnVersion = execFileSync(yarn, ["--version"], { encoding: "utf8" }).trim();
// The registry npm is configured with (yarn's own default is another host).
const registry = execFileSync("npm", ["config", "get", "registry"], { encoding: "utf8" }).trim();
const penv = { WFR_PRODUCTION_API_KEY: env.WFR_PRODUCTION_API_KEY };

/**
 * One lighter pass with another package manager: install the tarballs, init, pull, generate
 * (the header names that manager's command), the README's app against the edited service,
 * tsc and a run. `add` installs packages, `run` runs a bin of the app's.
 */
async function lighterPass({ name, add, run, afterInstall = () => {}, label }) {
  const dir = join(work, `${name}-app`);
  mkdirSync(dir);
  await sh(dir, "npm init -y");
  pinWfrPackages(dir, name);
  await sh(dir, add(tarballs.get("@wfr/runtime")));
  await sh(dir, add(`-D ${tarballs.get("@wfr/cli")} ${TYPESCRIPT} ${TYPES_NODE}`));
  afterInstall(dir);
  writeFileSync(join(dir, "tsconfig.json"), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "app.ts"), APP);
  await sh(
    dir,
    run(`wfr init --yes --env production --base-url ${emulator.url}/production/api/v1`),
  );
  await sh(dir, run("wfr schemas pull"), penv);
  const generated = await sh(dir, run("wfr generate"), penv);
  check(
    readFileSync(join(dir, "wfr-generated", "production", "index.js"), "utf8").includes(
      `run \`${name} generate\``,
    ),
    `the generated header does not name \`${name} generate\` in a ${name} project`,
  );
  // The README's app uses ticket_url; the service now calls it ticket_link.
  writeFileSync(join(dir, "src", "app.ts"), APP.replaceAll("ticket_url", "ticket_link"));
  await sh(dir, run("tsc"), penv);
  check(
    (await sh(dir, "node dist/app.js", penv)).stdout.startsWith("drafted: "),
    `the ${name} app`,
  );
  log(
    `ok: ${label}: init, pull, generate, tsc, run (${generated.output.split("\n").find((l) => l.includes("wrote")) ?? ""})`,
  );
}

const pnpmFlags = `--store-dir ${join(cache, "pnpm-store")} --prefer-offline --reporter=silent`;
const yarnFlags = `--registry ${registry} --cache-folder ${join(cache, "yarn-cache")} --prefer-offline --silent --non-interactive`;

await Promise.all([
  lighterPass({
    name: "pnpm",
    label: "pnpm (strict layout, no zod of the app's own)",
    add: (packages) => `${pnpm} add ${packages} ${pnpmFlags}`,
    run: (command) => `${pnpm} exec ${command}`,
    afterInstall: (dir) =>
      check(
        !existsSync(join(dir, "node_modules", "zod")),
        "pnpm's strict layout gave the app a zod",
      ),
  }),
  lighterPass({
    name: "yarn",
    label: `yarn ${yarnVersion}`,
    add: (packages) => `${yarn} add ${packages} ${yarnFlags}`,
    run: (command) => `${yarn} --silent ${command}`,
  }),
]);

await emulator.close();
writeFileSync(join(work, "transcript.txt"), transcript.join("\n"));
log(`all adoption checks hold; transcript: ${join(work, "transcript.txt")}`);
if (!keep) rmSync(work, { recursive: true, force: true });
