// Emits @wfr/generated from the normalized model: what consumers load
// directly, with no build step in between (Prisma's client does the same).
// Every module is a plain ES module (`.js`) beside a declaration file
// (`.d.ts`) whose types are written out, so an app's `tsc` reads plain
// interfaces and never checks zod's inference; the agreement of the zod
// schemas with those interfaces is checked once, in the generator's tests,
// through `emitSchemaCheckSources`. Pure apart from reading the compiled
// shared modules: models in, files (relative path -> content) out, already
// indented (no formatter pass). Every definition string goes through
// escape.ts. One file per output kind: types-module, schema-module,
// definition-module, environment-module, index-module.
import type { EnvironmentModel } from "../model.js";
import { definitionDeclarations, definitionModule } from "./definition-module.js";
import {
  ENVIRONMENT_MODULE,
  environmentDeclarations,
  environmentModule,
} from "./environment-module.js";
import { DEFAULT_REGENERATE_COMMAND, header, MANIFEST_FILE, SHARED_DIR } from "./header.js";
import { environmentIndex, environmentIndexDeclarations } from "./index-module.js";
import { schemaDeclarations, schemaModule } from "./schema-module.js";
import { SHARED_MODULES, sharedModuleText } from "./shared-modules.js";
import { typesDeclarations } from "./types-module.js";

export type GeneratedFiles = Map<string, string>;

export interface EmitOptions {
  /** The command the headers tell a person to run (`wfr generate`, `npx wfr generate`, `pnpm generate`). */
  readonly regenerate?: string;
}

/**
 * The output folder's own package.json: its `.js` files are ES modules even
 * inside a CommonJS app (no `"type"`), for Node, TypeScript and bundlers alike.
 */
const OUTPUT_PACKAGE_JSON = `${JSON.stringify({ type: "module", sideEffects: false }, null, 2)}\n`;

/** `wfr-manifest.json`: each environment's definition file and its sha256, the only place the hash is written. */
function manifest(models: readonly EnvironmentModel[]): string {
  const environments: Record<string, { source: string; sha256: string }> = {};
  for (const env of [...models].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)))
    environments[env.name] = { source: env.sourceFile, sha256: env.sourceHash };
  return `${JSON.stringify({ generator: "@wfr/codegen", environments }, null, 2)}\n`;
}

/** Every file of the generated package's output folder, keyed by POSIX path relative to it, sorted. */
export function emit(
  models: readonly EnvironmentModel[],
  options: EmitOptions = {},
): GeneratedFiles {
  const regenerate = options.regenerate ?? DEFAULT_REGENERATE_COMMAND;
  const files = new Map<string, string>();
  const shared = header(undefined, regenerate);
  // Shared modules live under `_shared/`: environment names cannot start with "_", so no
  // environment (not even one named `support` or `json`) can replace them.
  for (const name of SHARED_MODULES)
    for (const ext of [".js", ".d.ts"] as const)
      files.set(`${SHARED_DIR}/${name}${ext}`, `${shared}\n${sharedModuleText(name, ext)}`);
  files.set("package.json", OUTPUT_PACKAGE_JSON);
  files.set(MANIFEST_FILE, manifest(models));
  for (const env of models) {
    const top = `${header(env.sourceFile, regenerate)}\n`;
    const entry = `${top}export * from "./${env.name}/index.js";\n`;
    files.set(`${env.name}.js`, entry);
    files.set(`${env.name}.d.ts`, entry);
    files.set(`${env.name}/${ENVIRONMENT_MODULE}.js`, top + environmentModule(env));
    files.set(`${env.name}/${ENVIRONMENT_MODULE}.d.ts`, top + environmentDeclarations(env));
    files.set(`${env.name}/index.js`, top + environmentIndex(env));
    files.set(`${env.name}/index.d.ts`, top + environmentIndexDeclarations(env));
    for (const wf of env.workflows) {
      const base = `${env.name}/${wf.identifier}`;
      files.set(`${base}.types.d.ts`, top + typesDeclarations(wf));
      files.set(`${base}.schema.js`, top + schemaModule(wf, "js"));
      files.set(`${base}.schema.d.ts`, top + schemaDeclarations(wf));
      files.set(`${base}.js`, top + definitionModule(env, wf));
      files.set(`${base}.d.ts`, top + definitionDeclarations(env, wf));
    }
  }
  const sorted = new Map<string, string>();
  for (const path of [...files.keys()].sort()) sorted.set(path, files.get(path) as string);
  return sorted;
}

/**
 * The schema modules as TypeScript with `z.ZodMiniType<Inputs>` annotations,
 * keyed like `emit`'s output (`<env>/<identifier>.schema.check.ts`). Not
 * written by `generate`: the tests compile them beside the emitted `.d.ts`
 * files, which proves the zod schemas agree with the declared types without
 * any consumer paying for that check.
 */
export function emitSchemaCheckSources(models: readonly EnvironmentModel[]): GeneratedFiles {
  const files = new Map<string, string>();
  for (const env of models)
    for (const wf of env.workflows)
      files.set(`${env.name}/${wf.identifier}.schema.check.ts`, schemaModule(wf, "ts"));
  return files;
}
