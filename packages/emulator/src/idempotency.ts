// Idempotent launch (spec "POST /automations/{workflowId}/runs" Idempotency): the key is scoped
// to the client and the workflow; the same request returns the same run, a changed one conflicts.
import { createHash } from "node:crypto";

/** JSON with object keys sorted at every level, so equal requests serialize equally. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  return `{${keys
    .filter((k) => obj[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`)
    .join(",")}}`;
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

export type IdempotencyOutcome =
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

  remember(scope: string, runId: string, fingerprint: string): void {
    this.entries.set(scope, { runId, fingerprint });
  }
}
