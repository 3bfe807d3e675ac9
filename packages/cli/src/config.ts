// wfr.config.json: the environments a repository talks to. Keys are never in
// the file, only the NAME of the environment variable holding each key.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { baseUrlVariable, DEFINITION_FILE, DEFINITION_PATH_PREFIX } from "@wfr/protocol";
import { CliError } from "./cli-error.js";
import { EXIT } from "./exit-codes.js";
import { FILE_BUDGET, readTextFileWithin } from "./file-budgets.js";

export const CONFIG_FILE = "wfr.config.json";

export interface EnvironmentConfig {
  readonly name: string;
  /** The API base, ending in /api/v1. */
  readonly baseUrl: string;
  /** Name of the environment variable holding this environment's API key. */
  readonly apiKeyEnv: string;
  /** Where the definition is downloaded; default: baseUrl with /api/v1 replaced by /api-docs/openapi.json. */
  readonly definitionUrl?: string;
}

export interface WfrConfig {
  /** Folder of downloaded definitions, schemas/<env>/openapi.(json|yaml). */
  readonly schemas: string;
  /** Folder the generator writes to. */
  readonly generatedOut: string;
  readonly environments: readonly EnvironmentConfig[];
}

export interface LoadedConfig extends WfrConfig {
  /** The folder holding wfr.config.json; relative paths are resolved against it. */
  readonly root: string;
  readonly file: string;
}

const ENV_NAME = /^[a-z][a-z0-9_-]*$/;
const ENV_VAR = /^[A-Z_][A-Z0-9_]*$/;
const BASE_URL = /^https?:\/\/.+\/api\/v1\/?$/;

/**
 * The environment as this process reaches it: `WFR_<ENV>_BASE_URL`, where set, replaces the
 * configured base URL (an emulator restarted on another port, a proxy) without editing
 * wfr.config.json. The generated code reads the same variable, and `wfr schemas pull` writes the
 * configured URL, so neither the committed definition nor the generated code depends on it.
 */
export function connectionOf(
  env: EnvironmentConfig,
  variables: Readonly<Record<string, string | undefined>> = process.env,
): EnvironmentConfig {
  const variable = baseUrlVariable(env.name);
  const override = variables[variable]?.trim();
  if (!override) return env;
  if (!BASE_URL.test(override))
    throw new CliError(
      `${variable}: must be an http(s) URL ending in /api/v1 (it replaces ${env.name}'s base URL)`,
      EXIT.USAGE,
    );
  return { ...env, baseUrl: override };
}

export function definitionUrlOf(env: EnvironmentConfig): string {
  if (env.definitionUrl) return env.definitionUrl;
  return `${env.baseUrl.replace(/\/+$/, "").replace(/\/api\/v1$/, "")}${DEFINITION_PATH_PREFIX}${DEFINITION_FILE.json}`;
}

/** Checks the parsed file; every problem names the JSON pointer. */
export function parseConfig(raw: unknown, file: string): WfrConfig {
  const bad = (pointer: string, what: string) =>
    new CliError(`${file}: ${pointer}: ${what}`, EXIT.USAGE);
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw bad("/", "must be a JSON object");
  const o = raw as Record<string, unknown>;
  const schemas = o.schemas ?? "schemas";
  if (typeof schemas !== "string" || schemas === "") throw bad("/schemas", "must be a folder path");
  const generatedOut = o.generatedOut ?? "wfr-generated";
  if (typeof generatedOut !== "string" || generatedOut === "")
    throw bad("/generatedOut", "must be a folder path");
  if (!Array.isArray(o.environments)) throw bad("/environments", "must be an array");
  const seen = new Set<string>();
  const environments = o.environments.map((e: unknown, i: number): EnvironmentConfig => {
    const p = `/environments/${i}`;
    if (typeof e !== "object" || e === null) throw bad(p, "must be an object");
    const env = e as Record<string, unknown>;
    if (typeof env.name !== "string" || !ENV_NAME.test(env.name))
      throw bad(`${p}/name`, "must match [a-z][a-z0-9_-]*");
    if (seen.has(env.name)) throw bad(`${p}/name`, `duplicate environment ${env.name}`);
    seen.add(env.name);
    if (typeof env.baseUrl !== "string" || !/^https?:\/\//.test(env.baseUrl))
      throw bad(`${p}/baseUrl`, "must be an http(s) URL ending in /api/v1");
    if (typeof env.apiKeyEnv !== "string" || !ENV_VAR.test(env.apiKeyEnv))
      throw bad(`${p}/apiKeyEnv`, "must be an environment variable NAME (not a key)");
    if (env.definitionUrl !== undefined && typeof env.definitionUrl !== "string")
      throw bad(`${p}/definitionUrl`, "must be a URL");
    return {
      name: env.name,
      baseUrl: env.baseUrl,
      apiKeyEnv: env.apiKeyEnv,
      ...(typeof env.definitionUrl === "string" ? { definitionUrl: env.definitionUrl } : {}),
    };
  });
  return { schemas, generatedOut, environments };
}

/** Finds wfr.config.json in `from` or a parent folder. */
export function findConfigFile(from: string): string | undefined {
  let dir = resolve(from);
  for (;;) {
    const candidate = join(dir, CONFIG_FILE);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export function loadConfig(cwd: string, explicit?: string): LoadedConfig {
  const file = explicit ? resolve(cwd, explicit) : findConfigFile(cwd);
  if (file === undefined || !existsSync(file))
    throw new CliError(
      `no ${CONFIG_FILE} found from ${cwd} upwards (run \`wfr init\`)`,
      EXIT.USAGE,
    );
  let raw: unknown;
  try {
    raw = JSON.parse(readTextFileWithin("--config", file, FILE_BUDGET.config));
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`${file}: not valid JSON: ${(error as Error).message}`, EXIT.USAGE);
  }
  return { ...parseConfig(raw, file), root: dirname(file), file };
}

export function pickEnvironment(config: WfrConfig, name: string | undefined): EnvironmentConfig {
  if (name === undefined) {
    if (config.environments.length === 1) return config.environments[0] as EnvironmentConfig;
    throw new CliError(
      `--env is required (environments: ${config.environments.map((e) => e.name).join(", ")})`,
      EXIT.USAGE,
    );
  }
  const env = config.environments.find((e) => e.name === name);
  if (!env)
    throw new CliError(
      `unknown environment ${JSON.stringify(name)} (environments: ${config.environments.map((e) => e.name).join(", ")})`,
      EXIT.USAGE,
    );
  return env;
}
