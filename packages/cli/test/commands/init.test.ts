// `wfr init` without a terminal: documented flags, --add-env, no silently ignored --env,
// the #wfr/* alias, a package.json required, and a tsconfig.json written or left alone.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it, onTestFinished } from "vitest";
import { TSCONFIG_TEXT } from "../../src/commands/init/tsconfig.js";
import { EXIT } from "../../src/exit-codes.js";
import { runWfr } from "../harness.js";

/** An empty folder for the calling test, removed when it ends (its `wfr` runs have exited by then). */
function emptyRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), "wfr-init-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function repo(pkg: Record<string, unknown> = { name: "app" }): string {
  const dir = emptyRepo();
  writeFileSync(join(dir, "package.json"), JSON.stringify(pkg));
  return dir;
}
const json = (dir: string, file: string) => JSON.parse(readFileSync(join(dir, file), "utf8"));

it("without a terminal, names every flag it needs", async () => {
  const dir = repo();
  const r = await runWfr(["init"], { cwd: dir });
  expect(r.code).toBe(EXIT.USAGE);
  expect(r.stderr).toContain("--yes --env <name> --base-url <url ending in /api/v1>");
  const noUrl = await runWfr(["init", "--yes"], { cwd: dir });
  expect(noUrl.code).toBe(EXIT.USAGE);
  expect(noUrl.stderr).toContain("--base-url is required");
});

it("writes the config, the #wfr/* alias, the scripts and says where the key comes from", async () => {
  const dir = repo();
  const url = "http://127.0.0.1:9/production/api/v1";
  const r = await runWfr(["init", "--yes", "--env", "production", "--base-url", url], { cwd: dir });
  expect(r.code, r.stderr).toBe(EXIT.OK);
  expect(json(dir, "wfr.config.json")).toMatchObject({
    generatedOut: "wfr-generated",
    environments: [{ name: "production", baseUrl: url, apiKeyEnv: "WFR_PRODUCTION_API_KEY" }],
  });
  const pkg = json(dir, "package.json");
  expect(pkg.imports["#wfr/*"]).toBe("./wfr-generated/*.js");
  expect(pkg.scripts.generate).toBe("wfr generate");
  expect(r.stderr).toContain("scoped workspace key");
  expect(r.stderr).toContain("npm run generate");
  expect(r.stderr).toContain('import { environment } from "#wfr/production/environment";');
  expect(r.stderr).toContain('from "#wfr/production/<workflow>"');
  expect(r.stderr).not.toContain('from "#wfr/production";');
});

it("an unknown --env on an initialised repo is an error; --add-env adds it and its CI secret", async () => {
  const dir = repo();
  const base = "http://127.0.0.1:9";
  await runWfr(["init", "--yes", "--base-url", `${base}/production/api/v1`], { cwd: dir });
  const ignored = await runWfr(["init", "--yes", "--env", "staging"], { cwd: dir });
  expect(ignored.code).toBe(EXIT.USAGE);
  expect(ignored.stderr).toContain("init --add-env --env staging");
  const added = await runWfr(
    ["init", "--add-env", "--yes", "--env", "staging", "--base-url", `${base}/staging/api/v1`],
    { cwd: dir },
  );
  expect(added.code, added.stderr).toBe(EXIT.OK);
  expect(json(dir, "wfr.config.json").environments.map((e: { name: string }) => e.name)).toEqual([
    "production",
    "staging",
  ]);
  expect(readFileSync(join(dir, ".github/workflows/wfr.yml"), "utf8")).toContain(
    ["WFR_STAGING_API_KEY: $", "{{ secrets.WFR_STAGING_API_KEY }}"].join(""),
  );
  const twice = await runWfr(
    ["init", "--add-env", "--yes", "--env", "staging", "--base-url", `${base}/staging/api/v1`],
    { cwd: dir },
  );
  expect(twice.code).toBe(EXIT.USAGE);
});

const URL_FLAGS = [
  "--yes",
  "--env",
  "production",
  "--base-url",
  "http://127.0.0.1:9/production/api/v1",
];

it("without a package.json: refuses with a usage error that says to create one, and writes nothing", async () => {
  const dir = emptyRepo();
  const r = await runWfr(["init", ...URL_FLAGS], { cwd: dir });
  expect(r.code).toBe(EXIT.USAGE);
  expect(r.stderr).toContain("no package.json");
  expect(r.stderr).toContain("npm init -y");
  expect(r.stderr).not.toContain("#wfr/production");
  expect(readdirSync(dir)).toEqual([]);
});

