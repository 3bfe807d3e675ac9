// What `wfr init` would write: only what is missing (idempotent), so the plan can be shown first.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CliError } from "../../cli-error.js";
import { CONFIG_FILE, type WfrConfig } from "../../config.js";
import { EXIT } from "../../exit-codes.js";
import { CI_MARKER, CI_WORKFLOW_PATH, ciFacts, ciWorkflow } from "./ci-workflow.js";
import { TSCONFIG_FILE, TSCONFIG_TEXT, tsconfigAdvice } from "./tsconfig.js";

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
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/**
 * The project's package.json, which `wfr init` adds its scripts and import alias to and which the
 * CI workflow installs from: without one there is no project to add wfr to yet.
 */
export function readPackageJson(root: string): PackageJson {
  const file = join(root, "package.json");
  if (!existsSync(file))
    throw new CliError(
      `no package.json in ${root}: wfr init adds its scripts and the #wfr/* import alias to the project's package.json; create one first (\`npm init -y\`, \`pnpm init\` or \`yarn init\`), then run wfr init again. Nothing written.`,
      EXIT.USAGE,
    );
  let pkg: unknown;
  try {
    pkg = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new CliError(
      `${file}: not JSON (${(error as Error).message}). Nothing written.`,
      EXIT.USAGE,
    );
  }
  if (typeof pkg !== "object" || pkg === null || Array.isArray(pkg))
    throw new CliError(`${file}: not a JSON object. Nothing written.`, EXIT.USAGE);
  return pkg as PackageJson;
}

export interface InitPlan {
  readonly files: PlannedFile[];
  readonly scripts: Record<string, string>;
  /** The `imports` entries to add to package.json. */
  readonly imports: Record<string, string>;
  /** What the existing tsconfig.json lacks (it is never rewritten), one line per option. */
  readonly tsconfigAdvice: string[];
  /** The type-check's packages the project does not depend on yet. */
  readonly missingDevPackages: string[];
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
  const pkg = readPackageJson(root);
  const scripts: Record<string, string> = {};
  for (const [name, command] of Object.entries(SCRIPTS))
    if (pkg.scripts?.[name] === undefined) scripts[name] = command;
  const imports: Record<string, string> = {};
  if (pkg.imports?.[IMPORT_ALIAS] === undefined)
    imports[IMPORT_ALIAS] =
      `./${config.generatedOut.replace(/^\.\//, "").replace(/\/+$/, "")}/*.js`;
  const tsconfigFile = join(root, TSCONFIG_FILE);
  const hasTsconfig = existsSync(tsconfigFile);
  if (!hasTsconfig)
    files.push({
      path: TSCONFIG_FILE,
      content: TSCONFIG_TEXT,
      why: "builds src/ to dist/ for an ES module or CommonJS package",
    });
  const ciFile = join(root, CI_WORKFLOW_PATH);
  const ours = existsSync(ciFile) && readFileSync(ciFile, "utf8").startsWith(CI_MARKER);
  if (!existsSync(ciFile) || (options.rewriteConfig && ours))
    files.push({
      path: CI_WORKFLOW_PATH,
      content: ciWorkflow(config, ciFacts(root, { ...pkg.scripts, ...scripts })),
      why: "CI drift checks",
    });
  const depends = (name: string) =>
    pkg.dependencies?.[name] !== undefined || pkg.devDependencies?.[name] !== undefined;
  return {
    files,
    scripts,
    imports,
    tsconfigAdvice: hasTsconfig ? tsconfigAdvice(readFileSync(tsconfigFile, "utf8")) : [],
    missingDevPackages: ["typescript", "@types/node"].filter((name) => !depends(name)),
  };
}
