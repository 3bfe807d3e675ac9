// Shared by the codegen tests: definition builders, temp folders, and a
// type checker over generated code plus a small app.

import { spawnSync } from "node:child_process";
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
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

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

// The compiler teams get by default (npm's `latest`, the workspace root's
// devDependency): the native TypeScript 7 `tsc`, one process per check. It
// checks these small programs in a fraction of the CPU the TypeScript 5 API
// took in this process, and it is the compiler whose verdict users see.
export const TSC = join(
  dirname(createRequire(join(REPO, "package.json")).resolve("typescript/package.json")),
  "bin",
  "tsc",
);

/** tsconfig options a check may add (booleans such as `exactOptionalPropertyTypes`). */
export type CheckOptions = Readonly<Record<string, boolean | string | readonly string[]>>;

// `file(line,col): error TSnnnn: message`, then the message's indented continuation lines.
const DIAGNOSTIC = /^(.+?)\((\d+),\d+\): error TS\d+: (.*)$/;

/** Reads `tsc --pretty false` output into diagnostics with paths relative to `dir`. */
export function parseTscOutput(output: string, dir: string): Diagnostic[] {
  const out: { file: string; line: number; message: string }[] = [];
  for (const text of output.split("\n")) {
    const match = DIAGNOSTIC.exec(text);
    if (match) {
      const [, file = "", line = "0", message = ""] = match;
      const absolute = resolve(dir, file);
      out.push({
        file: absolute.startsWith(`${dir}/`) ? absolute.slice(dir.length + 1) : absolute,
        line: Number(line),
        message,
      });
    } else if (/^\s+\S/.test(text) && out.length > 0) {
      const last = out[out.length - 1] as { message: string };
      last.message += `\n${text.replace(/^ {2}/, "")}`;
    } else if (/^error TS\d+: /.test(text)) {
      out.push({ file: "", line: 0, message: text.replace(/^error TS\d+: /, "") });
    }
  }
  return out;
}

/** Type-checks the given root files of a project folder with TypeScript 7's `tsc`. */
export function typeCheck(
  dir: string,
  rootFiles: readonly string[],
  extraOptions: CheckOptions = {},
): Diagnostic[] {
  const config = join(dir, "tsconfig.wfr-check.json");
  writeJson(config, {
    compilerOptions: {
      target: "es2022",
      module: "nodenext",
      moduleResolution: "nodenext",
      lib: ["es2023", "dom"],
      strict: true,
      noEmit: true,
      // The generated .d.ts files are what consumers read: check them too.
      // TypeScript's own lib files are not ours to check.
      skipLibCheck: false,
      skipDefaultLibCheck: true,
      types: [],
      noUncheckedIndexedAccess: true,
      ...extraOptions,
    },
    files: rootFiles,
  });
  const r = spawnSync(TSC, ["-p", config, "--pretty", "false"], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const diagnostics = parseTscOutput(`${r.stdout}`, realpathSync(dir));
  if (r.status !== 0 && diagnostics.length === 0)
    throw new Error(`tsc failed without diagnostics (${r.status}): ${r.stdout}${r.stderr}`);
  return diagnostics;
}

/** The 1-based line of the line of `source` that contains `marker`. */
export function lineOf(source: string, marker: string): number {
  const index = source.split("\n").findIndex((l) => l.includes(marker));
  if (index === -1) throw new Error(`marker ${marker} not found`);
  return index + 1;
}
