// `wfr init`: adds wfr.config.json, schemas/, package scripts and a CI
// workflow. Idempotent: only what is missing is planned; the plan is shown
// and, in a TTY, confirmed before anything is written.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../atomic-write.js";
import { CliError } from "../cli-error.js";
import { CONFIG_FILE, type WfrConfig } from "../config.js";
import { EXIT } from "../exit-codes.js";
import { terminal } from "../terminal.js";

export const SCRIPTS: Record<string, string> = {
  generate: "wfr generate",
  "generate:check": "wfr generate --check",
  "schemas:check": "wfr schemas pull --check",
};

export const CI_WORKFLOW_PATH = ".github/workflows/wfr.yml";

export function ciWorkflow(config: WfrConfig): string {
  const keys = config.environments
    .map((e) => `          ${e.apiKeyEnv}: \${{ secrets.${e.apiKeyEnv} }}`)
    .join("\n");
  return `# Written by \`wfr init\`: schema drift and generated-code checks.
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
      - run: npm ci
      - name: Schema drift (exit 3 non-breaking, 4 breaking)
        run: npx wfr schemas pull --check
        env:
${keys}
      - name: Generated code is current
        run: npx wfr generate --check
      - name: Type-check
        run: npx tsc --noEmit
`;
}

interface PlannedFile {
  readonly path: string;
  readonly content: string;
  readonly why: string;
}

export function planInit(
  root: string,
  config: WfrConfig,
): { files: PlannedFile[]; scripts: Record<string, string> } {
  const files: PlannedFile[] = [];
  if (!existsSync(join(root, CONFIG_FILE)))
    files.push({
      path: CONFIG_FILE,
      content: `${JSON.stringify(config, null, 2)}\n`,
      why: "environments: name, base URL, key variable name",
    });
  if (!existsSync(join(root, config.schemas)))
    files.push({
      path: join(config.schemas, ".gitkeep"),
      content: "",
      why: "downloaded definitions",
    });
  if (!existsSync(join(root, CI_WORKFLOW_PATH)))
    files.push({ path: CI_WORKFLOW_PATH, content: ciWorkflow(config), why: "CI drift checks" });
  const scripts: Record<string, string> = {};
  const pkgFile = join(root, "package.json");
  if (existsSync(pkgFile)) {
    const pkg = JSON.parse(readFileSync(pkgFile, "utf8")) as { scripts?: Record<string, string> };
    for (const [name, command] of Object.entries(SCRIPTS))
      if (pkg.scripts?.[name] === undefined) scripts[name] = command;
  }
  return { files, scripts };
}

export async function initCommand(options: {
  yes?: boolean;
  input?: boolean;
  env: string;
  baseUrl?: string;
  apiKeyEnv?: string;
}): Promise<number> {
  const t = terminal({ noInput: options.input === false });
  const root = process.cwd();
  let baseUrl = options.baseUrl;
  const existing = existsSync(join(root, CONFIG_FILE));
  if (!existing && baseUrl === undefined) {
    if (!t.interactive)
      throw new CliError(
        "--base-url is required without a terminal (or pass it with --no-input)",
        EXIT.USAGE,
      );
    const prompts = await import("@clack/prompts");
    const answer = await prompts.text({
      message: `API base URL of ${options.env} (ends in /api/v1)`,
      validate: (v) =>
        v && /^https?:\/\/.+\/api\/v1\/?$/.test(v) ? undefined : "an http(s) URL ending in /api/v1",
    });
    if (prompts.isCancel(answer)) return EXIT.USAGE;
    baseUrl = answer;
  }
  const config: WfrConfig = {
    schemas: "schemas",
    generatedOut: "src/wfr-generated",
    environments: [
      {
        name: options.env,
        baseUrl: baseUrl ?? "",
        apiKeyEnv:
          options.apiKeyEnv ?? `WFR_${options.env.toUpperCase().replace(/-/g, "_")}_API_KEY`,
      },
    ],
  };
  if (existing) {
    const loaded = JSON.parse(readFileSync(join(root, CONFIG_FILE), "utf8")) as WfrConfig;
    Object.assign(config, loaded);
  }
  const plan = planInit(root, config);
  const scriptNames = Object.keys(plan.scripts);
  if (plan.files.length === 0 && scriptNames.length === 0) {
    t.stderr.write("wfr: already initialized; nothing to write\n");
    return EXIT.OK;
  }
  t.stderr.write("wfr init will write:\n");
  for (const f of plan.files) t.stderr.write(`  + ${f.path}  (${f.why})\n`);
  if (scriptNames.length > 0)
    t.stderr.write(
      `  ~ package.json scripts: ${scriptNames.map((n) => `${n}="${plan.scripts[n]}"`).join(", ")}\n`,
    );
  if (!options.yes) {
    if (!t.interactive) throw new CliError("not a terminal: pass --yes to write", EXIT.USAGE);
    const prompts = await import("@clack/prompts");
    const ok = await prompts.confirm({ message: "Write these files?" });
    if (prompts.isCancel(ok) || ok !== true) {
      t.stderr.write("wfr: nothing written\n");
      return EXIT.USAGE;
    }
  }
  for (const f of plan.files) writeFileAtomic(join(root, f.path), f.content);
  if (scriptNames.length > 0) {
    const pkgFile = join(root, "package.json");
    const pkg = JSON.parse(readFileSync(pkgFile, "utf8")) as { scripts?: Record<string, string> };
    pkg.scripts = { ...pkg.scripts, ...plan.scripts };
    writeFileAtomic(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
  }
  t.stderr.write(
    `wfr: done. Next: export ${config.environments.map((e) => e.apiKeyEnv).join(", ")}; wfr schemas pull; wfr generate\n`,
  );
  return EXIT.OK;
}
