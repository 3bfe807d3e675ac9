// Persistence with --data: an append-only JSONL journal, replayed on restart by streaming.
//
// Group commit: `append` only queues the line (on the event loop: the record's JSON); the
// writing and the fsync run on libuv's thread pool, one batch at a time, every line queued while
// a batch is on disk going into the next one (as the PostgreSQL store batches its writes). What
// the emulator promises is unchanged: an answer that shows a change is sent only after the
// change's record is fsync'd (`durable()`, awaited by the HTTP edge before a byte of the
// answer: server/durable-responses.ts), so nothing acknowledged is ever lost.
//
// Recovery rules:
// - a last line without its newline is a write cut short by a crash. If it still parses as a
//   record it is complete (only the newline was lost) and kept; otherwise the file is truncated
//   to the end of the last complete line before anything is appended, and stderr says which
//   record was dropped and whether it had been acknowledged (torn-tail.ts): a compacted file
//   begins with a `compacted` header giving the snapshot's length, so a line inside the
//   snapshot is state acknowledged before the compaction (damage, not a crash), and a line
//   after it is an append a crash interrupted before its fsync, which nobody was told about.
// - a line in the middle that does not parse is not a crash artefact; it is an error naming the
//   file and line, and the emulator does not start on a journal it cannot read.
import {
  closeSync,
  existsSync,
  fchmodSync,
  fdatasync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readSync,
  renameSync,
  write,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { promisify } from "node:util";
import { isObject } from "../model/json-text.js";
import { COMPACTED, compactedHeader, describeTornTail, type SnapshotHeader } from "./torn-tail.js";

const writeAsync = promisify(write);
const fdatasyncAsync = promisify(fdatasync);

/**
 * A line of the journal as this file reads and writes it: any object with a string `t`. What the
 * records are, and the one function that applies each, are journal-records.ts and
 * state-changes.ts; this file only keeps them durable.
 */

/** The journal and its compaction files: owner read and write only (they hold run inputs and file bytes). */
export const JOURNAL_FILE_MODE = 0o600;
export type StoredRecord = { t: string; [k: string]: unknown };
/** What the journal stores: any record with a string `t` (the typed union is one). */
export type Storable = { readonly t: string; readonly [k: string]: unknown };

export class JournalCorruptError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    reason: string,
  ) {
    super(`journal ${file} line ${line}: ${reason}; the emulator will not guess what it held`);
  }
}

interface ReplaySummary {
  /** State records (the `compacted` header is not one). */
  records: number;
  bytes: number;
  /** Bytes of a torn last line that were cut off (0 when the journal ended cleanly). */
  droppedBytes: number;
}

const CHUNK = 1 << 20;
const NEWLINE = 0x0a;

function parseRecord(text: string): StoredRecord | null {
  try {
    const rec = JSON.parse(text) as unknown;
    if (isObject(rec) && typeof rec.t === "string") return rec as StoredRecord;
  } catch {
    /* not a record */
  }
  return null;
}

/**
 * Stream the records of `file` to `onRecord`, one line at a time (never the whole file as one
 * string), repairing a torn tail as described above. Returns what was read.
 */
