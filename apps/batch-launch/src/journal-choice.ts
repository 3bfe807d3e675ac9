// Which launch journal a launcher run uses: PostgreSQL (or PGlite) when
// DATABASE_URL names one, the file journal otherwise. A folder holding an
// older launcher's PGlite journal keeps being used, so that the rows it
// acknowledged are read back, not sent again.
import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { LaunchJournal } from "@wfr/runtime";
import { openFileLaunchJournal } from "./file-launch-journal.js";
import { setWasmTieringFor } from "./wasm-tiering.js";

export interface OpenedJournal {
  readonly launchJournal: LaunchJournal;
  /** Which store holds it, for the start-up line. */
  readonly kind: "file" | "pglite" | "postgres";
  close(): Promise<void>;
}

/** The file inside `dir` that holds the default journal. */
const JOURNAL_FILE_NAME = "journal.jsonl";

export async function openJournal(
  dir: string,
  databaseUrl: string | undefined,
  batch: { readonly rows: number },
): Promise<OpenedJournal> {
  const pgliteDir = databaseUrl ? undefined : holdsPglite(dir) ? dir : undefined;
  if (databaseUrl || pgliteDir) {
    const onPglite = pgliteDir !== undefined || /^pglite:/i.test(databaseUrl ?? "");
    if (onPglite) setWasmTieringFor(batch.rows);
    // Loaded only when asked for: PGlite's WebAssembly and the pg driver cost
    // start-up time a file journal does not need.
    const { openPostgresStores } = await import("@wfr/store-postgres");
    const stores = await openPostgresStores({ databaseUrl, pgliteDataDir: pgliteDir });
    return {
      launchJournal: stores.launchJournal,
      kind: onPglite ? "pglite" : "postgres",
      close: () => stores.close(),
    };
  }
  mkdirSync(dir, { recursive: true });
  const journal = await openFileLaunchJournal(join(dir, JOURNAL_FILE_NAME));
  return { launchJournal: journal, kind: "file", close: () => journal.close() };
}

/** PostgreSQL writes PG_VERSION into a data folder at initdb. */
function holdsPglite(dir: string): boolean {
  try {
    return statSync(join(dir, "PG_VERSION")).isFile();
  } catch {
    return false;
  }
}
