// The CI workflow `wfr init` writes: schema drift, generated code current, and a type-check that
// passes in the repository it was written for, with the repository's own package manager.
//
// `wfr` is never run as a bare `npx wfr`: the package is `@wfr/cli`, and where its bin is not
// installed (Plug'n'Play has no node_modules/.bin, a workspace's sub-package) npx would fetch
// whatever the registry serves under the name `wfr`, in a step whose environment holds the API
// key. The steps run the package scripts `wfr init` writes, or the manager's own exec, which runs
// only what is installed.

import type { WfrConfig } from "../../config.js";
import {
  detectPackageManager,
  type PackageManager,
  type YarnFlavour,
  yarnFlavour,
} from "../../package-manager.js";

export const CI_WORKFLOW_PATH = ".github/workflows/wfr.yml";

/** The first line of the CI workflow; `--add-env` rewrites only a file that starts with it. */
export const CI_MARKER = "# Written by `wfr init`";

/** What the CI workflow needs to know about this repository. */
export interface CiFacts {
  readonly packageManager: PackageManager;
  /** Which Yarn, where the package manager is Yarn. */
  readonly yarn?: YarnFlavour;
  /** The package.json scripts as they will be once `wfr init` has written its own. */
  readonly scripts: Readonly<Record<string, string>>;
}

export function ciFacts(root: string, scripts: Readonly<Record<string, string>>): CiFacts {
  const packageManager = detectPackageManager(root);
  return {
    packageManager,
    ...(packageManager === "yarn" ? { yarn: yarnFlavour(root) } : {}),
    scripts,
  };
}

/**
 * The install step(s). pnpm and Yarn Berry come from Corepack: the runner's image has neither
 * pnpm nor a Yarn newer than 1, and its Yarn 1 refuses a project whose `packageManager` field
 * names Yarn 2 or later.
 */
function installSteps(facts: CiFacts): string[] {
  switch (facts.packageManager) {
    case "npm":
      return ["npm ci"];
    case "pnpm":
      return ["corepack enable", "pnpm install --frozen-lockfile"];
    case "yarn":
      return facts.yarn === "berry"
        ? ["corepack enable", "yarn install --immutable"]
        : ["yarn install --frozen-lockfile"];
  }
}

/**
 * `wfr <args>` in CI: the package script that runs exactly that command, else the manager's exec,
 * which runs the installed bin and never downloads one.
 */
export function ciWfrCommand(facts: CiFacts, args: string): string {
  const script = Object.keys(facts.scripts)
    .sort()
    .find((name) => facts.scripts[name]?.trim() === `wfr ${args}`);
  if (script !== undefined) return `${facts.packageManager} run ${script}`;
  return ciExec(facts, `wfr ${args}`);
}

/** An installed bin run through the package manager (`npm exec --no` refuses to download one). */
function ciExec(facts: CiFacts, command: string): string {
  switch (facts.packageManager) {
    case "npm":
      return `npm exec --no -- ${command}`;
    case "pnpm":
      return `pnpm exec ${command}`;
    case "yarn":
      return `yarn ${command}`;
  }
}

export function ciWorkflow(config: WfrConfig, facts: CiFacts): string {
  const keys = config.environments
    .map((e) => `          ${e.apiKeyEnv}: \${{ secrets.${e.apiKeyEnv} }}`)
    .join("\n");
  const install = installSteps(facts)
    .map((command) => `      - run: ${command}\n`)
    .join("");
  return `${CI_MARKER}: schema drift and generated-code checks.
name: wfr
on:
  pull_request:
  push:
    branches: [main]
  schedule:
    - cron: "0 6 * * 1-5"
jobs:
  schemas:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
${install}      - name: Schema drift (exit 3 non-breaking, 4 breaking)
        run: ${ciWfrCommand(facts, "schemas pull --check")}
        env:
${keys}
      - name: Generated code is current
        run: ${ciWfrCommand(facts, "generate --check")}
      - name: Type-check
        run: ${ciExec(facts, "tsc --noEmit")}
`;
}
