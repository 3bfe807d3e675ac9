// Finished runs on disk, so that memory stays flat however long the emulator runs (with --data).
// A run that has finished never changes again; past the limit of finished runs kept in memory
// (`finishedRunsInMemory`), the oldest is written whole to `<data>.runs` (JSONL, 0600, the
// journal's group commit: journal.ts) and dropped from memory. What stays in memory per run is its
// listing (the fields the run history shows and filters on) and where its line is; the run is
// read back on demand (API reads, run pages, the admin API, export), one line at a time.
//
// The journal keeps a run's records until a compaction leaves them out, and a compaction leaves a
// run out only once this file holds it fsync'd (background-compaction.ts `beforeSwap`), so a
// crash at any moment leaves every run in one of the two files. An environment reset appends a
// `reset` line, so the runs it forgot stay forgotten after the journal that said so is compacted.
import { closeSync, openSync, readSync, statSync } from "node:fs";
import type { RunListing, RunRecord } from "../model/types.js";
import { Journal, replayJournal } from "./journal.js";

type ArchiveLine = { t: "run"; run: RunRecord } | { t: "reset"; env: string };

/**
 * A run on disk as memory holds it: its listing and where its line is. A class, so that every
 * entry shares one shape: built by object spread, each entry got a hidden class of its own (a map,
 * a descriptor array and a property array: about 430 of the 718 bytes a run cost in a heap
 * snapshot diff).
 */
class Entry implements RunListing {
  readonly run_id: string;
  readonly environment: string;
  readonly workspace: string;
  readonly workflow_id: string;
  readonly status: RunListing["status"];
  readonly created_at: number;
  readonly started_at: number | null;
  readonly finished_at: number | null;
  readonly idempotency_key: string | null;
  readonly source: RunListing["source"];
  constructor(
    run: RunRecord,
    intern: (s: string) => string,
    readonly offset: number,
    readonly length: number,
  ) {
    this.run_id = run.run_id;
    this.environment = intern(run.environment);
    this.workspace = intern(run.workspace);
    this.workflow_id = intern(run.workflow_id);
    this.status = intern(run.status) as RunListing["status"];
    this.created_at = run.created_at;
    this.started_at = run.started_at;
    this.finished_at = run.finished_at;
    this.idempotency_key = run.idempotency_key;
    this.source = run.source;
  }
}

export class RunArchive {
  private readonly entries = new Map<string, Entry>();
  /** Runs whose line is queued but not yet fsync'd: read from here until it is. */
  private readonly unwritten = new Map<string, RunRecord>();
  private readonly strings = new Map<string, string>();
  private journal: Journal | null = null;
  private readFd: number | null = null;
  private size = 0;

  constructor(readonly file: string) {}

  /**
   * Read the archive's index (start-up): each run's listing and place; `onRun` sees every run
   * once, to re-learn what must outlive memory (its idempotency key).
   */
  load(onRun: (run: RunRecord) => void): void {
    replayJournal(this.file, (rec, offset, length) => {
      const line = rec as unknown as ArchiveLine;
      if (line.t === "reset") this.forgetEnvironment(line.env, false);
      else if (line.t === "run") {
        this.entries.set(line.run.run_id, new Entry(line.run, this.intern, offset, length));
        onRun(line.run);
      }
    });
    this.journal = new Journal(this.file);
    this.size = statSync(this.file).size;
    this.readFd = openSync(this.file, "r");
  }

  /** One copy of each environment, workspace, workflow and status name. */
  private readonly intern = (value: string): string => {
    const known = this.strings.get(value);
    if (known !== undefined) return known;
    this.strings.set(value, value);
    return value;
  };

  has(runId: string): boolean {
    return this.entries.has(runId);
  }

  get count(): number {
    return this.entries.size;
  }

  /** Write a finished run to disk (queued; durable after `durable()`). */
  put(run: RunRecord): void {
    if (!this.journal) throw new Error("run archive not loaded");
    const offset = this.size;
    const length = this.journal.append({ t: "run", run });
    this.size += length;
    this.entries.set(run.run_id, new Entry(run, this.intern, offset, length));
    this.unwritten.set(run.run_id, run);
    this.journal.durable()?.then(
      () => this.unwritten.delete(run.run_id),
      () => {},
    );
  }

  /** The run as it finished, read back from disk (a fresh copy each time). */
  get(runId: string): RunRecord | undefined {
    const waiting = this.unwritten.get(runId);
    if (waiting) return waiting;
    const e = this.entries.get(runId);
    if (!e) return undefined;
    this.readFd ??= openSync(this.file, "r");
    const buf = Buffer.allocUnsafe(e.length);
    let got = 0;
    while (got < e.length) {
      const n = readSync(this.readFd, buf, got, e.length - got, e.offset + got);
      if (n <= 0) throw new Error(`run archive ${this.file}: run ${runId} is cut short`);
      got += n;
    }
    return (JSON.parse(buf.toString("utf8")) as { run: RunRecord }).run;
  }

  /** The listings of the runs on disk (each with where its line is, which readers ignore). */
  listings(): IterableIterator<RunListing> {
    return this.entries.values();
  }

  /** Forget an environment's runs (reset), and say so in the file when `persist`. */
  forgetEnvironment(env: string, persist = true): Set<string> {
    const gone = new Set<string>();
    for (const [id, e] of this.entries) if (e.environment === env) gone.add(id);
    for (const id of gone) {
      this.entries.delete(id);
      this.unwritten.delete(id);
    }
    if (persist && gone.size > 0 && this.journal)
      this.size += this.journal.append({ t: "reset", env });
    return gone;
  }

  /** Everything put so far is fsync'd. */
  async durable(): Promise<void> {
    await this.journal?.durable();
  }

  async close(): Promise<void> {
    await this.journal?.close();
    this.journal = null;
    if (this.readFd !== null) closeSync(this.readFd);
    this.readFd = null;
  }
}
