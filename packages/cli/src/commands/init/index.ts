// `wfr init`: adds wfr.config.json, schemas/, package scripts, the `#wfr/*`
// import alias and a CI workflow. Idempotent: only what is missing is planned;
// the plan is shown and, in a TTY, confirmed before anything is written.
// `wfr init --add-env` adds one more environment to an initialised repository.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { apiKeyVariable } from "@wfr/protocol";
import { writeFileAtomic } from "../../atomic-write.js";
import { CliError } from "../../cli-error.js";
import { CONFIG_FILE, type EnvironmentConfig, parseConfig, type WfrConfig } from "../../config.js";
import { EXIT } from "../../exit-codes.js";
import { installCommand, usesPlugNPlay, wfrCommand } from "../../package-manager.js";
import { terminal } from "../../terminal.js";
import { type InitPlan, planInit, readPackageJson } from "./plan.js";

/** Where a key comes from, said wherever a key variable is asked for or named. */
export const KEY_SOURCE =
  "a scoped workspace key of the environment, created in the Workflow Run application under its resources section (where your role permits; scopes workflows:run and runs:read); for local work `wfr emulator` prints one";

const ENV_NAME = /^[a-z][a-z0-9_-]*$/;
const ENV_VAR = /^[A-Z_][A-Z0-9_]*$/;
const BASE_URL = /^https?:\/\/.+\/api\/v1\/?$/;

interface InitOptions {
  yes?: boolean;
  input?: boolean;
  env?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  addEnv?: boolean;
}

type Prompts = typeof import("@clack/prompts");

async function ask(
  prompts: Prompts,
  message: string,
  check: (v: string) => string | undefined,
  initialValue?: string,
): Promise<string | undefined> {
  const answer = await prompts.text({
    message,
    ...(initialValue ? { initialValue } : {}),
    validate: (v) => check(v ?? ""),
  });
  return prompts.isCancel(answer) ? undefined : answer;
}

const checkEnvName = (v: string) =>
  ENV_NAME.test(v) ? undefined : "a name like production or staging ([a-z][a-z0-9_-]*)";
const checkBaseUrl = (v: string) =>
  BASE_URL.test(v) ? undefined : "an http(s) URL ending in /api/v1";
const checkKeyVar = (v: string) =>
  ENV_VAR.test(v) ? undefined : "an environment variable NAME such as WFR_PRODUCTION_API_KEY";

const FLAGS_HELP =
  "without a terminal pass --yes --env <name> --base-url <url ending in /api/v1> [--api-key-env <VAR>]";

/** The environment to add: from the flags, or asked for at a prompt (name, base URL, key variable). */
async function environmentFrom(
  options: InitOptions,
  interactive: boolean,
  t: ReturnType<typeof terminal>,
): Promise<EnvironmentConfig | undefined> {
  let name = options.env;
  let baseUrl = options.baseUrl;
  let apiKeyEnv = options.apiKeyEnv;
  if (!interactive) {
    if (baseUrl === undefined)
      throw new CliError(`--base-url is required: ${FLAGS_HELP}`, EXIT.USAGE);
    name ??= "production";
  } else {
    const prompts = await import("@clack/prompts");
    if (name === undefined) {
      name = await ask(prompts, "Environment name", checkEnvName, "production");
      if (name === undefined) return undefined;
    }
    if (baseUrl === undefined) {
      baseUrl = await ask(prompts, `API base URL of ${name} (ends in /api/v1)`, checkBaseUrl);
      if (baseUrl === undefined) return undefined;
    }
    if (apiKeyEnv === undefined) {
      t.stderr.write(`The key itself is never written to a file. It is ${KEY_SOURCE}.\n`);
      apiKeyEnv = await ask(
        prompts,
        `Name of the environment variable that will hold the ${name} API key`,
        checkKeyVar,
        apiKeyVariable(name),
      );
      if (apiKeyEnv === undefined) return undefined;
    }
  }
  apiKeyEnv ??= apiKeyVariable(name);
  for (const [flag, value, check] of [
    ["--env", name, checkEnvName],
    ["--base-url", baseUrl, checkBaseUrl],
    ["--api-key-env", apiKeyEnv, checkKeyVar],
  ] as const) {
    const problem = check(value);
    if (problem)
      throw new CliError(`${flag} ${JSON.stringify(value)}: must be ${problem}`, EXIT.USAGE);
  }
  return { name, baseUrl, apiKeyEnv };
}

