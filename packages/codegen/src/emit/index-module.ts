// `<env>/index.js` (+ `.d.ts`): the environment and every workflow of it,
// keyed by identifier. Importing it loads each definition module, but builds
// no schema (schemas are built on first use); an app that uses a few
// workflows imports `./environment.js` and their own modules instead, and
// does not pay for the others (environment-module.ts says what that saves).
import { docComment, stringLiteral } from "../escape.js";
import { pascalCase } from "../identifiers.js";
import type { EnvironmentModel, WorkflowModel } from "../model.js";
import { ENVIRONMENT_MODULE } from "./environment-module.js";

function sortedWorkflows(env: EnvironmentModel): WorkflowModel[] {
  return [...env.workflows].sort((a, b) =>
    a.identifier < b.identifier ? -1 : a.identifier > b.identifier ? 1 : 0,
  );
}

export function environmentIndex(env: EnvironmentModel): string {
  const wfs = sortedWorkflows(env);
  const lines: string[] = [];
  for (const wf of wfs)
    lines.push(`import { ${wf.identifier} as wf$${wf.identifier} } from "./${wf.identifier}.js";`);
  lines.push(
    "",
    // The same object as `./environment.js` exports, so both imports make equal clients.
    `export { environment } from "./${ENVIRONMENT_MODULE}.js";`,
    "",
    `/** Every workflow of ${env.name}, keyed by identifier. */`,
    "export const workflows = Object.freeze({",
    ...wfs.map((wf) => `  ${wf.identifier}: wf$${wf.identifier},`),
    "});",
    "",
  );
  return lines.join("\n");
}

export function environmentIndexDeclarations(env: EnvironmentModel): string {
  const wfs = sortedWorkflows(env);
  const lines: string[] = [];
  for (const wf of wfs) {
    const P = pascalCase(wf.identifier);
    lines.push(`import type { ${P}Definition as wf$${P}Definition } from "./${wf.identifier}.js";`);
  }
  lines.push("");
  for (const wf of wfs) {
    const P = pascalCase(wf.identifier);
    lines.push(
      `export type { Inputs as ${P}Inputs, Outputs as ${P}Outputs, ${P}Definition } from "./${wf.identifier}.js";`,
    );
  }
  lines.push(
    "",
    `export { environment } from "./${ENVIRONMENT_MODULE}.js";`,
    "",
    `/** Every workflow of ${env.name}, keyed by identifier. */`,
    "export declare const workflows: {",
    ...wfs.map(
      (wf) =>
        `${docComment([`${stringLiteral(wf.name)} (${wf.id}), ${wf.state}`], "  ")}  readonly ${wf.identifier}: wf$${pascalCase(wf.identifier)}Definition;`,
    ),
    "};",
    "",
  );
  return lines.join("\n");
}
