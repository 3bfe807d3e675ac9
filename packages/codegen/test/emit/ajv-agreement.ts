// Shared by the emit tests that hold the generated code to Ajv: each case's
// schema is the input (and output) `v` of one workflow; every document gets
// Ajv's verdict from the input validator, a valid one passes the output
// reader (outputs are read, not policed) and is assignable to Inputs (one tsc
// program for all of them).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { emitSchemaCheckSources } from "../../src/emit/emit.js";
import { generate } from "../../src/generate.js";
import { definition, projectDir, typeCheck, writeJson } from "../helpers.js";

export interface AgreementCase {
  readonly schema: Record<string, unknown>;
  readonly documents: readonly unknown[];
}

export interface Workflow {
  id: string;
  validateInputs(v: unknown): { field: string; reason: string }[];
  checkOutputs(v: unknown): unknown[];
}

/** Verdicts (ours and expected, one line per document), the workflows by id and the tsc diagnostics. */
export async function run(
  cases: Record<string, AgreementCase>,
  openapi: string,
  environment: string,
  options: {
    /** `components/schemas` the cases' `$ref`s point into (Ajv reads them at the same pointers). */
    readonly components?: Record<string, unknown>;
    /** Also type-check the TypeScript flavour of the schema modules (their agreement with the types). */
    readonly checkSchemas?: boolean;
  } = {},
): Promise<{
  verdicts: string[];
  expected: string[];
  byId: Map<string, Workflow>;
  diagnostics: ReturnType<typeof typeCheck>;
  /** The project folder (the generated code is in `gen/`). */
  dir: string;
}> {
  const names = Object.keys(cases);
  const dir = projectDir();
  writeJson(
    join(dir, "schemas", environment, "openapi.json"),
    definition(
      names.map((name, i) => ({
        id: `wf_${i}`,
        name: `Case ${name}`,
        inputs: {
          type: "object",
          additionalProperties: false,
          required: ["v"],
          properties: { v: cases[name]?.schema },
        },
        outputs: { type: "object", properties: { v: cases[name]?.schema } },
      })),
      { environment, openapi, ...(options.components ? { components: options.components } : {}) },
    ),
  );
  const { models } = generate({ schemas: join(dir, "schemas"), out: join(dir, "gen") });
  const roots = ["app.ts"];
  if (options.checkSchemas)
    for (const [path, content] of emitSchemaCheckSources(models)) {
      writeFileSync(join(dir, "gen", path), content);
      roots.push(join("gen", path));
    }
  const index = (await import(pathToFileURL(join(dir, "gen", environment, "index.js")).href)) as {
    workflows: Record<string, Workflow>;
  };
  const byId = new Map(Object.values(index.workflows).map((w) => [w.id, w]));
  // 3.0 is draft 4; Ajv's draft-07 reads what these tests use of it (items lists, dependencies) alike.
  const ajv = openapi.startsWith("3.0")
    ? new Ajv({ strict: false })
    : new Ajv2020({ strict: false });
  const verdicts: string[] = [];
  const expected: string[] = [];
  const app: string[] = [];
  names.forEach((name, i) => {
    const { schema, documents } = cases[name] as AgreementCase;
    const workflow = byId.get(`wf_${i}`) as Workflow;
    const valid = ajv.compile(
      options.components ? { ...schema, components: { schemas: options.components } } : schema,
    );
    const module = `case${name[0]?.toUpperCase()}${name.slice(1)}`;
    app.push(`import type { Inputs as I${i} } from "./gen/${environment}/${module}.js";`);
    documents.forEach((doc, j) => {
      const label = `${name} ${JSON.stringify(doc)}`;
      const ok = valid(doc) === true;
      expected.push(`${label}: ${ok}`);
      verdicts.push(`${label}: ${workflow.validateInputs({ v: doc }).length === 0}`);
      if (ok) {
        expected.push(`${label} (outputs): true`);
        verdicts.push(`${label} (outputs): ${workflow.checkOutputs({ v: doc }).length === 0}`);
        app.push(`export const v${i}_${j}: I${i} = { v: ${JSON.stringify(doc)} };`);
      }
    });
  });
  writeFileSync(join(dir, "app.ts"), app.join("\n"));
  return {
    dir,
    verdicts,
    expected,
    byId,
    diagnostics: typeCheck(dir, roots, { exactOptionalPropertyTypes: true }),
  };
}
