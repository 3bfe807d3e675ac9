// Shared by the codegen tests: definition builders, temp folders, and a
// type checker over generated code plus a small app.
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const CODEGEN_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const REPO = resolve(CODEGEN_DIR, "..", "..");
export const EXAMPLE_SCHEMAS = join(REPO, "schemas");
const RUNTIME_DIR = join(REPO, "packages", "runtime");
const ZOD_DIR = realpathSync(join(CODEGEN_DIR, "node_modules", "zod"));

const made: string[] = [];

export function tempDir(prefix = "wfr-codegen-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function cleanupTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A temp project folder that resolves `@wfr/runtime` and `zod` like the generated package does. */
export function projectDir(): string {
  const dir = tempDir("wfr-app-");
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "app", type: "module", private: true }),
  );
  mkdirSync(join(dir, "node_modules", "@wfr"), { recursive: true });
  symlinkSync(RUNTIME_DIR, join(dir, "node_modules", "@wfr", "runtime"), "dir");
  symlinkSync(ZOD_DIR, join(dir, "node_modules", "zod"), "dir");
  return dir;
}

export function copyExamples(): string {
  const dir = tempDir("wfr-schemas-");
  cpSync(EXAMPLE_SCHEMAS, dir, { recursive: true });
  return dir;
}

export function readJson(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
}

export function writeJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** Streams for the CLI's `main` that keep what it writes, to assert on or to explain a failure. */
export function capturedOutput() {
  const io = { out: "", err: "" };
  return {
    io,
    streams: {
      stdout: { write: (s: string) => (io.out += s) },
      stderr: { write: (s: string) => (io.err += s) },
    },
  };
}

interface WorkflowSpec {
  readonly id: string;
  readonly name: string;
  readonly state?: string;
  readonly revision?: number;
  readonly inputs?: Record<string, unknown>;
  readonly outputs?: Record<string, unknown>;
  /** `true`: the launch body declares `model` with the four names; a list: with those names. */
  readonly model?: boolean | readonly string[];
  readonly description?: string;
}

/** A minimal definition in the project's format (3.1 unless told). */
export function definition(
  workflows: readonly WorkflowSpec[],
  options: {
    openapi?: string;
    environment?: string;
    /** Extra `components/schemas` entries, for `$ref`s in inputs and outputs. */
    components?: Record<string, unknown>;
  } = {},
) {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {
    FileReference: {
      type: "object",
      "x-input-type": "file",
      required: ["attachment_id"],
      additionalProperties: false,
      properties: { attachment_id: { type: "string" } },
    },
    FileOutput: {
      type: "object",
      "x-output-type": "file",
      required: ["download_url", "filename"],
      properties: { download_url: { type: "string" }, filename: { type: "string" } },
    },
    ...options.components,
  };
  for (const wf of workflows) {
    schemas[`Workflow_${wf.id}_Inputs`] = wf.inputs ?? {
      type: "object",
      properties: {},
      additionalProperties: false,
    };
    schemas[`Workflow_${wf.id}_Outputs`] = wf.outputs ?? { type: "object", properties: {} };
    paths[`/automations/${wf.id}/runs`] = {
      post: {
        operationId: `launch_${wf.id}`,
        ...(wf.description !== undefined ? { description: wf.description } : {}),
        "x-workflow": {
          id: wf.id,
          name: wf.name,
          state: wf.state ?? "enabled",
          revision: wf.revision ?? 1,
          outputs: { $ref: `#/components/schemas/Workflow_${wf.id}_Outputs` },
        },
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["inputs"],
                additionalProperties: false,
                properties: {
                  inputs: { $ref: `#/components/schemas/Workflow_${wf.id}_Inputs` },
                  metadata: { type: "object" },
                  ...(wf.model
                    ? {
                        model: {
                          type: "string",
                          enum: wf.model === true ? ["pro", "flash", "lite", "max"] : wf.model,
                        },
                      }
                    : {}),
                },
              },
            },
          },
        },
        responses: { "202": { description: "Accepted" } },
      },
    };
  }
  return {
    openapi: options.openapi ?? "3.1.0",
    info: {
      title: "test",
      version: "1",
      "x-environment": options.environment ?? "test",
      "x-workspace": "ws_test",
    },
    servers: [{ url: "https://api.example.test/api/v1" }],
    paths,
    components: { schemas },
  };
}

interface Diagnostic {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

// Declaration files that never change during a run (TypeScript's own libs,
// zod's and the runtime's types under node_modules) are parsed once and
// shared by every program whose settings parse them alike, as TypeScript's
// language service shares them. Parsing lib.dom.d.ts and zod for each of
// the suite's programs was most of the codegen tests' CPU time.
const registry = ts.createDocumentRegistry();
const sharedSourceFiles = new Map<string, ts.SourceFile>();

function sharingHost(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const settingsKey = registry.getKeyForCompilationSettings(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersionOrOptions, onError, shouldCreate) => {
    if (!fileName.includes("/node_modules/") || !fileName.endsWith(".d.ts"))
      return read(fileName, languageVersionOrOptions, onError, shouldCreate);
    const parse =
      typeof languageVersionOrOptions === "object"
        ? [languageVersionOrOptions.languageVersion, languageVersionOrOptions.impliedNodeFormat]
        : [languageVersionOrOptions];
    const key = `${settingsKey}|${parse.join(",")}|${fileName}`;
    let file = sharedSourceFiles.get(key);
    if (!file) {
      file = read(fileName, languageVersionOrOptions, onError, shouldCreate);
      if (file) sharedSourceFiles.set(key, file);
    }
    return file;
  };
  return host;
}

/** Type-checks the given root files of a project folder with the TypeScript compiler API. */
export function typeCheck(
  dir: string,
  rootFiles: readonly string[],
  extraOptions: ts.CompilerOptions = {},
): Diagnostic[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
    strict: true,
    noEmit: true,
    // The generated .d.ts files are what consumers read: check them too.
    // TypeScript's own lib files are not ours to check.
    skipLibCheck: false,
    skipDefaultLibCheck: true,
    types: [],
    noUncheckedIndexedAccess: true,
    ...extraOptions,
  };
  const program = ts.createProgram({
    rootNames: rootFiles.map((f) => join(dir, f)),
    options,
    host: sharingHost(options),
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const file = d.file ? d.file.fileName : "";
    const line =
      d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    return {
      file: file.startsWith(dir) ? file.slice(dir.length + 1) : file,
      line,
      message: ts.flattenDiagnosticMessageText(d.messageText, "\n"),
    };
  });
}

/** The 1-based line of the line of `source` that contains `marker`. */
export function lineOf(source: string, marker: string): number {
  const index = source.split("\n").findIndex((l) => l.includes(marker));
  if (index === -1) throw new Error(`marker ${marker} not found`);
  return index + 1;
}
