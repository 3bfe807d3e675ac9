// Spec, Launch: "On a lost response the caller resends the identical body with
// the original key. A new intended execution uses a new key." A launch journal
// remembers, before anything is sent, which key and which body belong to one
// intent of the caller, so that after a crash any instance resends exactly
// that request and the service returns the original run.
import { CODE } from "@wfr/protocol";
import { WorkflowRunApiError } from "./errors.js";

/**
 * - `recorded`: the intent is written; nothing may have been sent yet.
 * - `sent`: a request may have reached the service; resend with the same key.
 * - `acknowledged`: the service answered 202 with `runId`; nothing more to send.
 * - `failed`: the service refused the request for good (a 4xx other than 429).
 */
export type LaunchIntentState = "recorded" | "sent" | "acknowledged" | "failed";

export interface LaunchIntent {
  /** The caller's own id for this intended execution (an invoice id, a row number). */
  readonly intentId: string;
  readonly idempotencyKey: string;
  /** SHA-256 (hex) of the exact request body bytes. */
  readonly bodyFingerprint: string;
  readonly state: LaunchIntentState;
  readonly runId: string | null;
  readonly failure: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface NewLaunchIntent {
  readonly intentId: string;
  readonly idempotencyKey: string;
  readonly bodyFingerprint: string;
}

export interface ListUnacknowledgedOptions {
  /** Only intents not touched for at least this long (default 0). */
  readonly olderThanMs?: number;
  /** At most this many, oldest first (default 100). */
  readonly limit?: number;
}

/**
 * Shared by every instance of a caller. Implementations must make `record`
 * atomic: of two instances recording the same `intentId` at once, both get
 * back the one record that was written first.
 */
export interface LaunchJournal {
  /** Writes the intent if it is new; returns the stored intent either way. */
  record(intent: NewLaunchIntent): Promise<LaunchIntent>;
  markSent(intentId: string): Promise<void>;
  /**
   * Marks the intent acknowledged with its run. Acknowledging it again with
   * the same run is a no-op; with a different run it throws
   * {@link LaunchJournalInvariantError}: one intent never has two runs.
   */
  markAcknowledged(intentId: string, runId: string): Promise<void>;
  markFailed(intentId: string, failure: string): Promise<void>;
  get(intentId: string): Promise<LaunchIntent | undefined>;
  /** Intents recorded or sent but never acknowledged: the ones to resend after a crash. */
  listUnacknowledged(options?: ListUnacknowledgedOptions): Promise<LaunchIntent[]>;
}

/** A journal was asked for a transition its invariants forbid (a bug or a corrupted store). */
export class LaunchJournalInvariantError extends WorkflowRunApiError {
  override name = "LaunchJournalInvariantError";
  readonly intentId: string;
  constructor(intentId: string, message: string) {
    super({ status: null, code: CODE.LAUNCH_JOURNAL_INVARIANT, message });
    this.intentId = intentId;
  }

  static unknownIntent(intentId: string): LaunchJournalInvariantError {
    return new LaunchJournalInvariantError(
      intentId,
      `launch intent ${JSON.stringify(intentId)} was never recorded`,
    );
  }

  static secondRun(
    intentId: string,
    storedRunId: string,
    runId: string,
  ): LaunchJournalInvariantError {
    return new LaunchJournalInvariantError(
      intentId,
      `launch intent ${JSON.stringify(intentId)} is acknowledged with run ${storedRunId}; refusing a second run ${runId}`,
    );
  }
}

/** The part of `node:crypto` a fingerprint needs. */
interface SyncHashing {
  createHash(algorithm: "sha256"): {
    update(data: Uint8Array | string): { digest(encoding: "hex"): string };
  };
}

// Web Crypto's digest is asynchronous: on Node each call is a thread-pool job
// and two promise turns, most of a journaled launch's own CPU at high
// concurrency. Where the platform hands out `node:crypto` without an import
// (Node >= 20.16, Bun, Deno), hash synchronously; elsewhere Web Crypto.
const syncHashing = (() => {
  const platform = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } })
    .process;
  try {
    const crypto = platform?.getBuiltinModule?.("node:crypto") as SyncHashing | undefined;
    return typeof crypto?.createHash === "function" ? crypto : undefined;
  } catch {
    return undefined;
  }
})();

/** The same digest as {@link fingerprintBody} now, or undefined where only Web Crypto can make it. */
export function fingerprintBodySync(body: Uint8Array | string): string | undefined {
  return syncHashing?.createHash("sha256").update(body).digest("hex");
}

/** SHA-256 of the body bytes, hex: the same digest on every runtime. */
export async function fingerprintBody(body: Uint8Array | string): Promise<string> {
  const now = fingerprintBodySync(body);
  if (now !== undefined) return now;
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

interface MemoryIntent {
  intentId: string;
  idempotencyKey: string;
  bodyFingerprint: string;
  state: LaunchIntentState;
  runId: string | null;
  failure: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** One process only: what a single-process script or a test needs. */
export function createMemoryLaunchJournal(options: { now?: () => number } = {}): LaunchJournal {
  const now = options.now ?? Date.now;
  const intents = new Map<string, MemoryIntent>();
  // Unacknowledged ids in the order they were last touched: Map keeps insertion order.
  const open = new Map<string, true>();
  const snapshot = (intent: MemoryIntent): LaunchIntent => ({ ...intent });
  const touch = (intent: MemoryIntent) => {
    intent.updatedAt = new Date(now());
    open.delete(intent.intentId);
    if (intent.state === "recorded" || intent.state === "sent") open.set(intent.intentId, true);
  };
  const existing = (intentId: string) => {
    const intent = intents.get(intentId);
    if (!intent) throw LaunchJournalInvariantError.unknownIntent(intentId);
    return intent;
  };
  return {
    async record(intent) {
      const stored = intents.get(intent.intentId);
      if (stored) return snapshot(stored);
      const time = new Date(now());
      const created: MemoryIntent = {
        ...intent,
        state: "recorded",
        runId: null,
        failure: null,
        createdAt: time,
        updatedAt: time,
      };
      intents.set(intent.intentId, created);
      open.set(intent.intentId, true);
      return snapshot(created);
    },
    async markSent(intentId) {
      const intent = existing(intentId);
      if (intent.state === "acknowledged") return;
      intent.state = "sent";
      intent.failure = null;
      touch(intent);
    },
    async markAcknowledged(intentId, runId) {
      const intent = existing(intentId);
      if (intent.state === "acknowledged") {
        if (intent.runId !== runId)
          throw LaunchJournalInvariantError.secondRun(intentId, intent.runId ?? "", runId);
        return;
      }
      intent.state = "acknowledged";
      intent.runId = runId;
      intent.failure = null;
      touch(intent);
    },
    async markFailed(intentId, failure) {
      const intent = existing(intentId);
      if (intent.state === "acknowledged") return;
      intent.state = "failed";
      intent.failure = failure;
      touch(intent);
    },
    async get(intentId) {
      const intent = intents.get(intentId);
      return intent ? snapshot(intent) : undefined;
    },
    async listUnacknowledged(listOptions = {}) {
      const cutoff = now() - (listOptions.olderThanMs ?? 0);
      const limit = listOptions.limit ?? 100;
      const found: LaunchIntent[] = [];
      for (const intentId of open.keys()) {
        const intent = intents.get(intentId);
        if (!intent) continue;
        // `open` is ordered by last touch, so the first too-recent one ends the scan.
        if (intent.updatedAt.getTime() > cutoff || found.length >= limit) break;
        found.push(snapshot(intent));
      }
      return found;
    },
  };
}
