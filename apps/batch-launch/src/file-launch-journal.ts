// The launcher's default journal on one machine: an append-only JSON Lines
// file, written ahead of every change and group-committed (one write and one
// fdatasync for every change that queued meanwhile). Measured reason for not
// using PGlite here (README, "Why a file journal"): PGlite boots PostgreSQL in
// WebAssembly on the launcher's own thread, 1.2-2.4 s before the first launch,
// and each group commit costs milliseconds of that thread; this file costs
// neither. PGlite and PostgreSQL stay one `DATABASE_URL` away, and several
// launchers sharing one file need PostgreSQL.
//
// The state is the runtime's memory journal, rebuilt by replaying the file at
// start; a change is validated against it, written to the file, and only then
// applied, so a reader never sees a state the file does not hold. A kill -9
// in the middle of a write leaves at most one torn last line, which is cut off
// at the next start: that change was never acknowledged to its caller.
import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { open as openFile } from "node:fs/promises";
import {
  createMemoryLaunchJournal,
  type LaunchIntent,
  type LaunchJournal,
  LaunchJournalInvariantError,
  type NewLaunchIntent,
} from "@wfr/runtime";

/** One line of the file: a change of one intent, with the time it was made. */
type JournalLine =
  | ({ readonly op: "record" } & NewLaunchIntent & { readonly at: number })
  | { readonly op: "sent"; readonly intentId: string; readonly at: number }
  | {
      readonly op: "acknowledged";
      readonly intentId: string;
      readonly runId: string;
      readonly at: number;
    }
  | {
      readonly op: "failed";
      readonly intentId: string;
      readonly failure: string;
      readonly at: number;
    };

/** The journal file is held by a live process, or cannot be read as a journal. */
export class FileLaunchJournalError extends Error {
  override name = "FileLaunchJournalError";
  readonly file: string;
  constructor(file: string, message: string) {
    super(`${file}: ${message}`);
    this.file = file;
  }
}

export interface FileLaunchJournal extends LaunchJournal {
  /** Waits for the writes in flight, closes the file and releases its lock. */
  close(): Promise<void>;
}

/**
 * Opens (or creates) the journal at `file`, taking `<file>.lock` for this
 * process: a second launcher on the same file is refused while the first is
 * alive, and takes over the lock of one that was killed.
 */
export async function openFileLaunchJournal(file: string): Promise<FileLaunchJournal> {
  const lock = `${file}.lock`;
  takeLock(file, lock);
  let clock: number | undefined;
  const memory = createMemoryLaunchJournal({ now: () => clock ?? Date.now() });
  let valid: number;
  try {
    valid = await replay(file, memory, (at) => {
      clock = at;
    });
  } catch (error) {
    rmSync(lock, { force: true });
    throw error;
  } finally {
    clock = undefined;
  }
  const handle = await openFile(file, "a+");
  // A torn last line (a kill -9 during a write) is cut off before appending.
  if ((await handle.stat()).size > valid) await handle.truncate(valid);

  type Waiter = { line: JournalLine; resolve: () => void; reject: (error: unknown) => void };
  let pending: Waiter[] = [];
  let writing: Promise<void> | undefined;
  const drain = async () => {
    while (pending.length > 0) {
      const batch = pending;
      pending = [];
      try {
        await handle.write(batch.map((w) => `${JSON.stringify(w.line)}\n`).join(""));
        await handle.datasync();
      } catch (error) {
        for (const waiter of batch) waiter.reject(error);
        continue;
      }
      for (const waiter of batch) waiter.resolve();
    }
    writing = undefined;
  };
  const append = (line: JournalLine) =>
    new Promise<void>((resolve, reject) => {
      pending.push({ line, resolve, reject });
      // Changes made in the same turn of the event loop share one write.
      writing ??= new Promise<void>((started) => setImmediate(started)).then(drain);
    });

  // The memory journal reads the clock when a change is applied; a live change
  // takes the time written in its line, so that a reopened journal holds the
  // same times. (The memory journal's methods read it before their first await.)
  const applyAt = <T>(at: number, change: () => Promise<T>): Promise<T> => {
    clock = at;
    try {
      return change();
    } finally {
      clock = undefined;
    }
  };
  const existing = async (intentId: string): Promise<LaunchIntent> => {
    const intent = await memory.get(intentId);
    if (!intent) throw LaunchJournalInvariantError.unknownIntent(intentId);
    return intent;
  };
  // Of concurrent records of one intent, the first written wins; the others
  // wait for it instead of writing a line replay would ignore anyway.
  const recording = new Map<string, Promise<LaunchIntent>>();

  return {
    async record(intent) {
      const stored = (await memory.get(intent.intentId)) ?? recording.get(intent.intentId);
      if (stored) return stored;
      const written = (async () => {
        const line: JournalLine = {
          op: "record",
          intentId: intent.intentId,
          idempotencyKey: intent.idempotencyKey,
          bodyFingerprint: intent.bodyFingerprint,
          at: Date.now(),
        };
        await append(line);
        return applyAt(line.at, () => memory.record(intent));
      })();
      recording.set(intent.intentId, written);
      try {
        return await written;
      } finally {
        recording.delete(intent.intentId);
      }
    },
    async markSent(intentId) {
      const intent = await existing(intentId);
      if (intent.state === "acknowledged") return;
      const at = Date.now();
      // Not waited for: the launch goes out while this line joins the next
      // write. Losing it (a crash before that write) leaves the intent
      // "recorded", which is resent with the same key and body exactly as a
      // "sent" one is; the acknowledgement after it is waited for.
      append({ op: "sent", intentId, at }).catch(() => undefined);
      await applyAt(at, () => memory.markSent(intentId));
    },
    async markAcknowledged(intentId, runId) {
      const intent = await existing(intentId);
      if (intent.state === "acknowledged") {
        if (intent.runId !== runId)
          throw LaunchJournalInvariantError.secondRun(intentId, intent.runId ?? "", runId);
        return;
      }
      const at = Date.now();
      await append({ op: "acknowledged", intentId, runId, at });
      await applyAt(at, () => memory.markAcknowledged(intentId, runId));
    },
    async markFailed(intentId, failure) {
      const intent = await existing(intentId);
      if (intent.state === "acknowledged") return;
      const at = Date.now();
      await append({ op: "failed", intentId, failure, at });
      await applyAt(at, () => memory.markFailed(intentId, failure));
    },
    get: (intentId) => memory.get(intentId),
    listUnacknowledged: (options) => memory.listUnacknowledged(options),
    async close() {
      await writing;
      await handle.close();
      rmSync(lock, { force: true });
    },
  };
}

