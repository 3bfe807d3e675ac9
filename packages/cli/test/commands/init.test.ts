// `wfr init` without a terminal: documented flags, --add-env, no silently ignored --env,
// the #wfr/* alias, and a CI workflow whose steps hold in the repository it was run in.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { runWfr } from "../harness.js";

function repo(pkg: Record<string, unknown> = { name: "app" }): string {
  const dir = mkdtempSync(join(tmpdir(), "wfr-init-"));
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
  expect(r.stderr).toContain('from "#wfr/production"');
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