export function replayJournal(
  file: string,
  /** `offset` and `length`: where the record's line is in the file (newline included). */
  onRecord: (rec: StoredRecord, offset: number, length: number) => void,
  report: (message: string) => void = (m) => process.stderr.write(`${m}\n`),
): ReplaySummary {
  const summary: ReplaySummary = { records: 0, bytes: 0, droppedBytes: 0 };
  if (!existsSync(file)) return summary;
  const fd = openSync(file, "r+");
  try {
    const size = fstatSync(fd).size;
    summary.bytes = size;
    const buf = Buffer.allocUnsafe(CHUNK);
    let pieces: Buffer[] = [];
    let pieceBytes = 0;
    let lineNo = 0;
    let lineStart = 0; // file offset where the current (unfinished) line begins
    let header: SnapshotHeader | null = null;
    let pos = 0;
    while (pos < size) {
      const n = readSync(fd, buf, 0, Math.min(CHUNK, size - pos), pos);
      if (n <= 0) break;
      let from = 0;
      for (let nl = buf.indexOf(NEWLINE, 0); nl !== -1 && nl < n; nl = buf.indexOf(NEWLINE, from)) {
        const part = buf.subarray(from, nl);
        const line =
          pieces.length === 0 ? part : Buffer.concat([...pieces, part], pieceBytes + part.length);
        pieces = [];
        pieceBytes = 0;
        lineNo += 1;
        const text = line.toString("utf8");
        if (text.trim() !== "") {
          const rec = parseRecord(text);
          if (rec === null)
            throw new JournalCorruptError(file, lineNo, "not a JSON journal record");
          if (rec.t === COMPACTED) {
            if (lineNo === 1) header = { bytes: Number(rec.bytes) };
          } else {
            summary.records += 1;
            onRecord(rec, lineStart, pos + nl + 1 - lineStart);
          }
        }
        from = nl + 1;
        lineStart = pos + from;
      }
      if (from < n) {
        pieces.push(Buffer.from(buf.subarray(from, n)));
        pieceBytes += n - from;
      }
      pos += n;
    }
    if (pieceBytes > 0) {
      const text = Buffer.concat(pieces, pieceBytes).toString("utf8");
      const rec = text.trim() === "" ? null : parseRecord(text);
      if (rec !== null && rec.t !== COMPACTED) {
        // Complete record, only its newline is missing: keep it and finish the line.
        summary.records += 1;
        onRecord(rec, lineStart, size + 1 - lineStart);
        writeSync(fd, "\n", size);
      } else {
        ftruncateSync(fd, lineStart);
        summary.droppedBytes = pieceBytes;
        const what = describeTornTail(text, lineStart, header);
        report(
          `wfr-emulator: journal ${file}: dropped a torn last line (line ${lineNo + 1}, ${pieceBytes} bytes): ${what}`,
        );
      }
      fsyncSync(fd);
    }
  } finally {
    closeSync(fd);
  }
  return summary;
}

export class Journal {
  private fd: number | null;
  /** Bytes appended since open or the last compaction (background-compaction.ts). */
  appendedBytes = 0;
  /** While a background compaction writes its snapshot, every appended line is kept here too. */
  private capture: string[] | null = null;
  /** Lines queued for the next batch, and how many lines were ever queued / are fsync'd. */
  private queued: string[] = [];
  private appended = 0;
  private synced = 0;
  private flushing: Promise<void> | null = null;
  /** Waiters for a line count to be fsync'd, in order. */
  private waiters: { upTo: number; resolve: () => void; reject: (e: Error) => void }[] = [];
  /** The write or fsync that failed: nothing after it is acknowledged, and appends refuse. */
  private failure: Error | null = null;
  /** Batches written (each one write and one fsync), for tests and the bench. */
  batches = 0;

  constructor(readonly file: string) {
    // 0600: the journal holds run inputs and file bytes; only its owner reads it (a journal an
    // older version created readable by all is narrowed too).
    this.fd = openSync(file, "a", JOURNAL_FILE_MODE);
    fchmodSync(this.fd, JOURNAL_FILE_MODE);
  }

  /**
   * Queue a record for the next batch; its line's length in bytes. Throws (and the change is not made: state-changes.ts)
   * when the record cannot be serialized or the journal failed.
   */
  append(record: Storable): number {
    if (this.fd === null) return 0;
    if (this.failure) throw this.failure;
    const line = `${JSON.stringify(record)}\n`;
    const bytes = Buffer.byteLength(line);
    this.queued.push(line);
    this.appended += 1;
    this.appendedBytes += bytes;
    this.capture?.push(line);
    this.flushing ??= this.flush();
    return bytes;
  }

  /**
   * Everything appended so far is on disk: null when it already is, else a promise settled
   * after the batch holding the last appended line was fsync'd (rejected if that failed).
   */
  durable(): Promise<void> | null {
    if (this.failure) return Promise.reject(this.failure);
    if (this.synced >= this.appended) return null;
    const upTo = this.appended;
    return new Promise((resolve, reject) => this.waiters.push({ upTo, resolve, reject }));
  }