/** Applies every whole line of the file to `memory`; returns the byte length of those lines. */
async function replay(
  file: string,
  memory: LaunchJournal,
  setClock: (at: number) => void,
): Promise<number> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw error;
  }
  let offset = 0;
  let lineNumber = 0;
  for (;;) {
    const end = text.indexOf("\n", offset);
    if (end === -1) break; // no newline: a torn last line, or nothing more
    lineNumber += 1;
    const raw = text.slice(offset, end);
    let line: JournalLine;
    try {
      line = JSON.parse(raw) as JournalLine;
    } catch {
      // A last line cut short by a crash before its newline reached the disk
      // (a power loss, not a kill) is torn like one without a newline.
      if (text.indexOf("\n", end + 1) === -1) break;
      throw new FileLaunchJournalError(
        file,
        `line ${lineNumber} is not JSON; the journal was changed by something else than the launcher`,
      );
    }
    setClock(line.at);
    await applyLine(line, memory, file, lineNumber);
    offset = end + 1;
  }
  // `offset` counts UTF-16 units; the file is truncated by bytes.
  return Buffer.byteLength(text.slice(0, offset), "utf8");
}

async function applyLine(
  line: JournalLine,
  memory: LaunchJournal,
  file: string,
  lineNumber: number,
): Promise<void> {
  switch (line.op) {
    case "record":
      await memory.record({
        intentId: line.intentId,
        idempotencyKey: line.idempotencyKey,
        bodyFingerprint: line.bodyFingerprint,
      });
      return;
    case "sent":
      await memory.markSent(line.intentId);
      return;
    case "acknowledged":
      await memory.markAcknowledged(line.intentId, line.runId);
      return;
    case "failed":
      await memory.markFailed(line.intentId, line.failure);
      return;
    default:
      throw new FileLaunchJournalError(
        file,
        `line ${lineNumber} has an unknown op ${JSON.stringify((line as { op?: unknown }).op)}`,
      );
  }
}

/** `<file>.lock` holds the pid of the process using the journal. */
function takeLock(file: string, lock: string): void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lock, "wx");
      writeFileSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = Number.parseInt(readLockHolder(lock), 10);
    if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder))
      throw new FileLaunchJournalError(
        file,
        `in use by process ${holder}; one launcher at a time uses a file journal (set DATABASE_URL to a PostgreSQL database to share a journal between launchers)`,
      );
    // Its holder is gone (killed): the lock is stale.
    rmSync(lock, { force: true });
  }
  throw new FileLaunchJournalError(file, `could not take ${lock}`);
}

function readLockHolder(lock: string): string {
  try {
    return readFileSync(lock, "utf8");
  } catch {
    return "";
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
