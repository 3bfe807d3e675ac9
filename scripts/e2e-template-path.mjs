#!/usr/bin/env node
// This repository as a team's own integration repository: in a copy of it (the files git knows),
// the team adds its own environment named `production` from another catalog beside the samples
// (`sample`, `sample-staging`) with `wfr schemas pull`, generates, and writes an app against
// `@wfr/generated/production`. Then `pnpm test`'s checks still hold in the copy: the drift
// check, the repository's whole type-check (every package's sources and tests), Biome, the
// docs' anchors, the build references and the versions, the team's app (type-check and a run
// against the emulator), and the suite of every workspace package that can import
// `@wfr/generated`.
//
// Which suites: under pnpm's strict layout only a package that declares `@wfr/generated` as a
// dependency can resolve it, so only those suites can see the team's environment. They run
// here, in the copy, and `pnpm test`'s Turbo run leaves them out (`--filter=!<name>`): each
// runs once, beside a generated package that is the repository's plus the team's `production`.
// The two lists are checked against each other before anything else, so a package that starts
// depending on `@wfr/generated` cannot be left out of both runs, nor run in neither.
//
// Kept cheap: the copy reuses this checkout's installed and built packages (node_modules and
// dist are linked; `@wfr/generated` alone points into the copy). The built output of the
// packages whose suites run here is copied, not linked, so that what it imports resolves in
// the copy.
// `node scripts/e2e-template-path.mjs [--keep]`; needs `pnpm build` first. Exit 0 when all hold.
import { execFile, execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const keep = process.argv.includes("--keep");
const started = Date.now();
const log = (line) => process.stderr.write(`template-path: ${line}\n`);

/** A check that does not hold: reported once, after the emulator is stopped and the copy removed. */
function fail(message) {
  throw new Error(message);
}

/** Runs a child to its end without blocking this process, whose emulator the child may call. */
function run(cwd, file, args, env = {}) {
  return new Promise((resolvePromise, reject) => {
    execFile(
      file,
      args,
      { cwd, env: { ...process.env, ...env }, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${file} ${args.join(" ")} in ${cwd}:\n${stdout}${stderr}`));
        else resolvePromise(stdout);
      },
    );
  });
}

const node = (cwd, args, env) => run(cwd, process.execPath, args, env);
/** A package.json script, as `pnpm run` starts it: a shell with the package's and the root's bins first. */
const packageScript = (cwd, repo, command) =>
  run(cwd, "/bin/sh", ["-c", command], {
    PATH: [join(cwd, "node_modules", ".bin"), join(repo, "node_modules", ".bin")]
      .concat(process.env.PATH ?? "")
      .join(":"),
  });
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const CODEGEN = join(ROOT, "packages", "codegen", "dist", "cli.js");
const WFR = join(ROOT, "packages", "cli", "dist", "bin.js");
for (const built of [CODEGEN, WFR, join(ROOT, "packages", "emulator", "dist", "index.js")])
  if (!existsSync(built)) {
    process.stderr.write(`template-path: ${built} is missing: run \`pnpm build\` first\n`);
    process.exit(1);
  }

// --- which suites run in the copy -----------------------------------------------------------------
const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));
/** The `packages:` entries of pnpm-workspace.yaml (`dir/*` or `dir`), as directories. */
function workspaceDirs() {
  const lines = readFileSync(join(ROOT, "pnpm-workspace.yaml"), "utf8").split("\n");
  const start = lines.findIndex((line) => /^packages:\s*$/.test(line));
  const dirs = [];
  for (const line of lines.slice(start + 1)) {
    const entry = /^\s+-\s+["']?([^"'\s]+)["']?\s*$/.exec(line);
    if (!entry) break;
    const pattern = entry[1];
    if (pattern.endsWith("/*")) {
      const group = pattern.slice(0, -2);
      dirs.push(...readdirSync(join(ROOT, group)).map((name) => `${group}/${name}`));
    } else dirs.push(pattern);
  }
  return dirs;
}
/** Every workspace package: its directory (relative to the root) and its manifest. */
const workspacePackages = workspaceDirs()
  .filter((dir) => existsSync(join(ROOT, dir, "package.json")))
  .map((dir) => ({ dir, manifest: readJson(join(ROOT, dir, "package.json")) }));
const GENERATED = "@wfr/generated";
const DEPENDENCY_FIELDS = [
  "dependencies",
  "devDependencies",
  "peerDependencies",
  "optionalDependencies",
];
const seesGenerated = workspacePackages.filter(
  ({ manifest }) =>
    manifest.name === GENERATED ||
    DEPENDENCY_FIELDS.some((field) => GENERATED in (manifest[field] ?? {})),
);
if (workspacePackages.length === 0 || seesGenerated.length === 0) {
  process.stderr.write(
    "template-path: FAILED: no workspace packages found in pnpm-workspace.yaml\n",
  );
  process.exit(1);
}
const rootTest = readJson(join(ROOT, "package.json")).scripts.test;
const leftToCopy = new Set([...rootTest.matchAll(/--filter=!(\S+)/g)].map((m) => m[1]));
{
  const problems = [];
  for (const { dir, manifest } of seesGenerated)
    if (!leftToCopy.has(manifest.name))
      problems.push(
        `${dir} (${manifest.name}) can import ${GENERATED}, so its suite runs here; add --filter=!${manifest.name} to the root package.json's test script, or it runs twice`,
      );
  for (const name of leftToCopy)
    if (!seesGenerated.some(({ manifest }) => manifest.name === name))
      problems.push(
        `the root package.json's test script leaves ${name} to this script (--filter=!${name}), but ${name} does not declare ${GENERATED}: its suite would run nowhere`,
      );
  if (problems.length > 0) {
    process.stderr.write(`template-path: FAILED:\n  ${problems.join("\n  ")}\n`);
    process.exit(1);
  }
}
const copySuites = seesGenerated.filter(({ manifest }) => manifest.scripts?.test);

// --- the copy ------------------------------------------------------------------------------------
const work = mkdtempSync(join(tmpdir(), "wfr-template-"));
let emulator;
try {
  const repo = join(work, "repo");
  const files = execFileSync(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    {
      cwd: ROOT,
      encoding: "utf8",
    },
  )
    .split("\0")
    .filter((file) => file !== "" && existsSync(join(ROOT, file)));
  for (const file of files) cpSync(join(ROOT, file), join(repo, file), { recursive: true });

  /** node_modules of `dir` in the copy: links to this checkout's, but `@wfr/generated` is the copy's. */
  function linkModules(dir) {
    const from = join(ROOT, dir, "node_modules");
    if (!existsSync(from)) return;
    const to = join(repo, dir, "node_modules");
    mkdirSync(to, { recursive: true });
    for (const entry of readdirSync(from)) {
      if (entry === "@wfr") {
        mkdirSync(join(to, entry), { recursive: true });
        for (const name of readdirSync(join(from, entry)))
          symlinkSync(
            name === "generated"
              ? join(repo, "packages", "generated")
              : realpathSync(join(from, entry, name)),
            join(to, entry, name),
          );
      } else symlinkSync(join(from, entry), join(to, entry));
    }
  }
  const copiedDist = new Set(copySuites.map(({ dir }) => dir));
  for (const dir of [".", ...workspacePackages.map(({ dir }) => dir)]) {
    linkModules(dir);
    // Built output is reused too (a package's tests may import it by its own name). Node
    // resolves a linked file's imports from where the link points, so the packages whose suites
    // run here get a copy: their child processes must import the copy's @wfr/generated.
    if (existsSync(join(ROOT, dir, "dist"))) {
      if (copiedDist.has(dir))
        cpSync(join(ROOT, dir, "dist"), join(repo, dir, "dist"), { recursive: true });
      else symlinkSync(join(ROOT, dir, "dist"), join(repo, dir, "dist"));
    }
    // So is what a build writes into src/ (the runtime's wire types, from its OpenAPI file).
    const wire = join(dir, "src", "wire");
    if (existsSync(join(ROOT, wire)) && !existsSync(join(repo, wire)))
      symlinkSync(join(ROOT, wire), join(repo, wire));
  }
  // A team's repository is a git repository (the docs' anchor check lists files with git). The
  // links above are this script's, not the team's files.
  const git = (...args) => execFileSync("git", args, { cwd: repo, encoding: "utf8" });
  git("init", "--quiet");
  writeFileSync(join(repo, ".git", "info", "exclude"), "node_modules\ndist\nsrc/wire\n");
  const commit = (message, ...paths) => {
    git("add", "--all", "--", ...paths);
    git(
      "-c",
      "user.name=team",
      "-c",
      "user.email=team@example.invalid",
      "commit",
      "--quiet",
      "-m",
      message,
    );
  };
  commit("this repository, as the team's own", ".");
  log(`copied ${files.length} files to ${repo}`);

  // --- the team's own production, from another catalog -------------------------------------------
  const { startEmulator } = await import(
    pathToFileURL(join(ROOT, "packages", "emulator", "dist", "index.js")).href
  );
  const TEAM_CATALOG = {
    environments: {
      production: {
        workspace: "ws_team",
        workflows: [
          {
            id: "wf_TeamOrder1",
            name: "Order intake",
            state: "enabled",
            revision: 3,
            inputs: {
              type: "object",
              properties: {
                order_ref: { type: "string", "x-input-type": "text" },
                quantity: { type: "integer", "x-input-type": "number" },
              },
              required: ["order_ref", "quantity"],
            },
            outputs: {
              type: "object",
              properties: { accepted: { type: "boolean" } },
              required: ["accepted"],
            },
            scenario: { steps: [{ succeed: { outputs: { accepted: true } } }] },
          },
        ],
      },
    },
  };
  emulator = await startEmulator({ port: 0, catalog: TEAM_CATALOG });
  const keyResponse = await fetch(`${emulator.url}/_emulator/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ environment: "production", scopes: ["workflows:run", "runs:read"] }),
  });
  const { token } = await keyResponse.json();
  const baseUrl = `${emulator.url}/production/api/v1`;
  writeFileSync(
    join(repo, "wfr.config.json"),
    `${JSON.stringify(
      {
        schemas: "schemas",
        generatedOut: "packages/generated/src",
        environments: [{ name: "production", baseUrl, apiKeyEnv: "WFR_PRODUCTION_API_KEY" }],
      },
      null,
      2,
    )}\n`,
  );
  const keyEnv = { WFR_PRODUCTION_API_KEY: String(token) };
  await node(repo, [WFR, "schemas", "pull", "production"], keyEnv);
  log("pulled schemas/production beside schemas/sample and schemas/sample-staging");

  await node(repo, [CODEGEN, "generate", "--regenerate-command", "pnpm generate"]);
  for (const env of ["sample", "sample-staging", "production"])
    if (!existsSync(join(repo, "packages", "generated", "src", `${env}.js`)))
      fail(`generate wrote no packages/generated/src/${env}.js`);
  await node(repo, [CODEGEN, "generate", "--check", "--regenerate-command", "pnpm generate"]);
  log("generated production beside the samples; the drift check holds");
  commit("the team's production", "wfr.config.json", "schemas", "packages/generated");

  // The suites need only the generated package; they start now, beside the team's app and
  // the repository-wide checks, so the copy's work is not one long chain behind other tasks.
  const teamAppAndChecks = async () => {
    // The team's app, written against its own production, beside the sample apps.
    const app = join(repo, "apps", "team-app");
    mkdirSync(join(app, "src"), { recursive: true });
    writeFileSync(
      join(app, "package.json"),
      `${JSON.stringify({ name: "@team/app", private: true, type: "module" }, null, 2)}\n`,
    );
    // The app's files are written as the repository's formatter keeps them: Biome checks them below.
    writeFileSync(
      join(app, "tsconfig.json"),
      `{
  "extends": "../../tsconfig.base.json",
  "compilerOptions": {
    "rootDir": "src",
    "outDir": "dist",
    "types": ["node"],
    "skipLibCheck": false
  },
  "include": ["src"]
}
`,
    );
    writeFileSync(
      join(app, "src", "main.ts"),
      `import { environment, workflows } from "@wfr/generated/production";
import { environment as sample } from "@wfr/generated/sample";
import { createClient } from "@wfr/runtime";

const wfr = createClient({ environment, apiKey: process.env.WFR_PRODUCTION_API_KEY ?? "" });
const run = await wfr.launch(workflows.orderIntake, {
  inputs: { order_ref: "PO-1", quantity: 2 },
  idempotencyKey: "order:PO-1",
});
const result = await wfr.waitForResult(workflows.orderIntake, run.run_id);
const accepted: boolean | undefined =
  result.state === "terminal" && result.status === "succeeded"
    ? result.outputs.accepted
    : undefined;
console.log(\`\${environment.name} beside \${sample.name}: accepted \${accepted}\`);
`,
    );
    mkdirSync(join(app, "node_modules", "@wfr"), { recursive: true });
    symlinkSync(
      join(repo, "packages", "generated"),
      join(app, "node_modules", "@wfr", "generated"),
    );
    symlinkSync(
      realpathSync(join(ROOT, "packages", "generated", "node_modules", "@wfr", "runtime")),
      join(app, "node_modules", "@wfr", "runtime"),
    );
    symlinkSync(join(ROOT, "node_modules", "@types"), join(app, "node_modules", "@types"));
    await node(app, [TSC, "-p", "tsconfig.json"]);
    const printed = await node(app, ["dist/main.js"], {
      ...keyEnv,
      // The generated environment names the pulled URL; the variable would move it elsewhere.
      WFR_PRODUCTION_BASE_URL: baseUrl,
    });
    if (printed.trim() !== "production beside sample: accepted true")
      fail(`the team's app printed ${JSON.stringify(printed)}`);
    log("the team's app type-checks against @wfr/generated/production and runs");

    // The repository's type-check, `pnpm typecheck` as `pnpm test` runs it: every package's
    // sources and tests in one program, then the generated declarations (the team's production
    // among them) alone with skipLibCheck off.
    const typecheck = readJson(join(repo, "package.json")).scripts.typecheck;
    await packageScript(repo, repo, typecheck);
    log(`the repository's type-check (\`${typecheck}\`) passes with production beside the samples`);
    // Only the app's folder: the suites run beside this and write their own files.
    commit("the team's first app", "apps/team-app");
    // `pnpm test`'s checks after the suites, on the copy: Biome (the team's app is formatted as
    // written above; pulled definitions are outside Biome's files), the docs' anchors, the build
    // references and the versions. Biome checks the files the team's commits added or changed:
    // every other file is this checkout's, which `pnpm test`'s own `biome check .` checks (a
    // second pass over the whole copy cost about 3.4 CPU-seconds).
    const teamFiles = git("diff", "--name-only", "--diff-filter=AM", "HEAD~2", "HEAD")
      .split("\n")
      .filter((file) => file !== "");
    if (!teamFiles.includes("apps/team-app/src/main.ts"))
      fail(`the team's commits do not hold its app: ${teamFiles.join(", ")}`);
    await node(repo, [
      join(ROOT, "node_modules", "@biomejs", "biome", "bin", "biome"),
      "check",
      "--no-errors-on-unmatched",
      "--files-ignore-unknown=true",
      ...teamFiles,
    ]);
    for (const script of [
      "check-doc-anchors.mjs",
      "check-build-references.mjs",
      "write-versions.mjs --check",
    ]) {
      const [file, ...args] = script.split(" ");
      await node(repo, [join(repo, "scripts", file), ...args]);
    }
    log("Biome, the docs' anchors, the build references and the versions hold in the copy");
  };
  const copySuitesPass = async () => {
    // The suites of the packages that can import @wfr/generated, each by its own `test` script
    // (as `pnpm test` would run it), two at a time: most of them wait on processes they start.
    const runSuite = async ({ dir, manifest }) => {
      const cwd = join(repo, dir);
      const suiteStarted = Date.now();
      await packageScript(cwd, repo, manifest.scripts.test);
      log(
        `${dir}: \`${manifest.scripts.test}\` passes (${((Date.now() - suiteStarted) / 1000).toFixed(0)} s)`,
      );
    };
    const queue = [...copySuites];
    const failures = [];
    await Promise.all(
      [1, 2].map(async () => {
        for (let suite = queue.shift(); suite; suite = queue.shift())
          await runSuite(suite).catch((error) => failures.push(`${suite.dir}: ${error.message}`));
      }),
    );
    return failures;
  };
  const [checked, suitesRun] = await Promise.allSettled([teamAppAndChecks(), copySuitesPass()]);
  const failed = [];
  if (checked.status === "rejected") failed.push(checked.reason.message);
  if (suitesRun.status === "rejected") failed.push(suitesRun.reason.message);
  else if (suitesRun.value.length > 0)
    failed.push(`suites failed in the copy:\n${suitesRun.value.join("\n")}`);
  if (failed.length > 0) fail(failed.join("\n"));
} catch (error) {
  process.stderr.write(`template-path: FAILED: ${error.message}\n`);
  process.exitCode = 1;
} finally {
  await emulator?.close();
  if (keep) log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
if (process.exitCode !== 1) log(`ok in ${((Date.now() - started) / 1000).toFixed(1)} s`);