  /** Write and fsync batches until nothing is queued; one batch on disk at a time. */
  private async flush(): Promise<void> {
    try {
      while (this.queued.length > 0 && this.fd !== null) {
        const lines = this.queued;
        this.queued = [];
        const upTo = this.synced + lines.length;
        const fd = this.fd;
        const text = Buffer.from(lines.join(""));
        let off = 0;
        while (off < text.length)
          off += (await writeAsync(fd, text, off, text.length - off)).bytesWritten;
        await fdatasyncAsync(fd);
        this.batches += 1;
        this.synced = upTo;
        while (this.waiters[0] && this.waiters[0].upTo <= this.synced)
          this.waiters.shift()?.resolve();
      }
    } catch (e) {
      this.failure = new Error(`journal ${this.file}: write failed: ${(e as Error).message}`);
      for (const w of this.waiters.splice(0)) w.reject(this.failure);
    } finally {
      this.flushing = null;
    }
  }

  /** The batch on disk now, if any, is done (a swap or a close never cuts one in half). */
  async settled(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** `swapIn` once no batch is on disk (checked again after each wait, in the same step). */
  async swapInWhenSettled(tmp: string): Promise<number> {
    while (this.flushing) await this.flushing;
    return this.swapIn(tmp);
  }

  /** From now on, keep a copy of each appended line for `swapIn`. */
  startCapture(): void {
    this.capture = [];
  }

  stopCapture(): void {
    this.capture = null;
  }

  /**
   * Finish a background compaction, synchronously (no append can interleave): append the lines
   * captured since the snapshot to `tmp`, fsync it, rename it over the journal and append to it
   * from now on. A crash before the rename leaves the old journal, which holds every record.
   */
  swapIn(tmp: string): number {
    if (this.fd === null || this.capture === null) throw new Error("no compaction in progress");
    if (this.flushing) throw new Error("swapIn while a batch is being written");
    const fd = openSync(tmp, "r+", JOURNAL_FILE_MODE);
    try {
      let size = fstatSync(fd).size;
      if (this.capture.length > 0) size += writeSync(fd, this.capture.join(""), size);
      // The captured lines were acknowledged from the old journal: the header covers them too.
      writeSync(fd, compactedHeader(size), 0);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
    fsyncDir(this.file);
    closeSync(this.fd);
    this.fd = openSync(this.file, "a", JOURNAL_FILE_MODE);
    const captured = this.capture.length;
    this.capture = null;
    this.appendedBytes = 0;
    // The queued lines were captured, so the new file holds them, fsync'd: they are durable.
    this.queued = [];
    this.synced = this.appended;
    for (const w of this.waiters.splice(0)) w.resolve();
    return captured;
  }

  /** Write what is queued, then close. */
  async close(): Promise<void> {
    await this.settled();
    if (this.queued.length > 0 && this.fd !== null) {
      this.flushing = this.flush();
      await this.settled();
    }
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    for (const w of this.waiters.splice(0)) w.reject(new Error("journal closed"));
  }

  /**
   * Compaction: write `records` to a new file, fsync it, then rename it over `file`, so a crash
   * at any moment leaves either the old journal or the new one, never a mix.
   */
  static rewrite(file: string, records: Iterable<Storable>): number {
    const tmp = `${file}.compacting`;
    const fd = openSync(tmp, "w", JOURNAL_FILE_MODE);
    let bytes = 0;
    try {
      bytes += writeSync(fd, compactedHeader(0));
      let batch: string[] = [];
      let batchLen = 0;
      for (const rec of records) {
        const line = `${JSON.stringify(rec)}\n`;
        batch.push(line);
        batchLen += line.length;
        if (batchLen > CHUNK) {
          bytes += writeSync(fd, batch.join(""));
          batch = [];
          batchLen = 0;
        }
      }
      if (batch.length > 0) bytes += writeSync(fd, batch.join(""));
      writeSync(fd, compactedHeader(bytes), 0);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
    fsyncDir(file);
    return bytes;
  }
}

/** Make a rename durable. */
function fsyncDir(file: string): void {
  try {
    const dfd = openSync(dirname(file), "r");
    fsyncSync(dfd);
    closeSync(dfd);
  } catch {
    /* directories cannot be fsync'd on every platform */
  }
}
