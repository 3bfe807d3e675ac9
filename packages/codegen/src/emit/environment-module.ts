// `<env>/environment.js` (+ `.d.ts`): the environment alone (name, workspace, base URL), what
// `createClient({ environment })` needs. A module of its own so that an app importing it with one
// workflow's module (`#wfr/<env>/environment`, `#wfr/<env>/<workflow>`) loads two small modules,
// not the index and through it every workflow of the environment: at 3,000 workflows the index
// costs an app 8x the type-check and a worker a third more bundle (bench `type-check`, `bundle`;
// docs/benchmarks.md). The index re-exports this same object.
import { baseUrlVariable } from "@wfr/protocol";
import { docComment, stringLiteral } from "../escape.js";
import type { EnvironmentModel } from "../model.js";

/** The module's file name inside `<env>/`, without extension; no workflow identifier can take it. */
export const ENVIRONMENT_MODULE = "environment";

export function environmentModule(env: EnvironmentModel): string {
  return [
    'import { runTimeBaseUrl as runTimeBaseUrl$ } from "../_shared/support.js";',
    "",
    `/** The ${env.name} environment. */`,
    "export const environment = Object.freeze({",
    `  name: ${stringLiteral(env.name)},`,
    // The runtime's EnvironmentInfo wants a string; "" when the definition has no info.x-workspace.
    `  workspace: ${stringLiteral(env.workspace ?? "")},`,
    // A getter: the override is read when a client is created, not at import (no permission needed).
    `  get baseUrl() {`,
    `    return runTimeBaseUrl$(${stringLiteral(baseUrlVariable(env.name))}, ${stringLiteral(env.baseUrl)});`,
    "  },",
    "});",
    "",
  ].join("\n");
}

export function environmentDeclarations(env: EnvironmentModel): string {
  return [
    `/** The ${env.name} environment. */`,
    "export declare const environment: {",
    `  readonly name: ${stringLiteral(env.name)};`,
    `  readonly workspace: ${stringLiteral(env.workspace ?? "")};`,
    `${docComment([`${env.baseUrl} (the definition's), or \`${baseUrlVariable(env.name)}\` where the process has it.`], "  ")}  readonly baseUrl: string;`,
    "};",
    "",
  ].join("\n");
}
