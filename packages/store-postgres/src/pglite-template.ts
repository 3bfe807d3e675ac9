// A new PGlite database runs initdb in WebAssembly: seconds of one core
// (measured 5 s idle, 14 s on a loaded 2-core machine), most of a short
// batch's whole run. Loading the dump of a freshly initialised database
// costs about a tenth of that. So the first new database on a machine is
// made by initdb and its pristine dump (before any migration) kept in a
// cache; every later new database, on disk or in memory, starts from it.
// The dump is keyed by PGlite's version: its files follow its PostgreSQL.
// A new database on disk is a copy of the template's data folder, made once
// from the dump beside it: copying 39 MB of files and opening the copy took
// 0.62 s and 0.76 CPU-s, loading the dump 1.27 s and 1.64 CPU-s (README, "A new
// PGlite database").
import {
  constants,
  cpSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { PGlite } from "@electric-sql/pglite";

type PGliteClass = typeof import("@electric-sql/pglite").PGlite;

/** Where the template dump lives unless `pgliteTemplate` says otherwise. */
export function defaultTemplatePath(): string {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(cache, "wfr", `pglite-${pgliteVersion()}-template.tar`);
}

/** PGlite's version, from its package.json (which its `exports` do not list). */
function pgliteVersion(): string {
  let dir = dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
  for (;;) {
    try {
      const found = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (found.name === "@electric-sql/pglite" && found.version) return found.version;
    } catch {
      // not here: look one folder up
    }
    const parent = dirname(dir);
    if (parent === dir) return "unknown";
    dir = parent;
  }
}

/** Whether `dir` already holds a database (PostgreSQL writes PG_VERSION at initdb). */
function holdsDatabase(dir: string): boolean {
  try {
    return statSync(join(dir, "PG_VERSION")).isFile();
  } catch {
    return false;
  }
}

/**
 * Opens PGlite at `target` ("memory" for a throwaway one). A new database
 * starts from the template at `templatePath` when there is one (and makes
 * it when there is not); `false` always runs initdb.
 */
export async function openPglite(target: string, templatePath: string | false): Promise<PGlite> {
  const { PGlite } = await import("@electric-sql/pglite");
  const dataDir = target === "memory" ? undefined : target;
  if (dataDir !== undefined) {
    // PGlite makes the data folder but not its parents (".wfr/pglite").
    mkdirSync(dataDir, { recursive: true });
    if (holdsDatabase(dataDir)) return PGlite.create(dataDir);
    if (templatePath !== false) {
      const copied = await openCopyOfTemplateFolder(PGlite, templatePath, dataDir);
      if (copied !== undefined) return copied;
    }
  }
  if (templatePath !== false) {
    let template: Uint8Array<ArrayBuffer> | undefined;
    try {
      template = new Uint8Array(readFileSync(templatePath));
    } catch {
      // no template yet: made below
    }
    if (template !== undefined) {
      try {
        return await PGlite.create(dataDir, { loadDataDir: new Blob([template]) });
      } catch {
        // An unreadable template (cut short, another version's): start again from initdb.
        rmSync(templatePath, { force: true });
        if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
        if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true });
      }
    }
  }
  const db = await PGlite.create(dataDir);
  if (templatePath !== false) await keepTemplate(db, templatePath);
  return db;
}

/** The template as a data folder: beside its dump, written once and never changed after. */
export function templateFolderOf(templatePath: string): string {
  return `${templatePath}.d`;
}

/**
 * A new database at `dataDir` as a copy of the template's folder (made from the dump when there
 * is none yet), or undefined when there is no template to copy or the copy does not open: then
 * `dataDir` is empty again, and the folder, if it was the cause, is gone (made again next time).
 */
async function openCopyOfTemplateFolder(
  PGliteClass: PGliteClass,
  templatePath: string,
  dataDir: string,
): Promise<PGlite | undefined> {
  const folder = await templateFolder(PGliteClass, templatePath);
  if (folder === undefined) return undefined;
  try {
    // A clone where the file system can (copy-on-write), a plain copy where it cannot.
    cpSync(folder, dataDir, { recursive: true, mode: constants.COPYFILE_FICLONE });
    return await PGliteClass.create(dataDir);
  } catch {
    rmSync(folder, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true });
    return undefined;
  }
}

/**
 * The template's folder: there already, or made now from the dump (loaded into a folder of this
 * process's own, closed, then renamed into place, so that no process copies half of one; of two
 * processes making it at once, the second's rename fails and the first's folder is used).
 */
async function templateFolder(
  PGliteClass: PGliteClass,
  templatePath: string,
): Promise<string | undefined> {
  const folder = templateFolderOf(templatePath);
  if (holdsDatabase(folder)) return folder;
  let dump: Uint8Array<ArrayBuffer>;
  try {
    dump = new Uint8Array(readFileSync(templatePath));
  } catch {
    return undefined; // no dump yet: the caller makes one
  }
  const partial = `${folder}.${process.pid}.partial`;
  try {
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true });
    const db = await PGliteClass.create(partial, { loadDataDir: new Blob([dump]) });
    await db.close();
    renameSync(partial, folder);
  } catch {
    rmSync(partial, { recursive: true, force: true });
  }
  return holdsDatabase(folder) ? folder : undefined;
}

async function keepTemplate(db: PGlite, templatePath: string): Promise<void> {
  try {
    const dump = new Uint8Array(await (await db.dumpDataDir("none")).arrayBuffer());
    mkdirSync(dirname(templatePath), { recursive: true });
    // Written aside and renamed: a reader never sees half a template.
    const partial = `${templatePath}.${process.pid}.partial`;
    writeFileSync(partial, dump);
    renameSync(partial, templatePath);
  } catch {
    // A cache that cannot be written only costs the next database its initdb.
  }
}
