// Persistence with --data: an append-only JSONL journal, fsync'd before the response is sent,
// replayed on restart by streaming (nothing acknowledged is ever lost).
//
// Recovery rules:
// - a last line without its newline is a write cut short by a crash. If it still parses as a
//   record it is complete (only the newline was lost) and kept; otherwise the file is truncated
//   to the end of the last complete line before anything is appended, and what was dropped is
//   reported on stderr. That record was never acknowledged: the fsync precedes every response.
// - a line in the middle that does not parse is not a crash artefact; it is an error naming the
//   file and line, and the emulator does not start on a journal it cannot read.
import {
  closeSync,
  existsSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readSync,
  renameSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { isObject } from "../model/json-text.js";

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
  onRecord: (rec: StoredRecord) => void,
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
          summary.records += 1;
          onRecord(rec);
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
      if (rec !== null) {
        // Complete record, only its newline is missing: keep it and finish the line.
        summary.records += 1;
        onRecord(rec);
        writeSync(fd, "\n", size);
      } else {
        ftruncateSync(fd, lineStart);
        summary.droppedBytes = pieceBytes;
        report(
          `wfr-emulator: journal ${file}: dropped a torn last line (line ${lineNo + 1}, ${pieceBytes} bytes) left by an interrupted write; it was never acknowledged`,
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

  constructor(readonly file: string) {
    // 0600: the journal holds run inputs and file bytes; only its owner reads it (a journal an
    // older version created readable by all is narrowed too).
    this.fd = openSync(file, "a", JOURNAL_FILE_MODE);
    fchmodSync(this.fd, JOURNAL_FILE_MODE);
  }

  append(record: Storable): void {
    if (this.fd === null) return;
    const line = `${JSON.stringify(record)}\n`;
    this.appendedBytes += writeSync(this.fd, line);
    fsyncSync(this.fd);
    this.capture?.push(line);
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
    const fd = openSync(tmp, "a", JOURNAL_FILE_MODE);
    try {
      if (this.capture.length > 0) writeSync(fd, this.capture.join(""));
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
    return captured;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
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
