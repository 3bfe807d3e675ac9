// Idempotent launch (docs/service-rules.md#idempotent-launch Idempotency): the key is scoped
// to the client and the workflow; the same request returns the same run, a changed one conflicts.
import { createHash } from "node:crypto";

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

export class IdempotencyStore {
  private readonly entries = new Map<string, { runId: string; fingerprint: string }>();

  check(scope: string, fingerprint: string): IdempotencyOutcome {
    const hit = this.entries.get(scope);
    if (!hit) return { kind: "new" };
    return hit.fingerprint === fingerprint
      ? { kind: "replay", runId: hit.runId }
      : { kind: "conflict", runId: hit.runId };
  }

  /** Forget the keys of runs that no longer exist (environment reset). */
  forgetRuns(runIds: ReadonlySet<string>): void {
    for (const [scope, e] of this.entries) if (runIds.has(e.runId)) this.entries.delete(scope);
  }

  remember(scope: string, runId: string, fingerprint: string): void {
    this.entries.set(scope, { runId, fingerprint });
  }
}