export async function initCommand(options: InitOptions): Promise<number> {
  const t = terminal({ noInput: options.input === false });
  const root = process.cwd();
  // Before any prompt: without a package.json there is no project to add wfr to.
  readPackageJson(root);
  const configFile = join(root, CONFIG_FILE);
  const existing = existsSync(configFile)
    ? parseConfig(JSON.parse(readFileSync(configFile, "utf8")), configFile)
    : undefined;
  const interactive = t.interactive && options.yes !== true;
  if (!interactive && !options.yes) throw new CliError(`not a terminal: ${FLAGS_HELP}`, EXIT.USAGE);

  let config: WfrConfig;
  let rewriteConfig = false;
  if (existing === undefined || options.addEnv) {
    if (existing && options.env && existing.environments.some((e) => e.name === options.env))
      throw new CliError(
        `${CONFIG_FILE} already has an environment ${JSON.stringify(options.env)}`,
        EXIT.USAGE,
      );
    const env = await environmentFrom(options, interactive, t);
    if (env === undefined) {
      t.stderr.write("wfr: nothing written\n");
      return EXIT.USAGE;
    }
    if (existing?.environments.some((e) => e.name === env.name))
      throw new CliError(
        `${CONFIG_FILE} already has an environment ${JSON.stringify(env.name)}`,
        EXIT.USAGE,
      );
    config = existing
      ? { ...existing, environments: [...existing.environments, env] }
      : { schemas: "schemas", generatedOut: "wfr-generated", environments: [env] };
    rewriteConfig = existing !== undefined;
  } else {
    // An environment named on an initialised repository is not silently ignored.
    const unknown =
      options.env !== undefined && !existing.environments.some((e) => e.name === options.env);
    if (unknown)
      throw new CliError(
        `${CONFIG_FILE} has no environment ${JSON.stringify(options.env)} (it has ${existing.environments.map((e) => e.name).join(", ")}); add one with \`${wfrCommand(root, `init --add-env --env ${options.env} --base-url <url>`)}\``,
        EXIT.USAGE,
      );
    config = existing;
  }

  const plan = planInit(root, config, { rewriteConfig });
  const scriptNames = Object.keys(plan.scripts);
  const importNames = Object.keys(plan.imports);
  const advice = plan.tsconfigAdvice.map((line) => `  ! ${line}\n`).join("");
  if (plan.files.length === 0 && scriptNames.length === 0 && importNames.length === 0) {
    t.stderr.write(`wfr: already initialized; nothing to write\n${advice}`);
    return EXIT.OK;
  }
  t.stderr.write("wfr init will write:\n");
  for (const f of plan.files) t.stderr.write(`  + ${f.path}  (${f.why})\n`);
  if (scriptNames.length > 0)
    t.stderr.write(
      `  ~ package.json scripts: ${scriptNames.map((n) => `${n}="${plan.scripts[n]}"`).join(", ")}\n`,
    );
  for (const name of importNames)
    t.stderr.write(
      `  ~ package.json imports: "${name}": "${plan.imports[name]}" (import generated code as #wfr/<env>/environment and #wfr/<env>/<workflow>)\n`,
    );
  if (advice) t.stderr.write(`and leave tsconfig.json as it is:\n${advice}`);
  if (interactive) {
    const prompts = await import("@clack/prompts");
    const ok = await prompts.confirm({ message: "Write these files?" });
    if (prompts.isCancel(ok) || ok !== true) {
      t.stderr.write("wfr: nothing written\n");
      return EXIT.USAGE;
    }
  }
  for (const f of plan.files) writeFileAtomic(join(root, f.path), f.content);
  if (scriptNames.length > 0 || importNames.length > 0) {
    const pkgFile = join(root, "package.json");
    const pkg = readPackageJson(root);
    if (scriptNames.length > 0) pkg.scripts = { ...pkg.scripts, ...plan.scripts };
    if (importNames.length > 0) pkg.imports = { ...pkg.imports, ...plan.imports };
    writeFileAtomic(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
  }
  const first = config.environments[config.environments.length - 1] as EnvironmentConfig;
  t.stderr.write(
    [
      `wfr: wrote ${writtenSummary(plan)}.${advice ? " tsconfig.json left as it is (see above)." : ""} Next:`,
      ...(plan.missingDevPackages.length > 0
        ? [
            `  ${installCommand(root, plan.missingDevPackages.join(" "), true)}   # what tsconfig.json and the CI type-check use`,
          ]
        : []),
      ...(usesPlugNPlay(root) ? [PLUG_N_PLAY_NOTE] : []),
      `  export ${first.apiKeyEnv}=...   # ${KEY_SOURCE}`,
      `  ${wfrCommand(root, "schemas pull")}`,
      `  ${wfrCommand(root, "generate")}`,
      // The environment and each workflow by its own module: `#wfr/<env>`, the index, makes every
      // app pay for every workflow of the environment (type-check and bundle, docs/benchmarks.md).
      `  then in your code: import { environment } from "#wfr/${first.name}/environment";`,
      `  and each workflow from its own module: import { <workflow> } from "#wfr/${first.name}/<workflow>"; (the names: wfr-generated/${first.name}/)`,
      "",
    ].join("\n"),
  );
  return EXIT.OK;
}

/**
 * TypeScript 7's native tsc resolves packages from node_modules only; Yarn patches TypeScript 5's
 * JavaScript compiler for Plug'n'Play, which is why `yarn tsc` works there with 5 and not with 7.
 */
const PLUG_N_PLAY_NOTE =
  "  # Yarn Plug'n'Play: TypeScript 7's tsc cannot resolve packages without node_modules (TS2688 \"node\"); set `nodeLinker: node-modules` in .yarnrc.yml, or use TypeScript 5.9";

/** The files and package.json entries just written, as the closing message names them. */
function writtenSummary(plan: InitPlan): string {
  const entries = [
    ...Object.keys(plan.scripts).map((name) => `script ${name}`),
    ...Object.keys(plan.imports).map((name) => `import alias ${name}`),
  ];
  return [
    ...plan.files.map((f) => f.path),
    ...(entries.length > 0 ? [`package.json (${entries.join(", ")})`] : []),
  ].join(", ");
}
