// `<workflow>.js` (+ `.d.ts`): the workflow's definition object, with its
// input builder and output reader, and the module functions beside it.
import { baseUrlVariable } from "@wfr/protocol";
import { docComment, jsonLiteral, stringLiteral } from "../escape.js";
import { pascalCase } from "../identifiers.js";
import type { EnvironmentModel, WorkflowModel } from "../model.js";

/** The model names launch accepts for the workflow in this environment (none when not exposed). */
function models(wf: WorkflowModel): readonly string[] {
  if (!wf.modelExposed) return [];
  return wf.modelValues ?? ["pro", "flash", "lite", "max"];
}

/** The `Model` type argument: the names this environment lists, `never` when `model` is not exposed. */
function modelType(wf: WorkflowModel): string {
  const names = models(wf);
  return names.length === 0 ? "never" : names.map((m) => stringLiteral(m)).join(" | ");
}

export function definitionModule(env: EnvironmentModel, wf: WorkflowModel): string {
  const id = wf.identifier;
  const P = pascalCase(id);
  return [
    `import { downloadFileOutput as downloadFileOutput$ } from "@wfr/runtime";`,
    `import { InvalidInputsError as InvalidInputsError$, InvalidOutputsError as InvalidOutputsError$, runTimeBaseUrl as runTimeBaseUrl$ } from "../_shared/support.js";`,
    `import * as schema$ from "./${id}.schema.js";`,
    "",
    `export { InvalidInputsError, InvalidOutputsError } from "../_shared/support.js";`,
    "",
    docComment([
      `${stringLiteral(wf.name)} (${wf.id}), revision ${wf.revision}, ${wf.state}.`,
    ]).trimEnd(),
    `export const ${id} = Object.freeze({`,
    `  id: ${stringLiteral(wf.id)},`,
    `  name: ${stringLiteral(wf.name)},`,
    `  environment: ${stringLiteral(env.name)},`,
    `  state: ${stringLiteral(wf.state)},`,
    `  revision: ${wf.revision},`,
    `  modelExposed: ${wf.modelExposed},`,
    `  models: Object.freeze(${jsonLiteral(models(wf))}),`,
    "  get inputSchema() {",
    "    return schema$.inputSchema();",
    "  },",
    "  get outputSchema() {",
    "    return schema$.outputSchema();",
    "  },",
    "  validateInputs: schema$.validateInputs,",
    "  checkOutputs: schema$.checkOutputs,",
    `  buildInputs: build${P}Inputs,`,
    `  readOutputs: read${P}Outputs,`,
    "});",
    "",
    "/** Checks inputs before launch; throws InvalidInputsError (with the server's reason codes) when they are not valid. */",
    `export function build${P}Inputs(inputs) {`,
    "  const issues = schema$.validateInputs(inputs);",
    `  if (issues.length > 0) throw new InvalidInputsError$(${stringLiteral(wf.id)}, issues);`,
    "  return inputs;",
    "}",
    "",
    "/** Reads the outputs of a successful result; throws InvalidOutputsError when they do not match. */",
    `export function read${P}Outputs(outputs) {`,
    "  const result = schema$.outputSchema().safeParse(outputs);",
    `  if (!result.success) throw new InvalidOutputsError$(${stringLiteral(wf.id)}, schema$.checkOutputs(outputs));`,
    "  return result.data;",
    "}",
    "",
    "/** Fetches a file output's bytes from its download_url, as given, under the runtime's download policy: the environment's root and `allowedOrigins` only. */",
    "export function download(reference, options) {",
    `  return downloadFileOutput$(reference, { baseUrl: runTimeBaseUrl$(${stringLiteral(baseUrlVariable(env.name))}, ${stringLiteral(env.baseUrl)}), ...options });`,
    "}",
    "",
  ].join("\n");
}

export function definitionDeclarations(env: EnvironmentModel, wf: WorkflowModel): string {
  const id = wf.identifier;
  const P = pascalCase(id);
  const launchable =
    wf.state === "enabled" ? "" : ` Its state is ${wf.state}: readable, not launchable.`;
  return [
    "import type {",
    "  DownloadFileOutputOptions as DownloadFileOutputOptions$,",
    "  FileOutputReference as FileOutputReference$,",
    "  WorkflowDefinition as WorkflowDefinition$,",
    `} from "@wfr/runtime";`,
    `import type { Inputs as Inputs$, Outputs as Outputs$ } from "./${id}.types.js";`,
    "",
    `export { InvalidInputsError, InvalidOutputsError } from "../_shared/support.js";`,
    `export type { ${["Inputs", "Outputs", ...(wf.recursiveTypes ?? []).map((t) => t.name)].join(", ")} } from "./${id}.types.js";`,
    "",
    docComment([
      `The type of the ${stringLiteral(wf.name)} (${wf.id}) definition in ${env.name}, with its input builder and output reader.${launchable}`,
    ]).trimEnd(),
    `export type ${P}Definition = WorkflowDefinition$<${stringLiteral(wf.id)}, Inputs$, Outputs$, ${stringLiteral(wf.state)}, ${wf.modelExposed}, ${modelType(wf)}> & {`,
    "  /** Checks inputs before launch; throws InvalidInputsError (with the server's reason codes) when they are not valid. */",
    "  buildInputs(inputs: Inputs$): Inputs$;",
    "  /** Reads the outputs of a successful result; throws InvalidOutputsError when they do not match. */",
    "  readOutputs(outputs: unknown): Outputs$;",
    "};",
    "",
    docComment([
      `${stringLiteral(wf.name)} (${wf.id}), revision ${wf.revision}, ${wf.state}.${launchable}`,
      wf.description,
    ]).trimEnd(),
    `export declare const ${id}: ${P}Definition;`,
    "",
    "/** Checks inputs before launch; throws InvalidInputsError (with the server's reason codes) when they are not valid. */",
    `export declare function build${P}Inputs(inputs: Inputs$): Inputs$;`,
    "",
    "/** Reads the outputs of a successful result; throws InvalidOutputsError when they do not match. File outputs are download references. */",
    `export declare function read${P}Outputs(outputs: unknown): Outputs$;`,
    "",
    "/** Fetches a file output's bytes from its download_url, as given, under the runtime's download policy: this environment's root and `allowedOrigins` only (prefer `client.downloadFileOutput`, which knows the client's base URL). */",
    "export declare function download(reference: FileOutputReference$, options?: DownloadFileOutputOptions$): Promise<Response>;",
    "",
  ].join("\n");
}
