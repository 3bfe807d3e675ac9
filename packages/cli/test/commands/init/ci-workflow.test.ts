// The CI workflow `wfr init` writes, for each package manager: Corepack where the runner's own
// tools would refuse the project, the manager's install, the package scripts init writes, the
// manager's exec for the type-check, and never `npx` (which would download an unrelated `wfr`).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { parse } from "yaml";
import { ciFacts, ciWorkflow } from "../../../src/commands/init/ci-workflow.js";

const INIT_SCRIPTS = {
  generate: "wfr generate",
  "generate:check": "wfr generate --check",
  "schemas:check": "wfr schemas pull --check",
};

const config = {
  schemas: "schemas",
  generatedOut: "wfr-generated",
  environments: [{ name: "production", baseUrl: "http://x/api/v1", apiKeyEnv: "K" }],
};

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "wfr-ci-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

/** The workflow's `run:` commands in order, read as YAML as the runner reads them. */
function runSteps(dir: string, scripts: Record<string, string> = INIT_SCRIPTS): string[] {
  const workflow = parse(ciWorkflow(config, ciFacts(dir, scripts))) as {
    jobs: { schemas: { steps: { run?: string }[] } };
  };
  return workflow.jobs.schemas.steps.flatMap((step) => (step.run === undefined ? [] : [step.run]));
}

describe("the CI workflow's commands", () => {
  it("npm: npm ci, the package scripts, npm exec --no for tsc", () => {
    const dir = project({ "package.json": "{}", "package-lock.json": "{}" });
    expect(runSteps(dir)).toEqual([
      "npm ci",
      "npm run schemas:check",
      "npm run generate:check",
      "npm exec --no -- tsc --noEmit",
    ]);
  });

  it("pnpm: Corepack first (the runner has no pnpm), a frozen lockfile, pnpm run and pnpm exec", () => {
    const dir = project({ "package.json": JSON.stringify({ packageManager: "pnpm@10.34.8" }) });
    expect(runSteps(dir)).toEqual([
      "corepack enable",
      "pnpm install --frozen-lockfile",
      "pnpm run schemas:check",
      "pnpm run generate:check",
      "pnpm exec tsc --noEmit",
    ]);
    expect(runSteps(project({ "package.json": "{}", "pnpm-lock.yaml": "" }))[0]).toBe(
      "corepack enable",
    );
  });

  it("Yarn Berry (packageManager yarn@4, or a .yarnrc.yml): Corepack, --immutable, yarn run, no node_modules/.bin needed", () => {
    const expected = [
      "corepack enable",
      "yarn install --immutable",
      "yarn run schemas:check",
      "yarn run generate:check",
      "yarn tsc --noEmit",
    ];
    const declared = project({
      "package.json": JSON.stringify({ packageManager: "yarn@4.18.0" }),
      "yarn.lock": "",
    });
    expect(runSteps(declared)).toEqual(expected);
    const configured = project({ "package.json": "{}", "yarn.lock": "", ".yarnrc.yml": "" });
    expect(runSteps(configured)).toEqual(expected);
  });

  it("Yarn classic: the runner's Yarn 1 with --frozen-lockfile, no Corepack", () => {
    const dir = project({ "package.json": "{}", "yarn.lock": "# yarn lockfile v1\n" });
    expect(runSteps(dir)).toEqual([
      "yarn install --frozen-lockfile",
      "yarn run schemas:check",
      "yarn run generate:check",
      "yarn tsc --noEmit",
    ]);
  });

  it("a script of the same name that runs something else is not called: the manager's exec runs wfr", () => {
    const dir = project({ "package.json": "{}", "package-lock.json": "{}" });
    const steps = runSteps(dir, { ...INIT_SCRIPTS, "generate:check": "node check.js" });
    expect(steps).toContain("npm exec --no -- wfr generate --check");
    expect(steps).not.toContain("npm run generate:check");
  });

  it("never npx: where the bin is missing it would install the registry's `wfr`, with the key in its environment", () => {
    for (const files of [
      { "package.json": "{}", "package-lock.json": "{}" },
      { "package.json": "{}", "pnpm-lock.yaml": "" },
      { "package.json": "{}", "yarn.lock": "" },
      { "package.json": JSON.stringify({ packageManager: "yarn@4.18.0" }) },
    ] as Record<string, string>[])
      for (const scripts of [INIT_SCRIPTS, {}])
        for (const step of runSteps(project(files), scripts)) expect(step).not.toMatch(/\bnpx\b/);
  });

  it("the step with the API keys in its environment runs the schema check", () => {
    const workflow = parse(
      ciWorkflow(config, ciFacts(project({ "package.json": "{}" }), INIT_SCRIPTS)),
    ) as { jobs: { schemas: { steps: { run?: string; env?: Record<string, string> }[] } } };
    const withKey = workflow.jobs.schemas.steps.filter((step) => step.env?.K !== undefined);
    expect(withKey.map((step) => step.run)).toEqual(["npm run schemas:check"]);
  });
});
