// `wfr diff <old> <new>`: reads two definitions (files, folders holding
// openapi.json|yaml|yml, `schemas/<env>`, or http(s) URLs), diffs them and
// prints the report.

import { DefinitionError } from "./definition-error.js";
import type { DiffReport } from "./diff.js";
import {
  DEFAULT_CONFIG,
  DEFAULT_LOCK,
  type DefinitionReader,
  DiffInputError,
  diffDefinitions,
} from "./diff-definitions.js";
import { type DiffFormat, formatDiff } from "./diff-format.js";

export interface DiffCommandIo {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
  /** Reads one definition file; defaults to the codegen reader (`readDefinition`). */
  readonly readDefinition?: DefinitionReader;
  /** Folder relative paths are resolved against (default: process.cwd()). */
  readonly cwd?: string;
}

const USAGE = `usage: wfr diff <old> <new> [--format text|markdown|json] [--fail-on breaking|any|none] [--match-by id|name] [--lock <file>] [--config <file>]
  <old>, <new>: a definition file, a folder holding openapi.json|yaml|yml (such as schemas/<env>), or an http(s) URL
  --lock: the identifier lock generate maintains (default ${DEFAULT_LOCK}, when present)
  --config: the aliases config (default ${DEFAULT_CONFIG}, when present)`;

class UsageError extends Error {}

interface ParsedArgs {
  oldRef: string;
  newRef: string;
  format: DiffFormat;
  failOn: "breaking" | "any" | "none";
  matchBy: "id" | "name" | undefined;
  lock: string | undefined;
  config: string | undefined;
}

function parseArgs(argv: readonly string[]): ParsedArgs {
  const args = [...argv];
  if (args[0] === "diff") args.shift();
  const positional: string[] = [];
  let format: DiffFormat = "text";
  let failOn: ParsedArgs["failOn"] = "none";
  let matchBy: ParsedArgs["matchBy"];
  let lock: string | undefined;
  let config: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    let name: string | undefined;
    let value: string | undefined;
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      if (eq >= 0) {
        name = arg.slice(2, eq);
        value = arg.slice(eq + 1);
      } else {
        name = arg.slice(2);
        value = args[i + 1];
        i++;
      }
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      const v: string = value;
      const pick = <T extends string>(allowed: readonly T[]): T => {
        if ((allowed as readonly string[]).includes(v)) return v as T;
        throw new UsageError(
          `--${name} must be one of ${allowed.join(", ")} (got ${JSON.stringify(v)})`,
        );
      };
      switch (name) {
        case "format":
          format = pick(["text", "markdown", "json"] as const);
          break;
        case "fail-on":
          failOn = pick(["breaking", "any", "none"] as const);
          break;
        case "match-by":
          matchBy = pick(["id", "name"] as const);
          break;
        case "lock":
          lock = v;
          break;
        case "config":
          config = v;
          break;
        default:
          throw new UsageError(`unknown option --${name}`);
      }
    } else {
      positional.push(arg);
    }
  }
  if (positional.length !== 2) {
    throw new UsageError(`expected two definitions, <old> and <new> (got ${positional.length})`);
  }
  return {
    oldRef: positional[0] as string,
    newRef: positional[1] as string,
    format,
    failOn,
    matchBy,
    lock,
    config,
  };
}

/** Diffs two definitions; returns the exit code (0 ok, 1 failed the --fail-on gate, 2 usage or read error). */
export async function runDiffCommand(
  argv: string[],
  io: DiffCommandIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  if (argv.some((a) => a === "--help" || a === "-h")) {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let args: ParsedArgs;
  try {
    args = parseArgs(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`wfr diff: ${err.message}\n${USAGE}\n`);
      return 2;
    }
    throw err;
  }
  let report: DiffReport;
  try {
    report = await diffDefinitions(args.oldRef, args.newRef, {
      cwd: io.cwd ?? process.cwd(),
      ...(args.matchBy !== undefined ? { matchBy: args.matchBy } : {}),
      ...(args.lock !== undefined ? { lock: args.lock } : {}),
      ...(args.config !== undefined ? { config: args.config } : {}),
      ...(io.readDefinition !== undefined ? { readDefinition: io.readDefinition } : {}),
    });
  } catch (err) {
    // Expected failures are one line naming the input; anything else is a bug and keeps its stack.
    if (err instanceof DiffInputError || err instanceof DefinitionError) {
      io.stderr.write(`wfr diff: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  io.stdout.write(formatDiff(report, args.format));
  if (args.failOn === "breaking" && report.summary.breaking > 0) return 1;
  if (args.failOn === "any" && report.changes.length > 0) return 1;
  return 0;
}
