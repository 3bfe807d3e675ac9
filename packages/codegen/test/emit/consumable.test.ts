// "Regenerating must be enough": @wfr/generated is consumed as generated,
// with no build step. Each test goes through the path a user takes: the
// codegen CLI writes the package, a real `tsc` process checks the app, and
// Node imports the emitted JavaScript.
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { emitSchemaCheckSources } from "../../src/emit/emit.js";
import { generate } from "../../src/generate.js";
import {
  CODEGEN_DIR,
  cleanupTempDirs,
  copyExamples,
  lineOf,
  projectDir,
  REPO,
  readJson,
  TSC,
  tempDir,
  typeCheck,
  writeJson,
} from "../helpers.js";

afterAll(cleanupTempDirs);

const CLI = join(CODEGEN_DIR, "dist", "cli.js");
const TYPE_CHECK_TIMEOUT = 120_000;

function run(command: string, args: readonly string[], cwd: string) {
  const r = spawnSync(command, args, { cwd, encoding: "utf8" });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

const APP = `import { workflows } from "@wfr/generated/sample";
import type { InvoiceIntakeInputs } from "@wfr/generated/sample";

export const inputs: InvoiceIntakeInputs = workflows.invoiceIntake.buildInputs({
  vendor_name: "Northwind", // USE_VENDOR
  amount: 1280.5,
  invoice_pdf: null as never,
});
export const read = (raw: unknown): number => workflows.invoiceIntake.readOutputs(raw).total;
`;

describe("the generated package is consumable as generated", () => {
  it(
    "after `generate` and nothing else, the app's own tsc --noEmit reports the edit at the using line",
    () => {
      expect(existsSync(CLI), "build @wfr/codegen first (turbo does)").toBe(true);
      const app = projectDir();
      const schemas = copyExamples();
      // The app depends on @wfr/generated exactly as published: its package.json, no dist/.
      const pkg = join(app, "node_modules", "@wfr", "generated");
      mkdirSync(pkg, { recursive: true });
      copyFileSync(join(REPO, "packages", "generated", "package.json"), join(pkg, "package.json"));
      writeJson(join(app, "tsconfig.json"), {
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        files: ["app.ts"],
      });
      writeFileSync(join(app, "app.ts"), APP);
      const generateArgs = [CLI, "generate", "--schemas", schemas, "--out", join(pkg, "src")];

      const first = run(process.execPath, generateArgs, app);
      expect(first.output).toMatch(/wrote/);
      expect(first.status).toBe(0);
      const clean = run(process.execPath, [TSC, "--noEmit", "-p", "."], app);
      expect(clean.output).toBe("");
      expect(clean.status).toBe(0);

      const file = join(schemas, "sample", "openapi.json");
      // biome-ignore lint/suspicious/noExplicitAny: the edit walks an arbitrary JSON document
      const doc = readJson(file) as { components: { schemas: Record<string, any> } };
      doc.components.schemas.Workflow_wf_P7Qd2Lx9_Inputs.properties.vendor_name.type = "number";
      writeJson(file, doc);
      expect(run(process.execPath, generateArgs, app).status).toBe(0);
      const edited = run(process.execPath, [TSC, "--noEmit", "-p", "."], app);
      expect(edited.status).not.toBe(0);
      expect(edited.output).toContain(`app.ts(${lineOf(APP, "USE_VENDOR")},`);
      expect(edited.output).toMatch(/Type 'string' is not assignable to type 'number'/);
    },
    TYPE_CHECK_TIMEOUT,
  );

  it("importing an environment index builds no schema: zod is first touched on first use", async () => {
    // The runtime's zod entry throws on any use: the import must not touch it.
    const dir = tempDir("wfr-lazy-");
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
    const runtime = join(dir, "node_modules", "@wfr", "runtime");
    mkdirSync(runtime, { recursive: true });
    const real = pathToFileURL(join(REPO, "packages", "runtime", "dist", "index.js")).href;
    writeJson(join(runtime, "package.json"), {
      name: "@wfr/runtime",
      type: "module",
      exports: { ".": "./index.js", "./zod": "./zod.js" },
    });
    writeFileSync(join(runtime, "index.js"), `export * from ${JSON.stringify(real)};\n`);
    // Every name the real entry exports, each a function that throws when called.
    const zodEntry = pathToFileURL(join(REPO, "packages", "runtime", "dist", "zod.js")).href;
    const names = Object.keys(await import(zodEntry));
    writeFileSync(
      join(runtime, "zod.js"),
      names.map((n) => `export function ${n}() { throw new Error("zod used: ${n}"); }\n`).join(""),
    );
    generate({ schemas: copyExamples(), out: join(dir, "gen") });
    const mod = (await import(pathToFileURL(join(dir, "gen", "sample", "index.js")).href)) as {
      workflows: Record<string, { id: string; inputSchema: unknown }>;
    };
    expect(mod.workflows.invoiceIntake?.id).toBe("wf_P7Qd2Lx9");
    expect(() => mod.workflows.invoiceIntake?.inputSchema).toThrow(/zod used/);
  });

  it("never touches the app's own zod: the schemas get the runtime's (an app on zod 3 still validates)", async () => {
    const dir = tempDir("wfr-app-zod-");
    writeFileSync(join(dir, "package.json"), JSON.stringify({ private: true }));
    mkdirSync(join(dir, "node_modules", "@wfr"), { recursive: true });
    symlinkSync(join(REPO, "packages", "runtime"), join(dir, "node_modules", "@wfr", "runtime"));
    mkdirSync(join(dir, "node_modules", "zod"));
    writeJson(join(dir, "node_modules", "zod", "package.json"), {
      name: "zod",
      version: "3.25.0",
      exports: "./index.js",
    });
    writeFileSync(
      join(dir, "node_modules", "zod", "index.js"),
      `throw new Error("app zod loaded");\n`,
    );
    // The app is CommonJS (no "type"): the generated folder's own package.json keeps its .js ESM.
    generate({ schemas: copyExamples(), out: join(dir, "gen") });
    const mod = (await import(pathToFileURL(join(dir, "gen", "sample", "index.js")).href)) as {
      workflows: Record<string, { validateInputs(inputs: unknown): { field: string }[] }>;
    };
    const issues = mod.workflows.invoiceIntake?.validateInputs({}) ?? [];
    expect(issues.map((i) => i.field)).toContain("vendor_name");
  });
});

// Two of these options change what types mean (an optional property's `undefined`, an indexed
// access's), so a conditional type can come out differently under each: each is checked alone
// and with the rest. The other three only add checks of syntax that no type changes
// (`obj.key` on an index signature, `import type`, per-file transpilability), so what they
// report alone they report among all of them: they are checked there, not in a program each
// (a program each cost about 3 CPU-seconds).
const STRICT_OPTIONS = {
  exactOptionalPropertyTypes: { exactOptionalPropertyTypes: true },
  noUncheckedIndexedAccess: { noUncheckedIndexedAccess: true },
  "all of them (with noPropertyAccessFromIndexSignature, verbatimModuleSyntax and isolatedModules)":
    {
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      noPropertyAccessFromIndexSignature: true,
      verbatimModuleSyntax: true,
      isolatedModules: true,
    },
} as const;

/** The examples generated into a project, with the schema agreement sources beside them. */
function generatedProject(): { dir: string; roots: string[] } {
  const dir = projectDir();
  const { models } = generate({ schemas: copyExamples(), out: join(dir, "gen") });
  const roots = ["app.ts"];
  for (const [path, content] of emitSchemaCheckSources(models)) {
    writeFileSync(join(dir, "gen", path), content);
    roots.push(join("gen", path));
  }
  writeFileSync(
    join(dir, "app.ts"),
    [
      `import * as production from "./gen/sample.js";`,
      `import * as staging from "./gen/sample-staging.js";`,
      `import * as invoice from "./gen/sample/invoiceIntake.js";`,
      `import * as invoiceSchema from "./gen/sample/invoiceIntake.schema.js";`,
      `import * as json from "./gen/_shared/json.js";`,
      "export const all = [production, staging, invoice, invoiceSchema];",
      "export type J = json.JsonValue;",
    ].join("\n"),
  );
  return { dir, roots };
}

describe("generated code under the strict options teams turn on", () => {
  for (const [name, options] of Object.entries(STRICT_OPTIONS)) {
    it(
      `type-checks (declarations and schema agreement) under ${name}`,
      () => {
        const { dir, roots } = generatedProject();
        expect(typeCheck(dir, roots, options)).toEqual([]);
      },
      TYPE_CHECK_TIMEOUT,
    );
  }

  it(
    "the agreement check fails when a schema and its declared type disagree",
    () => {
      const { dir, roots } = generatedProject();
      const types = join(dir, "gen", "sample", "invoiceIntake.types.d.ts");
      const declared = readFileSync(types, "utf8");
      writeFileSync(types, declared.replace("  amount: number;", "  amount: string;"));
      const errors = typeCheck(dir, roots);
      expect(errors.map((e) => e.file)).toContain("gen/sample/invoiceIntake.schema.check.ts");
    },
    TYPE_CHECK_TIMEOUT,
  );
});
