// Compaction of the journal while the emulator runs (issue 9 "Growth": compact on start or in
// the background). Each state change appends a record, so a long-running emulator's journal
// grows with superseded records even though the live state does not.
//
// How it stays safe and short:
// - the live state is serialized in one synchronous step (so it is one consistent point in time;
//   the only event-loop stall, proportional to the live state, measured in the README);
// - from that point every appended record is also captured (Journal.startCapture), and appends
//   keep going to the old journal, fsync'd as always, so a crash at any moment leaves the old
//   journal with every acknowledged record;
// - the snapshot is written to `<file>.compacting` asynchronously in 1 MiB chunks;
// - the swap (captured records appended, fsync, rename, reopen) is synchronous, so no record can
//   be written between the snapshot's tail and the rename.
import { open, rm } from "node:fs/promises";
import type { Journal, JournalRecord } from "./journal.js";

export const DEFAULT_COMPACT_AFTER_BYTES = 64 * 1024 * 1024;
const CHUNK = 1 << 20;

export interface CompactionReport {
  bytes: number;
  /** The synchronous serialization of the live state: the longest the event loop was held. */
  serializeMs: number;
  totalMs: number;
  /** Records appended while the snapshot was being written (carried into the new file). */
  capturedRecords: number;
}

export class BackgroundCompactor {
  private running: Promise<CompactionReport | null> | null = null;
  private scheduled = false;
  private stopped = false;
  compactions = 0;
  last: CompactionReport | null = null;

  /**
   * `liveBytes`: the journal's size right after the last compaction (or start). A compaction
   * starts when the bytes appended since exceed both `thresholdBytes` and `liveBytes` (every
   * appended byte is at most superseded bytes, and the file is then at least half superseded).
   */
  constructor(
    private readonly journal: Journal,
    private readonly snapshot: () => Iterable<JournalRecord>,
    private readonly thresholdBytes: number,
    private liveBytes: number,
    private readonly report: (message: string) => void = (m) => process.stderr.write(`${m}\n`),
  ) {}

  /** Called after each append; starts a compaction on a later tick (never inside a change). */
  maybeStart(): void {
    if (this.stopped || this.running || this.scheduled) return;
    if (this.journal.appendedBytes <= Math.max(this.thresholdBytes, this.liveBytes)) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.compactNow();
    });
  }

  /** Compact now (or join the compaction under way). */
  compactNow(): Promise<CompactionReport | null> {
    if (this.stopped) return Promise.resolve(null);
    if (!this.running) {
      this.running = this.compact().finally(() => {
        this.running = null;
        this.maybeStart();
      });
    }
    return this.running;
  }

  /** Let a compaction under way finish; start no more. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async compact(): Promise<CompactionReport | null> {
    const t0 = performance.now();
    const chunks: string[] = [];
    let piece: string[] = [];
    let pieceLen = 0;
    for (const rec of this.snapshot()) {
      const line = `${JSON.stringify(rec)}\n`;
      piece.push(line);
      pieceLen += line.length;
      if (pieceLen >= CHUNK) {
        chunks.push(piece.join(""));
        piece = [];
        pieceLen = 0;
      }
    }
    if (piece.length > 0) chunks.push(piece.join(""));
    this.journal.startCapture();
    const serializeMs = performance.now() - t0;
    const tmp = `${this.journal.file}.compacting`;
    let bytes = 0;
    let capturedRecords = 0;
    try {
      const fh = await open(tmp, "w");
      try {
        for (const c of chunks) bytes += (await fh.write(c)).bytesWritten;
        await fh.sync();
      } finally {
        await fh.close();
      }
      capturedRecords = this.journal.swapIn(tmp);
    } catch (e) {
      this.journal.stopCapture();
      await rm(tmp, { force: true });
      this.report(`wfr-emulator: background compaction failed, journal unchanged: ${e}`);
      return null;
    }
    this.liveBytes = bytes;
    this.compactions += 1;
    this.last = { bytes, serializeMs, totalMs: performance.now() - t0, capturedRecords };
    return this.last;
  }
}
