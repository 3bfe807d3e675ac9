// The only module that calls @wfr/codegen. Imported lazily: codegen loads
// ts-morph (TypeScript), which `wfr --help` must not pay for.
// Depends on: `main(argv, io)` (generate/diff commands), `readDefinition(file)`
// and the EnvironmentModel/WorkflowModel/FieldModel types.
import type { EnvironmentModel, FieldModel, WorkflowModel } from "@wfr/codegen";

export type { EnvironmentModel, FieldModel, WorkflowModel };

export interface Io {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
  readonly cwd: string;
}

async function codegen() {
  return import("@wfr/codegen");
}

/** `wfr-codegen generate ...`; returns its exit code (0 ok, 1 stale or error, 2 usage). */
export async function runGenerate(
  io: Io,
  options: { schemas: string; out: string; check: boolean },
): Promise<number> {
  const { main } = await codegen();
  const argv = ["generate", "--schemas", options.schemas, "--out", options.out];
  if (options.check) argv.push("--check");
  return main(argv, io);
}

/** `wfr-codegen diff ...` with its own output; returns its exit code. */
export async function runDiff(argv: readonly string[], cwd: string): Promise<number> {
  const { main } = await codegen();
  const previous = process.cwd();
  // codegen's diff resolves relative paths against process.cwd().
  if (cwd !== previous) process.chdir(cwd);
  try {
    return await main(["diff", ...argv]);
  } finally {
    if (cwd !== previous) process.chdir(previous);
  }
}

export interface DriftChange {
  readonly workflowName: string;
  readonly severity: "breaking" | "non-breaking";
  readonly kind: string;
  readonly path: string | null;
  readonly message: string;
}

export interface DriftReport {
  readonly changes: readonly DriftChange[];
  readonly summary: { readonly breaking: number; readonly nonBreaking: number };
}

/**
 * The breaking/non-breaking diff of two definition files. codegen's package
 * exports the diff only as its command, which writes JSON to process.stdout,
 * so the JSON is captured here (replace with `diffEnvironments` once exported).
 */
export async function diffDefinitionFiles(oldFile: string, newFile: string): Promise<DriftReport> {
  const { main } = await codegen();
  const captured: string[] = [];
  const errors: string[] = [];
  const realWrite = process.stdout.write;
  const realErr = process.stderr.write;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    captured.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    errors.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    return true;
  }) as typeof process.stderr.write;
  let code: number;
  try {
    code = await main(["diff", oldFile, newFile, "--format", "json", "--match-by", "id"]);
  } finally {
    process.stdout.write = realWrite;
    process.stderr.write = realErr;
  }
  if (code !== 0) throw new Error(errors.join("").trim() || `diff failed (${code})`);
  return JSON.parse(captured.join("")) as DriftReport;
}

/** Reads one definition into the normalized model (field kinds, identifiers). */
export async function readEnvironmentModel(file: string): Promise<EnvironmentModel> {
  const { readDefinition } = await codegen();
  return readDefinition(file);
}
