// `<workflow>.schema.js` (+ `.d.ts`): the zod schemas, built on first use, and
// the validators with the server's reason codes. The same template writes the
// TypeScript flavour with `z.ZodMiniType<Inputs>` annotations that the tests
// compile (emitSchemaCheckSources), so the agreement of the schemas with the
// declared types is checked once, never in a consumer's build.
import { commentLines, stringLiteral } from "../escape.js";
import {
  type Flavour,
  hasJsonEnum,
  hasRules,
  inputsObjectSchema,
  objectShape,
  recursiveSchema,
  type Side,
  usesKind,
} from "../field-kinds.js";
import type { FieldModel, RecursiveType, WorkflowModel } from "../model.js";
import { QUICK_SUPPORT, quickChecks } from "./quick-check.js";

/** The local schemas one side's schema refers to, declared inside its lazy builder. */
function sharedSchemas(fields: readonly FieldModel[], side: Side, flavour: Flavour): string[] {
  const out: string[] = [];
  if (usesKind(fields, ["file", "files"])) {
    out.push(
      side === "input"
        ? `const fileInput = z.custom${flavour === "ts" ? "<FileInput$>" : ""}(isFileInput$, { message: "Invalid input: expected a file made with file()" });`
        : // exactOptional: JSON never carries undefined, and the runtime's FileOutputReference says `mime_type?: string`.
          "const fileOutput = z.looseObject({ download_url: z.string(), filename: z.string(), mime_type: z.exactOptional(z.string()), size_bytes: z.exactOptional(z.number()), expires_at: z.exactOptional(z.nullable(z.string())) });",
    );
  }
  if (usesKind(fields, ["json"]))
    out.push(
      "const jsonObjectOrArray = z.union([z.record(z.string(), z.json()), z.array(z.json())]);",
    );
  return out;
}

/** The recursive types of one side, each a lazy schema the side's schema (and they) refer to by name. */
function recursiveSchemas(types: readonly RecursiveType[], flavour: Flavour): string[] {
  return types.map(
    (t) =>
      `const ${t.name}$${flavour === "ts" ? `: z.ZodMiniType<${t.name}>` : ""} = z.lazy(() => ${recursiveSchema(t, { side: t.side, indent: "    ", flavour })});`,
  );
}

const QUICK_DOC =
  "Whether the inputs are valid by a direct check of plain data (no copy, no schema): true only where the schema accepts them too; false means the schema decides.";

const QUICK_OUTPUTS_DOC =
  "Whether the outputs are valid by a direct check of plain data (no copy, no schema): true only where the schema accepts them too; false means the schema decides.";

function describe(wf: WorkflowModel): string {
  return commentLines(stringLiteral(wf.name)).join(" ");
}

