// Writing the generated tree safely and minimally: new content is staged in a
// temporary folder next to the output and renamed into place only once all of
// it is written; files whose content did not change are not touched.
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

/** What `writeOutput` did: files written (new or changed), left as they were, and deleted. */
export interface WriteReport {
  readonly written: number;
  readonly unchanged: number;
  readonly removed: number;
}

/**
 * Makes `outDir` hold exactly `files`, touching only what differs: a file whose content is
 * unchanged keeps its bytes and mtime (watchers and build caches see only the real change), a
 * file no longer generated is deleted. New content is staged in a temporary folder next to the
 * output first; an error while staging leaves the output folder exactly as it was.
 */
export function writeOutput(
  outDir: string,
  files: GeneratedFiles,
  hooks: { beforeSwap?: () => void } = {},
): WriteReport {
  const existing = new Set(listFiles(outDir));
  const changed = [...files].filter(
    ([path, content]) =>
      !existing.has(path) || readFileSync(join(outDir, ...path.split("/")), "utf8") !== content,
  );
  const gone = [...existing].filter((path) => !files.has(path));
  const parent = dirname(outDir);
  mkdirSync(parent, { recursive: true });
  const temp = join(parent, `.${basename(outDir)}.tmp-${process.pid}-${Date.now().toString(36)}`);
  try {
    mkdirSync(temp);
    for (const [path, content] of changed) {
      const staged = join(temp, ...path.split("/"));
      mkdirSync(dirname(staged), { recursive: true });
      writeFileSync(staged, content);
    }
    hooks.beforeSwap?.();
    for (const path of gone) rmSync(join(outDir, ...path.split("/")));
    removeEmptyFolders(outDir);
    for (const [path] of changed) {
      const target = join(outDir, ...path.split("/"));
      mkdirSync(dirname(target), { recursive: true });
      renameSync(join(temp, ...path.split("/")), target);
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  return { written: changed.length, unchanged: files.size - changed.length, removed: gone.length };
}

/** Deletes the folders under `dir` that hold no file any more (a removed environment's). */
function removeEmptyFolders(dir: string): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (!statSync(full).isDirectory()) continue;
    removeEmptyFolders(full);
    if (readdirSync(full).length === 0) rmSync(full, { recursive: true });
  }
}
