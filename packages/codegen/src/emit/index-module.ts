// `<env>/index.js` (+ `.d.ts`): the environment and every workflow of it,
// keyed by identifier. Importing it loads each definition module, but builds
// no schema (schemas are built on first use).
import { baseUrlVariable } from "@wfr/protocol";
import { docComment, stringLiteral } from "../escape.js";
import { pascalCase } from "../identifiers.js";
import type { EnvironmentModel, WorkflowModel } from "../model.js";

function sortedWorkflows(env: EnvironmentModel): WorkflowModel[] {
  return [...env.workflows].sort((a, b) =>
    a.identifier < b.identifier ? -1 : a.identifier > b.identifier ? 1 : 0,
  );
}

export function environmentIndex(env: EnvironmentModel): string {
  const wfs = sortedWorkflows(env);
  const lines: string[] = [
    'import { runTimeBaseUrl as runTimeBaseUrl$ } from "../_shared/support.js";',
  ];
  for (const wf of wfs)
    lines.push(`import { ${wf.identifier} as wf$${wf.identifier} } from "./${wf.identifier}.js";`);
  lines.push(
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
    `/** The ${env.name} environment. */`,
    "export declare const environment: {",
    `  readonly name: ${stringLiteral(env.name)};`,
    `  readonly workspace: ${stringLiteral(env.workspace ?? "")};`,
    `${docComment([`${env.baseUrl} (the definition's), or \`${baseUrlVariable(env.name)}\` where the process has it.`], "  ")}  readonly baseUrl: string;`,
    "};",
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
