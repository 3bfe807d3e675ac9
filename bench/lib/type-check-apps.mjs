// The apps bench/cases/type-check.mjs compiles: one program per import shape, each using 1 or
// `count` workflows of the same generated environment, all with the same compiler options.
//   per-workflow  `@wfr/generated/bench/<workflow>` only, the client given a base URL
//   readme        what the README shows: `.../bench/environment` and each workflow's own module
//   index         `.../bench` (`environment` and `workflows`: every workflow of the environment)
//   ot            openapi-typescript 7 types + openapi-fetch (the case's anchor)
//   hey           @hey-api/openapi-ts: its generated SDK functions, types and fetch client
import { writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { benchId, OPENAPI_FETCH_DTS, RUNTIME_DTS, ZOD_DIR } from "./codegen-fixture.mjs";

export const SHAPES = ["per-workflow", "readme", "index", "ot", "hey"];

/** Where each competitor's output goes inside a case folder. */
export const OT_OUT = "ot";
export const HEY_OUT = "hey";

const BASE_URL = "http://localhost:8787/api/v1";

/** hey-api's names: `Workflow_wf_B000001_Result` -> `WorkflowWfB000001Result`, `launch_wf_B000001` -> `launchWfB000001`. */
const heyName = (id) => id.replace(/^wf_/, "Wf");

/** tsconfig.base.json: the options every app shares (strict, skipLibCheck, bundler resolution). */
export function writeBaseConfig(dir) {
  const rel = (p) => relative(dir, p).split("\\").join("/");
  const base = {
    compilerOptions: {
      target: "ES2022",
      lib: ["ES2023", "DOM", "DOM.Iterable"],
      module: "ESNext",
      moduleResolution: "Bundler",
      strict: true,
      noUncheckedIndexedAccess: true,
      verbatimModuleSyntax: true,
      isolatedModules: true,
      skipLibCheck: true,
      noEmit: true,
      types: [],
      paths: {
        "@wfr/runtime": [rel(RUNTIME_DTS)],
        "@wfr/generated/bench": ["./generated/bench.d.ts"],
        "@wfr/generated/bench/*": ["./generated/bench/*.d.ts"],
        zod: [rel(ZOD_DIR)],
        "openapi-fetch": [rel(OPENAPI_FETCH_DTS)],
      },
    },
  };
  writeFileSync(join(dir, "tsconfig.base.json"), JSON.stringify(base, null, 2));
}

/** The inputs of the 1-workflow app (the sample's invoice intake, cloned by the fixture). */
const WFR_INPUTS = `{
      vendor_name: "Northwind Traders",
      amount: 1280.5,
      currency: "EUR",
      invoice_pdf: file(new Uint8Array([37, 80, 68, 70]), { filename: "inv.pdf", mimeType: "application/pdf" }),
    }`;
const WIRE_BODY = `{
      inputs: { vendor_name: "Northwind Traders", amount: 1280.5, currency: "EUR", invoice_pdf: { attachment_id: "att_1" } },
      input_context: {
        attachments: [{ id: "att_1", filename: "inv.pdf", mimeType: "application/pdf", base64: "JVBERg==" }],
      },
    }`;
const READ_ONE = (condition) => `if (${condition}) {
    const total: number = result.outputs.total;
    return \`\${result.outputs.invoice_id} \${total} \${result.outputs.status}\`;
  }
  return "failed";`;
const WIRE_SUCCEEDED = `result && result.status === "succeeded" && result.outputs`;

/** How a wfr shape imports the environment and workflows, and names a workflow and the client's options. */
function wfrShape(shape, found) {
  const own = found.map(
    (f) => `import { ${f.identifier} } from "@wfr/generated/bench/${f.module}";`,
  );
  switch (shape) {
    case "per-workflow":
      return { imports: own, ref: (f) => f.identifier, options: `baseUrl: "${BASE_URL}"` };
    case "readme":
      return {
        imports: [`import { environment } from "@wfr/generated/bench/environment";`, ...own],
        ref: (f) => f.identifier,
        options: "environment",
      };
    case "index":
      return {
        imports: [`import { environment, workflows } from "@wfr/generated/bench";`],
        ref: (f) => `workflows.${f.identifier}`,
        options: "environment",
      };
  }
  throw new Error(`not a wfr shape: ${shape}`);
}

function oneWorkflowApp(shape, found) {
  const id = benchId(1);
  if (shape === "ot")
    return `import createClient from "openapi-fetch";
import type { components, paths } from "./${OT_OUT}/schema";

export async function main(): Promise<string> {
  const client = createClient<paths>({ baseUrl: "${BASE_URL}", headers: { Authorization: "Bearer k" } });
  const launched = await client.POST("/automations/${id}/runs", {
    body: ${WIRE_BODY},
  });
  if (!launched.data) return "launch failed";
  const got = await client.GET("/runs/{runId}/result", { params: { path: { runId: launched.data.run_id } } });
  const result = got.data as components["schemas"]["Workflow_${id}_Result"] | undefined;
  ${READ_ONE(WIRE_SUCCEEDED)}
}
`;
  if (shape === "hey")
    return `import { createClient } from "./${HEY_OUT}/client/index.js";
import { getRunResult, launch${heyName(id)} } from "./${HEY_OUT}/sdk.gen.js";
import type { Workflow${heyName(id)}Result } from "./${HEY_OUT}/types.gen.js";

export async function main(): Promise<string> {
  const client = createClient({ baseUrl: "${BASE_URL}", auth: "k" });
  const launched = await launch${heyName(id)}({
    client,
    body: ${WIRE_BODY},
  });
  if (!launched.data) return "launch failed";
  const got = await getRunResult({ client, path: { runId: launched.data.run_id } });
  const result = got.data as Workflow${heyName(id)}Result | undefined;
  ${READ_ONE(WIRE_SUCCEEDED)}
}
`;
  const s = wfrShape(shape, found);
  const wf = s.ref(found[0]);
  return `import { createClient, file } from "@wfr/runtime";
${s.imports.join("\n")}

export async function main(): Promise<string> {
  const wfr = createClient({ ${s.options}, apiKey: "k" });
  const run = await wfr.launch(${wf}, {
    inputs: ${WFR_INPUTS},
  });
  const result = await wfr.waitForResult(${wf}, run.run_id);
  ${READ_ONE(`result.state === "terminal" && result.status === "succeeded"`)}
}
`;
}

/** Waits for and reads the typed result of each of the workflows. */
function manyWorkflowsApp(shape, found) {
  const ids = found.map((_, i) => benchId(i + 1));
  let imports;
  let setup;
  let body;
  if (shape === "ot") {
    imports = [
      `import createClient from "openapi-fetch";`,
      `import type { components, paths } from "./${OT_OUT}/schema";`,
    ];
    setup = `const client = createClient<paths>({ baseUrl: "${BASE_URL}", headers: { Authorization: "Bearer k" } });`;
    body = ids.map(
      (
        id,
        i,
      ) => `  const g${i} = await client.GET("/runs/{runId}/result", { params: { path: { runId: runIds[${i}] ?? "" } } });
  const r${i} = g${i}.data as components["schemas"]["Workflow_${id}_Result"] | undefined;
  if (r${i} && r${i}.status === "succeeded" && r${i}.outputs) out.push(r${i}.outputs);`,
    );
  } else if (shape === "hey") {
    imports = [
      `import { createClient } from "./${HEY_OUT}/client/index.js";`,
      `import { getRunResult } from "./${HEY_OUT}/sdk.gen.js";`,
      `import type { ${ids.map((id) => `Workflow${heyName(id)}Result`).join(", ")} } from "./${HEY_OUT}/types.gen.js";`,
    ];
    setup = `const client = createClient({ baseUrl: "${BASE_URL}", auth: "k" });`;
    body = ids.map(
      (
        id,
        i,
      ) => `  const g${i} = await getRunResult({ client, path: { runId: runIds[${i}] ?? "" } });
  const r${i} = g${i}.data as Workflow${heyName(id)}Result | undefined;
  if (r${i} && r${i}.status === "succeeded" && r${i}.outputs) out.push(r${i}.outputs);`,
    );
  } else {
    const s = wfrShape(shape, found);
    imports = [`import { createClient } from "@wfr/runtime";`, ...s.imports];
    setup = `const wfr = createClient({ ${s.options}, apiKey: "k" });`;
    body = found.map(
      (f, i) => `  const r${i} = await wfr.waitForResult(${s.ref(f)}, runIds[${i}] ?? "");
  if (r${i}.state === "terminal" && r${i}.status === "succeeded") out.push(r${i}.outputs);`,
    );
  }
  return `${imports.join("\n")}

export async function main(runIds: string[]): Promise<unknown[]> {
  ${setup}
  const out: unknown[] = [];
${body.join("\n")}
  return out;
}
`;
}

/**
 * Writes `<shape>-app-<count>.ts` and `tsconfig.<shape>-<count>.json` for every shape, using
 * workflows wf_B000001.. (`identifiers`: workflow id -> { identifier, module }). Returns the
 * tsconfig file name of each shape.
 */
export function writeShapeApps(dir, identifiers, count) {
  const found = [];
  for (let i = 1; i <= count; i++) {
    const f = identifiers.get(benchId(i));
    if (!f) throw new Error(`no generated module for ${benchId(i)}`);
    found.push(f);
  }
  const configs = {};
  for (const shape of SHAPES) {
    const app = `${shape}-app-${count}.ts`;
    writeFileSync(
      join(dir, app),
      count === 1 ? oneWorkflowApp(shape, found) : manyWorkflowsApp(shape, found),
    );
    configs[shape] = `tsconfig.${shape}-${count}.json`;
    writeFileSync(
      join(dir, configs[shape]),
      JSON.stringify({ extends: "./tsconfig.base.json", files: [app] }, null, 2),
    );
  }
  return configs;
}