it("--add-env without a package.json is refused too: the CI workflow it rewrites runs package scripts", async () => {
  const dir = emptyRepo();
  const config = `${JSON.stringify({
    schemas: "schemas",
    generatedOut: "wfr-generated",
    environments: [{ name: "production", baseUrl: "http://x/api/v1", apiKeyEnv: "K" }],
  })}\n`;
  writeFileSync(join(dir, "wfr.config.json"), config);
  const r = await runWfr(
    ["init", "--add-env", "--yes", "--env", "staging", "--base-url", "http://x/staging/api/v1"],
    { cwd: dir },
  );
  expect(r.code).toBe(EXIT.USAGE);
  expect(r.stderr).toContain("npm init -y");
  expect(readFileSync(join(dir, "wfr.config.json"), "utf8")).toBe(config);
  expect(readdirSync(dir)).toEqual(["wfr.config.json"]);
});

it("a package.json that is not a JSON object is named, and nothing is written", async () => {
  const dir = emptyRepo();
  writeFileSync(join(dir, "package.json"), "{ name: app }");
  const r = await runWfr(["init", ...URL_FLAGS], { cwd: dir });
  expect(r.code).toBe(EXIT.USAGE);
  expect(r.stderr).toContain(`${join(dir, "package.json")}: not JSON`);
  expect(readdirSync(dir)).toEqual(["package.json"]);
  writeFileSync(join(dir, "package.json"), "[]");
  const array = await runWfr(["init", ...URL_FLAGS], { cwd: dir });
  expect(array.code).toBe(EXIT.USAGE);
  expect(array.stderr).toContain(`${join(dir, "package.json")}: not a JSON object`);
  expect(readdirSync(dir)).toEqual(["package.json"]);
});

it("without a tsconfig.json: writes the one that builds src/ to dist/, says so, and names the type-check's packages", async () => {
  const dir = repo({ name: "app", type: "commonjs" });
  const r = await runWfr(["init", ...URL_FLAGS], { cwd: dir });
  expect(r.code, r.stderr).toBe(EXIT.OK);
  expect(readFileSync(join(dir, "tsconfig.json"), "utf8")).toBe(TSCONFIG_TEXT);
  expect(json(dir, "tsconfig.json").compilerOptions).toMatchObject({
    module: "nodenext",
    types: ["node"],
    rootDir: "src",
    outDir: "dist",
  });
  expect(r.stderr).toContain(
    "wfr: wrote wfr.config.json, schemas/.gitkeep, tsconfig.json, .github/workflows/wfr.yml, package.json (script generate, script generate:check, script schemas:check, import alias #wfr/*)",
  );
  expect(r.stderr).toContain("npm i -D typescript @types/node");
});

it("an existing tsconfig.json is left byte for byte, and init says which options it lacks", async () => {
  const dir = repo({ name: "app", devDependencies: { typescript: "7.0.2", "@types/node": "24" } });
  const tsconfig = `{
  // the team's own
  "compilerOptions": {
    "module": "commonjs", /* TypeScript 5's habit */
    "outDir": "build",
  },
}
`;
  writeFileSync(join(dir, "tsconfig.json"), tsconfig);
  const r = await runWfr(["init", ...URL_FLAGS], { cwd: dir });
  expect(r.code, r.stderr).toBe(EXIT.OK);
  expect(readFileSync(join(dir, "tsconfig.json"), "utf8")).toBe(tsconfig);
  expect(r.stderr).toContain('tsconfig.json needs "module": "nodenext"');
  expect(r.stderr).toContain('(now "module": "commonjs")');
  expect(r.stderr).toContain('tsconfig.json needs "types" including "node"');
  expect(r.stderr).not.toContain("+ tsconfig.json");
  expect(r.stderr).not.toContain("npm i -D typescript");
  // Run again: nothing to write, and the advice is still given.
  const again = await runWfr(["init", ...URL_FLAGS], { cwd: dir });
  expect(again.stderr).toContain("already initialized");
  expect(again.stderr).toContain('tsconfig.json needs "types" including "node"');
});

it("Yarn Plug'n'Play: init says TypeScript 7's tsc needs node_modules there; not under nodeLinker: node-modules", async () => {
  const pnp = repo({ name: "app", packageManager: "yarn@4.18.1" });
  const r = await runWfr(["init", ...URL_FLAGS], { cwd: pnp });
  expect(r.code, r.stderr).toBe(EXIT.OK);
  expect(r.stderr).toContain(
    "set `nodeLinker: node-modules` in .yarnrc.yml, or use TypeScript 5.9",
  );
  const linked = repo({ name: "app", packageManager: "yarn@4.18.1" });
  writeFileSync(join(linked, ".yarnrc.yml"), "nodeLinker: node-modules\n");
  const quiet = await runWfr(["init", ...URL_FLAGS], { cwd: linked });
  expect(quiet.code, quiet.stderr).toBe(EXIT.OK);
  expect(quiet.stderr).not.toContain("nodeLinker");
});
