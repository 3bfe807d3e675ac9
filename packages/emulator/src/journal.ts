// Persistence with --data: an append-only JSONL journal, fsync'd before the response is sent,
// replayed on restart (issue 3: "stopping (even kill -9) and restarting loses no accepted run,
// event, answer or pending callback; runs continue").
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from "node:fs";

export type JournalRecord = { t: string; [k: string]: unknown };

export class Journal {
  private fd: number | null;

  constructor(readonly file: string) {
    this.fd = openSync(file, "a");
  }

  append(record: JournalRecord): void {
    if (this.fd === null) return;
    writeSync(this.fd, `${JSON.stringify(record)}\n`);
    fsyncSync(this.fd);
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /** Records of an existing journal; a torn last line (crash mid-write) is skipped. */
  static read(file: string): JournalRecord[] {
    if (!existsSync(file)) return [];
    const out: JournalRecord[] = [];
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (line.trim() === "") continue;
      try {
        const rec = JSON.parse(line) as JournalRecord;
        if (rec && typeof rec.t === "string") out.push(rec);
      } catch {
        /* torn write: the record was never acknowledged */
      }
    }
    return out;
  }
}
