// Writing the generated tree safely: everything goes to a temporary folder
// next to the output, and only a complete tree replaces the old one (two
// renames). On any error the output folder is left exactly as it was.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import type { GeneratedFiles } from "./emit/emit.js";

/** Lists every file under a folder as POSIX paths relative to it. */
export function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d)) {
      const full = join(d, entry);
      if (statSync(full).isDirectory()) walk(full);
      else out.push(relative(dir, full).split(sep).join("/"));
    }
  };
  walk(dir);
  return out.sort();
}

export interface CheckResult {
  readonly stale: string[];
  readonly missing: string[];
  readonly extra: string[];
}

/** Compares the committed output with what would be generated. */
export function checkOutput(outDir: string, files: GeneratedFiles): CheckResult {
  const existing = new Set(listFiles(outDir));
  const stale: string[] = [];
  const missing: string[] = [];
  for (const [path, content] of files) {
    if (!existing.has(path)) missing.push(path);
    else if (readFileSync(join(outDir, path), "utf8") !== content) stale.push(path);
  }
  const extra = [...existing].filter((p) => !files.has(p)).sort();
  return { stale, missing, extra };
}

/** Writes the files as the new content of `outDir` (replacing it entirely), atomically per folder swap. */
export function writeOutput(
  outDir: string,
  files: GeneratedFiles,
  hooks: { beforeSwap?: () => void } = {},
): void {
  const parent = dirname(outDir);
  mkdirSync(parent, { recursive: true });
  const suffix = `${process.pid}-${Date.now().toString(36)}`;
  const temp = join(parent, `.${basename(outDir)}.tmp-${suffix}`);
  const old = join(parent, `.${basename(outDir)}.old-${suffix}`);
  try {
    mkdirSync(temp);
    for (const [path, content] of files) {
      const target = join(temp, ...path.split("/"));
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, content);
    }
    hooks.beforeSwap?.();
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    throw error;
  }
  const hadOld = existsSync(outDir);
  if (hadOld) renameSync(outDir, old);
  try {
    renameSync(temp, outDir);
  } catch (error) {
    if (hadOld) renameSync(old, outDir);
    rmSync(temp, { recursive: true, force: true });
    throw error;
  }
  if (hadOld) rmSync(old, { recursive: true, force: true });
}
