#!/usr/bin/env node
// This repository as a team's own integration repository: in a copy of it (the files git knows),
// the team adds its own environment named `production` from another catalog beside the samples
// (`sample`, `sample-staging`) with `wfr schemas pull`, generates, and writes an app against
// `@wfr/generated/production`. Then what depends on the generated code still holds: the drift
// check, the repository's whole type-check (`pnpm typecheck`: every package's sources and tests),
// the tests of `packages/generated`, `packages/testing` and `apps/demo`, and the team's app
// (type-check and a run against the emulator).
//
// Kept cheap: the copy reuses this checkout's installed and built packages (node_modules and
// dist are linked; `@wfr/generated` alone points into the copy; built output, linked from here,
// still imports this checkout's), and of the suites only those that import @wfr/generated run.
// `node scripts/e2e-template-path.mjs [--keep]`; needs `pnpm build` first. Exit 0 when all hold.
import { execFile, execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
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
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const VITEST = join(ROOT, "node_modules", "vitest", "vitest.mjs");
const CODEGEN = join(ROOT, "packages", "codegen", "dist", "cli.js");
const WFR = join(ROOT, "packages", "cli", "dist", "bin.js");
for (const built of [CODEGEN, WFR, join(ROOT, "packages", "emulator", "dist", "index.js")])
  if (!existsSync(built)) {
    process.stderr.write(`template-path: ${built} is missing: run \`pnpm build\` first\n`);
    process.exit(1);
  }

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
  const workspaceDirs = [
    ".",
    ...["packages", "apps"].flatMap((group) =>
      readdirSync(join(ROOT, group))
        .map((name) => `${group}/${name}`)
        .filter((dir) => lstatSync(join(ROOT, dir)).isDirectory()),
    ),
  ];
  for (const dir of workspaceDirs) {
    linkModules(dir);
    // Built output is reused too (a package's tests may import it by its own name).
    if (existsSync(join(ROOT, dir, "dist")))
      symlinkSync(join(ROOT, dir, "dist"), join(repo, dir, "dist"));
    // So is what a build writes into src/ (the runtime's wire types, from its OpenAPI file).
    const wire = join(dir, "src", "wire");
    if (existsSync(join(ROOT, wire)) && !existsSync(join(repo, wire)))
      symlinkSync(join(ROOT, wire), join(repo, wire));
  }
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

  // The team's app, written against its own production, beside the sample apps.
  const app = join(repo, "apps", "team-app");
  mkdirSync(join(app, "src"), { recursive: true });
  writeFileSync(
    join(app, "package.json"),
    `${JSON.stringify({ name: "@team/app", private: true, type: "module" }, null, 2)}\n`,
  );
  writeFileSync(
    join(app, "tsconfig.json"),
    `${JSON.stringify(
      {
        extends: "../../tsconfig.base.json",
        compilerOptions: { rootDir: "src", outDir: "dist", types: ["node"], skipLibCheck: false },
        include: ["src"],
      },
      null,
      2,
    )}\n`,
  );
  writeFileSync(
    join(app, "src", "main.ts"),
    `import { createClient } from "@wfr/runtime";
import { environment, workflows } from "@wfr/generated/production";
import { environment as sample } from "@wfr/generated/sample";

const wfr = createClient({ environment, apiKey: process.env.WFR_PRODUCTION_API_KEY ?? "" });
const run = await wfr.launch(workflows.orderIntake, {
  inputs: { order_ref: "PO-1", quantity: 2 },
  idempotencyKey: "order:PO-1",
});
const result = await wfr.waitForResult(workflows.orderIntake, run.run_id);
const accepted: boolean | undefined =
  result.state === "terminal" && result.status === "succeeded" ? result.outputs.accepted : undefined;
console.log(\`\${environment.name} beside \${sample.name}: accepted \${accepted}\`);
`,
  );
  mkdirSync(join(app, "node_modules", "@wfr"), { recursive: true });
  symlinkSync(join(repo, "packages", "generated"), join(app, "node_modules", "@wfr", "generated"));
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

  // The repository's type-check, as `pnpm test` runs it: every package's sources and tests in one
  // program (the team's app among them). The new environment's declarations were checked with
  // skipLibCheck off by the team app's own tsc above; the samples' did not change.
  await node(repo, [TSC, "-p", "tsconfig.typecheck.json"]);
  log("the repository's type-check passes with production beside the samples");
  // The suites that import @wfr/generated at run time, in the copy (their test files resolve it
  // to the copy's, with production beside the samples): the generated package's own, the
  // testing kit's and the demo's. The invoice desk's suite (about 60 CPU-seconds of crash and
  // browser tests, none of which reads the environment list) is left to the repository's run.
  for (const dir of ["packages/generated", "packages/testing", "apps/demo"]) {
    await node(join(repo, dir), [VITEST, "run"]);
    log(`${dir}: tests pass`);
  }
} catch (error) {
  process.stderr.write(`template-path: FAILED: ${error.message}\n`);
  process.exitCode = 1;
} finally {
  await emulator?.close();
  if (keep) log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
if (process.exitCode !== 1) log(`ok in ${((Date.now() - started) / 1000).toFixed(1)} s`);