export function schemaModule(wf: WorkflowModel, flavour: Flavour): string {
  const id = wf.identifier;
  const ts = flavour === "ts";
  const types = wf.recursiveTypes ?? [];
  const sideFields = (side: Side): FieldModel[] => [
    ...(side === "input" ? wf.inputs : wf.outputs),
    ...types.filter((t) => t.side === side).map((t) => t.field),
  ];
  const inputFields = sideFields("input");
  const needsFileInput = usesKind(inputFields, ["file", "files"]);
  const quick = quickChecks(wf.inputs, wf.outputs, flavour);
  const runtimeImports = [
    ...(needsFileInput
      ? [...(ts ? ["type FileInput as FileInput$"] : []), "isFileInput as isFileInput$"]
      : []),
    ...(ts ? ["type InputIssue as InputIssue$", "type OutputIssue as OutputIssue$"] : []),
  ];
  const ctx = (side: Side) => ({ side, indent: "    ", flavour });
  const named = (side: Side) =>
    recursiveSchemas(
      types.filter((t) => t.side === side),
      flavour,
    );
  // zod/mini has no preprocess: a transform piped into the schema is what classic's preprocess builds.
  const inputsBody = `z.pipe(z.transform(ownPropertiesWithinNesting), ${inputsObjectSchema(wf.inputs, ctx("input"))})`;
  const outputsBody = `z.pipe(z.transform(ownPropertiesWithinNesting), z.looseObject(${objectShape(wf.outputs, ctx("output"))}))`;
  // What the support imports are looked up in: the bodies and the recursive schemas they use.
  const inputsText = [inputsBody, ...named("input")].join("\n");
  const outputsText = [outputsBody, ...named("output")].join("\n");
  const supportImports = [
    ...(hasRules(inputFields) ? ["constraints as constraints$"] : []),
    ...(inputsText.includes("conditions$(") ? ["conditions as conditions$"] : []),
    ...(inputsText.includes("allOf$(") ? ["everyPart as everyPart$"] : []),
    ...Object.entries(QUICK_SUPPORT).flatMap(([name, spec]) =>
      quick.uses.has(name) ? [spec] : [],
    ),
    ...(inputsText.includes("protoKey$(") ? ["protoKey as protoKey$"] : []),
    ...(inputsText.includes("withoutProtoKey$") ? ["withoutProtoKey as withoutProtoKey$"] : []),
    ...(`${inputsText}${outputsText}`.includes("objectKeys$(")
      ? ["objectKeys as objectKeys$"]
      : []),
    ...(hasJsonEnum([...inputFields, ...sideFields("output")]) ? ["isOneOf as isOneOf$"] : []),
    "ownPropertiesWithinNesting",
    "toInputIssues",
    "toOutputIssues",
  ];
  const builder = (side: Side, name: string, type: string, doc: string, body: string) => {
    return [
      `let ${name}$${ts ? `: z.ZodMiniType<${type}> | undefined` : ""};`,
      "",
      doc,
      `export function ${name}()${ts ? `: z.ZodMiniType<${type}>` : ""} {`,
      `  if (${name}$ === undefined) {`,
      "    z.classicDefaults();",
      ...sharedSchemas(sideFields(side), side, flavour).map((l) => `    ${l}`),
      ...named(side).map((l) => `    ${l}`),
      `    ${name}$ = ${body};`,
      "  }",
      `  return ${name}$;`,
      "}",
    ].join("\n");
  };
  const parts: string[] = [];
  if (runtimeImports.length > 0)
    parts.push(`import { ${runtimeImports.join(", ")} } from "@wfr/runtime";`);
  parts.push(
    `import * as z from "@wfr/runtime/zod";`,
    `import { ${supportImports.join(", ")} } from "../_shared/support.js";`,
  );
  if (ts)
    parts.push(
      `import type { ${["Inputs as Inputs$", "Outputs as Outputs$", ...types.map((t) => t.name)].join(", ")} } from "./${id}.types.js";`,
    );
  if (inputsText.includes("allOf$("))
    parts.push(
      "",
      "/** Both parts hold, each checked on its own (JSON Schema's allOf: a closed part refuses keys the other declares). */",
      ts
        ? "function allOf$<A, B>(a: z.ZodMiniType<A>, b: z.ZodMiniType<B>): z.ZodMiniType<A & B> {\n  return z.unknown().check(z.superRefine(everyPart$([a, b]))) as unknown as z.ZodMiniType<A & B>;\n}"
        : "function allOf$(a, b) {\n  return z.unknown().check(z.superRefine(everyPart$([a, b])));\n}",
    );
  parts.push(
    "",
    builder(
      "input",
      "inputSchema",
      "Inputs$",
      `/** Strict schema of the inputs of ${describe(wf)}: no coercion, unknown keys rejected. Built on first use. */`,
      inputsBody,
    ),
    "",
    builder(
      "output",
      "outputSchema",
      "Outputs$",
      "/** Schema of the outputs; fields the service adds are kept, never rejected. Built on first use. */",
      outputsBody,
    ),
    "",
    ...quick.declarations.flatMap((declaration) => [declaration, ""]),
    `/** ${QUICK_DOC} */`,
    `export function inputsPlainlyValid(inputs${ts ? ": unknown): boolean" : ")"} {`,
    `  return ${quick.inputs}(inputs);`,
    "}",
    "",
    `/** ${QUICK_OUTPUTS_DOC} */`,
    `export function outputsPlainlyValid(outputs${ts ? ": unknown): boolean" : ")"} {`,
    `  return ${quick.outputs}(outputs);`,
    "}",
    "",
    "/** Validates inputs locally with the server's reason codes (INVALID_TYPE, REQUIRED, UNKNOWN_INPUT); empty when valid. */",
    `export function validateInputs(inputs${ts ? ": unknown): InputIssue$[]" : ")"} {`,
    "  // Plain valid data needs neither the copy nor the schema; the schema words every issue.",
    "  if (inputsPlainlyValid(inputs)) return [];",
    "  const result = inputSchema().safeParse(inputs);",
    "  return result.success ? [] : toInputIssues(result.error.issues, inputs);",
    "}",
    "",
    "/** Validates the outputs of a successful result; empty when valid. */",
    `export function checkOutputs(outputs${ts ? ": unknown): OutputIssue$[]" : ")"} {`,
    "  // A result parsed from JSON is plain data: most need neither the copy nor the schema.",
    "  if (outputsPlainlyValid(outputs)) return [];",
    "  const result = outputSchema().safeParse(outputs);",
    "  return result.success ? [] : toOutputIssues(result.error.issues);",
    "}",
    "",
  );
  return parts.join("\n");
}

export function schemaDeclarations(wf: WorkflowModel): string {
  const id = wf.identifier;
  return [
    `import type { InputIssue as InputIssue$, OutputIssue as OutputIssue$ } from "@wfr/runtime";`,
    `import type * as z from "@wfr/runtime/zod";`,
    `import type { Inputs as Inputs$, Outputs as Outputs$ } from "./${id}.types.js";`,
    "",
    `/** Strict schema of the inputs of ${describe(wf)}: no coercion, unknown keys rejected. Built on first use. */`,
    "export declare function inputSchema(): z.ZodMiniType<Inputs$>;",
    "/** Schema of the outputs; fields the service adds are kept, never rejected. Built on first use. */",
    "export declare function outputSchema(): z.ZodMiniType<Outputs$>;",
    `/** ${QUICK_DOC} */`,
    "export declare function inputsPlainlyValid(inputs: unknown): boolean;",
    `/** ${QUICK_OUTPUTS_DOC} */`,
    "export declare function outputsPlainlyValid(outputs: unknown): boolean;",
    "/** Validates inputs locally with the server's reason codes (INVALID_TYPE, REQUIRED, UNKNOWN_INPUT); empty when valid. */",
    "export declare function validateInputs(inputs: unknown): InputIssue$[];",
    "/** Validates the outputs of a successful result; empty when valid. */",
    "export declare function checkOutputs(outputs: unknown): OutputIssue$[];",
    "",
  ].join("\n");
}
