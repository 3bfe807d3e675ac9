// What `wfr init` would write: only what is missing (idempotent), so the plan can be shown first.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CONFIG_FILE, type WfrConfig } from "../../config.js";
import { CI_MARKER, CI_WORKFLOW_PATH, ciFacts, ciWorkflow } from "./ci-workflow.js";

const SCRIPTS: Record<string, string> = {
  generate: "wfr generate",
  "generate:check": "wfr generate --check",
  "schemas:check": "wfr schemas pull --check",
};

/** The import alias the app uses for generated code: `#wfr/<env>` -> `<generatedOut>/<env>.js`. */
const IMPORT_ALIAS = "#wfr/*";

interface PlannedFile {
  readonly path: string;
  readonly content: string;
  readonly why: string;
}

export interface PackageJson {
  scripts?: Record<string, string>;
  imports?: Record<string, unknown>;
}

export interface InitPlan {
  readonly files: PlannedFile[];
  readonly scripts: Record<string, string>;
  /** The `imports` entries to add to package.json. */
  readonly imports: Record<string, string>;
}

export function planInit(
  root: string,
  config: WfrConfig,
  options: { rewriteConfig?: boolean } = {},
): InitPlan {
  const files: PlannedFile[] = [];
  if (options.rewriteConfig || !existsSync(join(root, CONFIG_FILE)))
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
  const scripts: Record<string, string> = {};
  const imports: Record<string, string> = {};
  const pkgFile = join(root, "package.json");
  const pkg = existsSync(pkgFile)
    ? (JSON.parse(readFileSync(pkgFile, "utf8")) as PackageJson)
    : undefined;
  if (pkg !== undefined) {
    for (const [name, command] of Object.entries(SCRIPTS))
      if (pkg.scripts?.[name] === undefined) scripts[name] = command;
    if (pkg.imports?.[IMPORT_ALIAS] === undefined)
      imports[IMPORT_ALIAS] =
        `./${config.generatedOut.replace(/^\.\//, "").replace(/\/+$/, "")}/*.js`;
  }
  const ciFile = join(root, CI_WORKFLOW_PATH);
  const ours = existsSync(ciFile) && readFileSync(ciFile, "utf8").startsWith(CI_MARKER);
  if (!existsSync(ciFile) || (options.rewriteConfig && ours))
    files.push({
      path: CI_WORKFLOW_PATH,
      content: ciWorkflow(config, ciFacts(root, { ...pkg?.scripts, ...scripts })),
      why: "CI drift checks",
    });
  return { files, scripts, imports };
}
