// The CI workflow `wfr init` writes: schema drift, generated code current, and a type-check that
// passes in the repository it was written for.

import type { WfrConfig } from "../../config.js";
import { detectPackageManager, type PackageManager } from "../../package-manager.js";

export const CI_WORKFLOW_PATH = ".github/workflows/wfr.yml";

/** The first line of the CI workflow; `--add-env` rewrites only a file that starts with it. */
export const CI_MARKER = "# Written by `wfr init`";

const INSTALL: Record<PackageManager, string> = {
  npm: "npm ci",
  pnpm: "npx --yes pnpm install --frozen-lockfile",
  yarn: "yarn install --frozen-lockfile",
};

/** What the CI workflow needs to know about this repository. */
export interface CiFacts {
  readonly packageManager: PackageManager;
}

export function ciFacts(root: string): CiFacts {
  return { packageManager: detectPackageManager(root) };
}

/**
 * The type-check step: a repository without a tsconfig.json (yet) has nothing
 * to type-check, and the step must pass there; once there is one, it runs.
 */
const TYPECHECK_STEP = `      - name: Type-check (once there is a tsconfig.json)
        run: "[ ! -f tsconfig.json ] || npx --no-install tsc --noEmit"
`;

export function ciWorkflow(config: WfrConfig, facts: CiFacts): string {
  const keys = config.environments
    .map((e) => `          ${e.apiKeyEnv}: \${{ secrets.${e.apiKeyEnv} }}`)
    .join("\n");
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
      - run: ${INSTALL[facts.packageManager]}
      - name: Schema drift (exit 3 non-breaking, 4 breaking)
        run: npx wfr schemas pull --check
        env:
${keys}
      - name: Generated code is current
        run: npx wfr generate --check
${TYPECHECK_STEP}`;
}
