// Idempotent launch (docs/service-rules.md#idempotent-launch Idempotency): the key is scoped
// to the client and the workflow; the same request returns the same run, a changed one conflicts.
import { createHash } from "node:crypto";
import type { RunRecord } from "../model/types.js";

/** JSON with object keys sorted at every level, so equal requests serialize equally. */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  writeCanonical(value, out);
  return out.join("");
}

// One pass, one output array: no per-level strings, maps or filters (1M keys stay cheap).
function writeCanonical(value: unknown, out: string[]): void {
  if (value === null || typeof value !== "object") {
    out.push(JSON.stringify(value) ?? "null");
    return;
  }
  if (Array.isArray(value)) {
    out.push("[");
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(",");
      writeCanonical(value[i], out);
    }
    out.push("]");
    return;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  out.push("{");
  let first = true;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    if (!first) out.push(",");
    first = false;
    out.push(JSON.stringify(k), ":");
    writeCanonical(v, out);
  }
  out.push("}");
}

/**
 * Fingerprint of a launch request: the body without the key itself (the header or body field
 * carries the key, so sending it either way is the same request).
 */
export function requestFingerprint(body: Record<string, unknown>): string {
  const rest: Record<string, unknown> = {};
  for (const k of Object.keys(body)) {
    if (k !== "idempotency_key")
      Object.defineProperty(rest, k, { value: body[k], enumerable: true });
  }
  return createHash("sha256").update(canonicalJson(rest)).digest("hex");
}

/** The scope of a key: workspace, environment and workflow (spec: client and workflow). */
export function idempotencyScope(
  workspace: string,
  environment: string,
  workflowId: string,
  key: string,
): string {
  return JSON.stringify([workspace, environment, workflowId, key]);
}

type IdempotencyOutcome =
  | { kind: "new" }
  | { kind: "replay"; runId: string }
  | { kind: "conflict"; runId: string };

/** What the store reads of a run on disk to confirm a key: its scope's parts and fingerprint. */
type KeyedRun = Pick<
  RunRecord,
  "workspace" | "environment" | "workflow_id" | "idempotency_key" | "fingerprint"
>;

/**
 * A 31-bit hash of a scope: a small integer key that costs no allocation. Two scopes may share
 * one; a hit is confirmed against the run itself.
 */
export function scopeHash(scope: string): number {
  return createHash("sha1").update(scope).digest().readUInt32BE(0) >>> 1;
}

export class IdempotencyStore {
  private readonly entries = new Map<string, { runId: string; fingerprint: string }>();
  /**
   * Keys of finished runs that live on disk (journal/run-archive.ts), by the hash of their scope:
   * the scope and fingerprint are read from the run when a launch names the key again, so memory
   * holds a number and a run id per run instead of two long strings (bench/README.md, soak).
   */
  private readonly onDisk = new Map<number, string | string[]>();

  /**
   * `find`: a run by id, for keys whose run lives on disk (a launch names such a key rarely;
   * each hash hit reads one run).
   */
  check(
    scope: string,
    fingerprint: string,
    find: (runId: string) => KeyedRun | undefined = () => undefined,
  ): IdempotencyOutcome {
    const hit = this.entries.get(scope) ?? this.fromDisk(scope, find);
    if (!hit) return { kind: "new" };
    return hit.fingerprint === fingerprint
      ? { kind: "replay", runId: hit.runId }
      : { kind: "conflict", runId: hit.runId };
  }

  private fromDisk(
    scope: string,
    find: (runId: string) => KeyedRun | undefined,
  ): { runId: string; fingerprint: string } | undefined {
    const ids = this.onDisk.get(scopeHash(scope));
    for (const runId of typeof ids === "string" ? [ids] : (ids ?? [])) {
      const run = find(runId);
      if (
        run?.idempotency_key != null &&
        idempotencyScope(run.workspace, run.environment, run.workflow_id, run.idempotency_key) ===
          scope
      )
        return { runId, fingerprint: run.fingerprint };
    }
    return undefined;
  }

  /** Forget the keys of runs that no longer exist (environment reset). */
  forgetRuns(runIds: ReadonlySet<string>): void {
    for (const [scope, e] of this.entries) if (runIds.has(e.runId)) this.entries.delete(scope);
    for (const [h, ids] of this.onDisk) {
      const left = (typeof ids === "string" ? [ids] : ids).filter((id) => !runIds.has(id));
      if (left.length === 0) this.onDisk.delete(h);
      else this.onDisk.set(h, left.length === 1 ? (left[0] as string) : left);
    }
  }

  remember(scope: string, runId: string, fingerprint: string): void {
    this.entries.set(scope, { runId, fingerprint });
  }

  /** The key's run moved to disk: keep only the hash of its scope and the run's id. */
  rememberOnDisk(scope: string, runId: string): void {
    this.entries.delete(scope);
    const h = scopeHash(scope);
    const ids = this.onDisk.get(h);
    if (ids === undefined) this.onDisk.set(h, runId);
    else if (typeof ids === "string") this.onDisk.set(h, ids === runId ? ids : [ids, runId]);
    else if (!ids.includes(runId)) ids.push(runId);
  }
}
