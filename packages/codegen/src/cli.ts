#!/usr/bin/env node
// wfr-codegen generate [--schemas schemas] [--out packages/generated/src] [--check] [--config wfr.codegen.json] [--allow-remove <env>]...
// wfr-codegen diff ...   (the breaking-change diff, see diff-cli.ts)
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DefinitionError } from "./definition-error.js";
import { runDiffCommand } from "./diff-cli.js";
import { DEFAULT_REGENERATE_COMMAND } from "./emit/header.js";
import { CODEGEN_EXIT } from "./exit-codes.js";
import { describeGenerateOutcome, generateProject } from "./generate-project.js";

const USAGE = `usage:
  wfr-codegen generate [--schemas <dir>] [--out <dir>] [--check] [--config <file>] [--allow-remove <env>]... [--regenerate-command <cmd>]
  wfr-codegen diff <old> <new> [options]`;

interface Io {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
  readonly cwd?: string;
  /** The name messages start with: `wfr-codegen`, or `wfr` when the wfr CLI calls in. */
  readonly program?: string;
}

class UsageError extends Error {}

function parseGenerateArgs(argv: readonly string[]) {
  const options = {
    schemas: "schemas",
    out: "packages/generated/src",
    check: false,
    config: "wfr.codegen.json",
    configGiven: false,
    allowRemove: [] as string[],
    regenerate: DEFAULT_REGENERATE_COMMAND,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === "") throw new UsageError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case "--schemas":
        options.schemas = value();
        break;
      case "--out":
        options.out = value();
        break;
      case "--config":
        options.config = value();
        options.configGiven = true;
        break;
      case "--check":
        options.check = true;
        break;
      case "--regenerate-command":
        options.regenerate = value();
        break;
      case "--allow-remove":
        options.allowRemove.push(value());
        break;
      default:
        throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
    }
  }
  return options;
}

export async function runGenerate(argv: readonly string[], io: Io): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const o = parseGenerateArgs(argv);
  const outcome = generateProject({
    schemas: resolve(cwd, o.schemas),
    out: resolve(cwd, o.out),
    config: resolve(cwd, o.config),
    configRequired: o.configGiven,
    allowRemove: o.allowRemove,
    regenerate: o.regenerate,
    check: o.check,
  });
  const { stream, text } = describeGenerateOutcome(outcome, {
    program: io.program ?? "wfr-codegen",
    out: o.out,
    schemas: o.schemas,
    regenerate: o.regenerate,
  });
  io[stream].write(text);
  return outcome.kind === "stale" ? CODEGEN_EXIT.STALE : CODEGEN_EXIT.OK;
}

export async function main(
  argv: string[],
  io: Io = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === "generate") return await runGenerate(rest, io);
    if (command === "diff")
      return await runDiffCommand(rest, { ...io, cwd: io.cwd ?? process.cwd() });
    if (command === "--help" || command === "-h" || command === "help") {
      io.stdout.write(`${USAGE}\n`);
      return CODEGEN_EXIT.OK;
    }
    io.stderr.write(`${USAGE}\n`);
    return CODEGEN_EXIT.USAGE;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`${io.program ?? "wfr-codegen"}: ${error.message}\n${USAGE}\n`);
      return CODEGEN_EXIT.USAGE;
    }
    if (error instanceof DefinitionError) {
      io.stderr.write(`${io.program ?? "wfr-codegen"}: ${error.message}\n`);
      return CODEGEN_EXIT.DEFINITION_INVALID;
    }
    io.stderr.write(`${io.program ?? "wfr-codegen"}: ${(error as Error).stack ?? String(error)}\n`);
    return 1;
  }
}

function isMainModule(): boolean {
  const argv1 = process.argv[1];
  if (argv1 === undefined) return false;
  try {
    // The bin is usually a symlink (node_modules/.bin/wfr-codegen).
    return realpathSync(resolve(argv1)) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

const invokedDirectly = isMainModule();
if (invokedDirectly) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
