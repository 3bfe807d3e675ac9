// `wfr diff <old> <new>`: reads two definitions (files, folders holding
// openapi.json|yaml|yml, `schemas/<env>`, or http(s) URLs), diffs them and
// prints the report.

import { existsSync, statSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type DiffReport, diffEnvironments } from "./diff.js";
import { type DiffFormat, formatDiff } from "./diff-format.js";
import type { EnvironmentModel } from "./model.js";

export interface DiffCommandIo {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
  /** Reads one definition file; defaults to the codegen reader (`./read-definition.js`). */
  readonly readDefinition?: (file: string) => EnvironmentModel | Promise<EnvironmentModel>;
  /** Folder relative paths are resolved against (default: process.cwd()). */
  readonly cwd?: string;
}

const USAGE = `usage: wfr diff <old> <new> [--format text|markdown|json] [--fail-on breaking|any|none] [--match-by id|name]
  <old>, <new>: a definition file, a folder holding openapi.json|yaml|yml (such as schemas/<env>), or an http(s) URL`;

const DEFINITION_NAMES = ["openapi.json", "openapi.yaml", "openapi.yml"];

class UsageError extends Error {}

interface ParsedArgs {
  oldRef: string;
  newRef: string;
  format: DiffFormat;
  failOn: "breaking" | "any" | "none";
  matchBy: "id" | "name" | undefined;
}

function parseArgs(argv: readonly string[]): ParsedArgs {
  const args = [...argv];
  if (args[0] === "diff") args.shift();
  const positional: string[] = [];
  let format: DiffFormat = "text";
  let failOn: ParsedArgs["failOn"] = "none";
  let matchBy: ParsedArgs["matchBy"];
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
  };
}

type Reader = (file: string) => EnvironmentModel | Promise<EnvironmentModel>;

async function defaultReader(): Promise<Reader> {
  // Kept dynamic so the diff does not load the reader (and its dependencies)
  // until it is needed.
  const mod = (await import("./read-definition.js")) as Record<string, unknown>;
  const fn = mod.readDefinitionFile ?? mod.readDefinition;
  if (typeof fn !== "function") {
    throw new Error("./read-definition.js exports no readDefinitionFile or readDefinition");
  }
  return (file: string) => (fn as Reader)(file);
}

function isUrl(ref: string): boolean {
  return /^https?:\/\//i.test(ref);
}

/** Resolves a file or folder reference to the definition file to read. */
function resolveDefinitionPath(ref: string, cwd: string): string {
  const path = resolve(cwd, ref);
  if (!existsSync(path)) throw new ReadError(ref, "no such file or folder");
  if (statSync(path).isDirectory()) {
    const found = DEFINITION_NAMES.filter((n) => existsSync(join(path, n)));
    if (found.length === 0) {
      throw new ReadError(ref, `the folder holds no ${DEFINITION_NAMES.join(", ")}`);
    }
    if (found.length > 1) {
      throw new ReadError(ref, `the folder holds more than one definition: ${found.join(", ")}`);
    }
    return join(path, found[0] as string);
  }
  return path;
}

class ReadError extends Error {
  constructor(
    readonly ref: string,
    detail: string,
  ) {
    super(`${ref}: ${detail}`);
  }
}

async function loadModel(
  ref: string,
  read: () => Promise<Reader>,
  cwd: string,
  cleanups: (() => Promise<void>)[],
): Promise<EnvironmentModel> {
  if (isUrl(ref)) {
    let response: Response;
    try {
      response = await fetch(ref, { headers: { accept: "application/json, application/yaml" } });
    } catch (err) {
      throw new ReadError(ref, `download failed: ${(err as Error).message}`);
    }
    if (!response.ok) {
      throw new ReadError(ref, `download failed: HTTP ${response.status}`);
    }
    const body = await response.text();
    const dir = await mkdtemp(join(tmpdir(), "wfr-diff-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const folder = join(dir, "downloaded");
    await mkdir(folder);
    const file = join(folder, looksLikeJson(body) ? "openapi.json" : "openapi.yaml");
    await writeFile(file, body);
    const model = await readWith(read, file, ref);
    return { ...model, sourceFile: ref };
  }
  const file = resolveDefinitionPath(ref, cwd);
  return readWith(read, file, ref);
}

function looksLikeJson(body: string): boolean {
  const t = body.trimStart();
  return t.startsWith("{") || t.startsWith("[");
}

async function readWith(
  read: () => Promise<Reader>,
  file: string,
  ref: string,
): Promise<EnvironmentModel> {
  const reader = await read();
  try {
    return await reader(file);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new ReadError(ref, message.includes(ref) ? message : `cannot read ${file}: ${message}`);
  }
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
  const cwd = io.cwd ?? process.cwd();
  let reader: Promise<Reader> | undefined;
  const read = () => {
    reader ??= io.readDefinition ? Promise.resolve(io.readDefinition) : defaultReader();
    return reader;
  };
  const cleanups: (() => Promise<void>)[] = [];
  let report: DiffReport;
  try {
    const oldModel = await loadModel(args.oldRef, read, cwd, cleanups);
    const newModel = await loadModel(args.newRef, read, cwd, cleanups);
    const matchBy = args.matchBy ?? (oldModel.name === newModel.name ? "id" : "name");
    report = diffEnvironments(oldModel, newModel, { matchBy });
  } catch (err) {
    io.stderr.write(`wfr diff: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  } finally {
    for (const cleanup of cleanups) await cleanup();
  }
  io.stdout.write(formatDiff(report, args.format));
  if (args.failOn === "breaking" && report.summary.breaking > 0) return 1;
  if (args.failOn === "any" && report.changes.length > 0) return 1;
  return 0;
}
