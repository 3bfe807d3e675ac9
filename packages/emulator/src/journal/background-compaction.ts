// Compaction of the journal while the emulator runs (compact on start or in the
// background), so that the journal does not grow without bound. Each state change appends a record, so a long-running emulator's journal
// grows with superseded records even though the live state does not.
//
// How it stays safe and short:
// - the live state is taken in one synchronous step (one consistent point in time): the records,
//   with runs as frozen copies that share their never-changing launch fields (frozenRun), so this
//   step costs little; they are then serialized about 1 MiB at a time, yielding in between;
// - from that point every appended record is also captured (Journal.startCapture), and appends
//   keep going to the old journal, fsync'd as always, so a crash at any moment leaves the old
//   journal with every acknowledged record;
// - the snapshot is written to `<file>.compacting` asynchronously in 1 MiB chunks;
// - the swap (captured records appended, fsync, rename, reopen) is synchronous, so no record can
//   be written between the snapshot's tail and the rename; it waits for the batch on disk, if
//   any, to finish (journal.ts), and lines still queued are among the captured ones.
import { open, rm } from "node:fs/promises";
import { JOURNAL_FILE_MODE, type Journal, type Storable } from "./journal.js";
import { compactedHeader } from "./torn-tail.js";

export const DEFAULT_COMPACT_AFTER_BYTES = 64 * 1024 * 1024;
const CHUNK = 1 << 20;

export interface CompactionReport {
  bytes: number;
  /** The longest synchronous piece (snapshot, or one slice of serialization) the loop was held. */
  longestSliceMs: number;
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
    private readonly snapshot: () => Iterable<Storable>,
    private readonly thresholdBytes: number,
    private liveBytes: number,
    private readonly report: (message: string) => void = (m) => process.stderr.write(`${m}\n`),
    /**
     * Awaited before the swap: what the snapshot leaves out because it lives elsewhere (finished
     * runs moved to the run archive, run-archive.ts) must be durable there first.
     */
    private readonly beforeSwap: () => Promise<void> = async () => {},
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
    // One consistent point in time: the records (runs as frozen copies), not yet their text.
    const records = [...this.snapshot()];
    this.journal.startCapture();
    let longestSliceMs = performance.now() - t0;
    const tmp = `${this.journal.file}.compacting`;
    let bytes = 0;
    let capturedRecords = 0;
    try {
      const fh = await open(tmp, "w", JOURNAL_FILE_MODE);
      try {
        // The header's length is filled in by the swap (torn-tail.ts).
        bytes += (await fh.write(compactedHeader(0))).bytesWritten;
        // Serialize about 1 MiB at a time, yielding to the event loop between pieces.
        let piece: string[] = [];
        let pieceLen = 0;
        let sliceStart = performance.now();
        for (const rec of records) {
          const line = `${JSON.stringify(rec)}\n`;
          piece.push(line);
          pieceLen += line.length;
          if (pieceLen >= CHUNK) {
            const text = piece.join("");
            piece = [];
            pieceLen = 0;
            longestSliceMs = Math.max(longestSliceMs, performance.now() - sliceStart);
            bytes += (await fh.write(text)).bytesWritten;
            sliceStart = performance.now();
          }
        }
        if (piece.length > 0) bytes += (await fh.write(piece.join(""))).bytesWritten;
        await fh.sync();
      } finally {
        await fh.close();
      }
      await this.beforeSwap();
      capturedRecords = await this.journal.swapInWhenSettled(tmp);
    } catch (e) {
      this.journal.stopCapture();
      await rm(tmp, { force: true });
      this.report(`wfr-emulator: background compaction failed, journal unchanged: ${e}`);
      return null;
    }
    this.liveBytes = bytes;
    this.compactions += 1;
    this.last = { bytes, longestSliceMs, totalMs: performance.now() - t0, capturedRecords };
    return this.last;
  }
}
