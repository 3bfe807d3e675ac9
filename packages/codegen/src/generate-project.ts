// `generate` and `generate --check` as one typed call: what the `wfr-codegen`
// and `wfr generate` commands print is decided by their shells from this
// outcome, never by reading an exit number back. A definition that cannot be
// read throws DefinitionError; nothing is written then.
import { dirname, join } from "node:path";
import { buildFiles, type GenerateOptions, lockIsCurrent, writeGenerated } from "./generate.js";
import { LOCK_FILE } from "./identifier-lock.js";
import { checkOutput } from "./write-output.js";

export interface GenerateProjectOptions extends GenerateOptions {
  /** Compare with what is on disk instead of writing. */
  readonly check?: boolean;
}

/**
 * One file `--check` found out of date: a path inside the output folder, or
 * (`besideOut`) the identifier lock next to it.
 */
export interface GenerateProblem {
  readonly kind: "stale" | "missing" | "extra";
  readonly path: string;
  readonly besideOut?: boolean;
}

export type GenerateOutcome =
  | {
      readonly kind: "written";
      readonly files: number;
      /** Of `files`, how many were new or changed, and how many were left as they were. */
      readonly written: number;
      readonly unchanged: number;
      /** Files deleted because nothing generates them any more. */
      readonly removed: number;
      readonly workflows: number;
      readonly environments: number;
      readonly notes: readonly string[];
    }
  | { readonly kind: "up-to-date"; readonly files: number; readonly environments: number }
  | { readonly kind: "stale"; readonly problems: readonly GenerateProblem[] };

export function generateProject(options: GenerateProjectOptions): GenerateOutcome {
  const result = buildFiles(options);
  const { models, files } = result;
  if (options.check) {
    const found = checkOutput(options.out, files);
    const problems: GenerateProblem[] = [
      ...(lockIsCurrent(options, result)
        ? []
        : [{ kind: "stale" as const, path: LOCK_FILE, besideOut: true }]),
      ...found.stale.map((path) => ({ kind: "stale" as const, path })),
      ...found.missing.map((path) => ({ kind: "missing" as const, path })),
      ...found.extra.map((path) => ({ kind: "extra" as const, path })),
    ];
    if (problems.length > 0) return { kind: "stale", problems };
    return { kind: "up-to-date", files: files.size, environments: models.length };
  }
  const report = writeGenerated(options, result);
  return {
    kind: "written",
    files: files.size,
    ...report,
    workflows: models.reduce((n, m) => n + m.workflows.length, 0),
    environments: models.length,
    notes: result.notes,
  };
}

/**
 * The lines a shell prints for an outcome (the same for `wfr-codegen` and
 * `wfr generate`), and on which stream. `out` and `schemas` are the folders
 * as the user named them.
 */
export function describeGenerateOutcome(
  outcome: GenerateOutcome,
  names: {
    readonly program: string;
    readonly out: string;
    readonly schemas: string;
    readonly regenerate: string;
  },
): { readonly stream: "stdout" | "stderr"; readonly text: string } {
  const { program } = names;
  const plural = (n: number) => `environment${n === 1 ? "" : "s"}`;
  switch (outcome.kind) {
    case "stale":
      return {
        stream: "stderr",
        text: `${program}: ${names.out} does not match ${names.schemas} (run \`${names.regenerate}\`):\n${outcome.problems
          .map(
            (p) =>
              `  ${`${p.kind}:`.padEnd(8)} ${p.besideOut ? join(dirname(names.out), p.path) : p.path}\n`,
          )
          .join("")}`,
      };
    case "up-to-date":
      return {
        stream: "stdout",
        text: `${program}: ${names.out} is up to date (${outcome.files} files, ${outcome.environments} ${plural(outcome.environments)})\n`,
      };
    case "written":
      return {
        stream: "stdout",
        text: `${outcome.notes.map((note) => `${program}: note: ${note}\n`).join("")}${program}: wrote ${outcome.written} of ${outcome.files} files (${outcome.unchanged} unchanged, ${outcome.removed} removed) for ${outcome.workflows} workflows in ${outcome.environments} ${plural(outcome.environments)} to ${names.out}\n`,
      };
  }
}
