// `<workflow>.types.d.ts`: the Inputs and Outputs interfaces, written out
// (no zod inference for an app's tsc to check), fields in definition order.
import { docComment, stringLiteral } from "../escape.js";
import { members, recursiveType, type TypeImports } from "../field-kinds.js";
import type { WorkflowModel } from "../model.js";

export function typesDeclarations(wf: WorkflowModel): string {
  const imports: TypeImports = { fileInput: false, fileOutput: false, json: false };
  const inputs = members(wf.inputs, { side: "input", imports, indent: "  " }).join("\n");
  const outputs = members(wf.outputs, { side: "output", imports, indent: "  " }).join("\n");
  // Written before the imports are collected: their fields may need them too.
  const named = (wf.recursiveTypes ?? []).flatMap((t) => [
    docComment([
      `A recursive schema of the ${t.side}s of ${stringLiteral(wf.name)} (it contains itself).`,
    ]).trimEnd(),
    `export type ${t.name} = ${recursiveType(t, { side: t.side, imports, indent: "" })};`,
    "",
  ]);
  const runtimeNames = [
    ...(imports.fileInput ? ["FileInput"] : []),
    ...(imports.fileOutput ? ["FileOutputReference"] : []),
  ];
  const lines: string[] = [];
  if (runtimeNames.length > 0)
    lines.push(`import type { ${runtimeNames.join(", ")} } from "@wfr/runtime";`);
  if (imports.json) lines.push(`import type { JsonArray, JsonObject } from "../_shared/json.js";`);
  if (runtimeNames.length > 0 || imports.json) lines.push("");
  lines.push(
    docComment([
      `Inputs of ${stringLiteral(wf.name)} (${wf.id}), as the caller passes them. Fields with a saved default are optional.`,
    ]).trimEnd(),
    inputs === "" ? "export interface Inputs {}" : `export interface Inputs {\n${inputs}\n}`,
    "",
    docComment([
      `Outputs of ${stringLiteral(wf.name)} (${wf.id}) in a successful result. The service may add fields.`,
    ]).trimEnd(),
    outputs === "" ? "export interface Outputs {}" : `export interface Outputs {\n${outputs}\n}`,
    "",
    ...named,
  );
  return lines.join("\n");
}
