// Spec, Launch: "Repeating the same request with the same key returns 202
// with the same run ... On a lost response the caller resends the identical
// body with the original key." This module makes that hold across crashes and
// instances: the intent is written to a shared journal before anything is
// sent, and every later attempt for the same intent reuses its key.
import { CODE } from "@wfr/protocol";
import { WorkflowRunApiError } from "./errors.js";
import { isFileInput } from "./file-input.js";
import {
  fingerprintBody,
  fingerprintBodySync,
  type LaunchIntent,
  type LaunchJournal,
} from "./launch-journal.js";

/** What a journaled launch needs in addition to an ordinary launch. */
export interface LaunchIntentOptions {
  readonly journal: LaunchJournal;
  /** The caller's own id for this intended execution: an invoice id, a CSV row key. */
  readonly id: string;
}

/** The logical request, as the fingerprint sees it. */
export interface LaunchRequestParts {
  readonly workflowId: string;
  readonly inputs: unknown;
  readonly metadata?: unknown;
  readonly model?: string | undefined;
  readonly callbackUrl?: string | undefined;
}

/** The journal holds this intent with a different request (found locally: status null). */
export class LaunchIntentConflictError extends WorkflowRunApiError {
  override name = "LaunchIntentConflictError";
  readonly intentId: string;
  constructor(intentId: string, idempotencyKey: string) {
    super({
      status: null,
      code: CODE.LAUNCH_INTENT_CONFLICT,
      idempotencyKey,
      message:
        `launch intent ${JSON.stringify(intentId)} was recorded with a different request; ` +
        "the service would answer 409 IDEMPOTENCY_CONFLICT. A new intended execution needs a new intent id.",
    });
    this.intentId = intentId;
  }
}

/**
 * The idempotency key for an intent when the caller gives none: derived from
 * the workflow and the intent id, so that even a journal that lost its data
 * (a Redis restart without persistence) resends with the same key.
 */
export async function idempotencyKeyForIntent(
  workflowId: string,
  intentId: string,
): Promise<string> {
  const digest = await fingerprintBody(`${workflowId}\n${intentId}`);
  return `intent-${digest.slice(0, 48)}`;
}

/**
 * SHA-256 of the request's meaning: workflow, inputs, metadata, model and
 * callback URL, with object keys sorted and each file replaced by the hash of
 * its bytes, name and type. Two requests with the same fingerprint send the
 * same body.
 */
export async function fingerprintLaunchRequest(parts: LaunchRequestParts): Promise<string> {
  const canonical = await canonicalize({
    workflow: parts.workflowId,
    inputs: parts.inputs,
    metadata: parts.metadata ?? {},
    model: parts.model ?? null,
    callback_url: parts.callbackUrl ?? null,
  });
  return fingerprintBody(JSON.stringify(canonical));
}

// Most requests carry no Blob: then the canonical form is built in one
// synchronous walk, without a promise per key (a journaled batch builds one
// per row). A Blob's bytes can only be read asynchronously, and where the
// platform hashes only through Web Crypto, files are hashed asynchronously too.
const NEEDS_ASYNC = Symbol("needs an asynchronous walk");

function canonicalize(value: unknown): unknown {
  const found = canonicalizeSync(value);
  return found === NEEDS_ASYNC ? canonicalizeAsync(value) : found;
}

function canonicalizeSync(value: unknown): unknown {
  if (isFileInput(value)) {
    const data = value.data;
    if (!(data instanceof Uint8Array) && !(data instanceof ArrayBuffer)) return NEEDS_ASYNC;
    const digest = fingerprintBodySync(data instanceof Uint8Array ? data : new Uint8Array(data));
    if (digest === undefined) return NEEDS_ASYNC;
    return { $file: digest, filename: value.filename, mimeType: value.mimeType };
  }
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const item of value) {
      const found = canonicalizeSync(item);
      if (found === NEEDS_ASYNC) return NEEDS_ASYNC;
      items.push(found);
    }
    return items;
  }
  if (value !== null && typeof value === "object") {
    // No prototype: an input named "__proto__" is a key like any other.
    const sorted: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(value).sort()) {
      const found = canonicalizeSync((value as Record<string, unknown>)[key]);
      if (found === NEEDS_ASYNC) return NEEDS_ASYNC;
      sorted[key] = found;
    }
    return sorted;
  }
  return value;
}

async function canonicalizeAsync(value: unknown): Promise<unknown> {
  if (isFileInput(value)) {
    const data = value.data;
    const bytes =
      data instanceof Uint8Array
        ? data
        : data instanceof ArrayBuffer
          ? new Uint8Array(data)
          : new Uint8Array(await data.arrayBuffer());
    return {
      $file: await fingerprintBody(bytes),
      filename: value.filename,
      mimeType: value.mimeType,
    };
  }
  if (Array.isArray(value)) return Promise.all(value.map(canonicalizeAsync));
  if (value !== null && typeof value === "object") {
    // No prototype: an input named "__proto__" is a key like any other.
    const sorted: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(value).sort()) {
      sorted[key] = await canonicalizeAsync((value as Record<string, unknown>)[key]);
    }
    return sorted;
  }
  return value;
}

export interface JournaledLaunchSteps<Run extends { readonly run_id: string }> {
  /** Sends the launch with this key (the client's own launch, with retries). */
  send(idempotencyKey: string): Promise<Run>;
  /** Reads an acknowledged run back instead of sending its body again. */
  read(runId: string, idempotencyKey: string): Promise<Run>;
}

/**
 * recorded -> sent -> acknowledged, or failed on a definitive refusal. A
 * crash anywhere leaves the intent recorded or sent; the next attempt (any
 * instance) resends the same key and body and the service returns the same run.
 */
export async function launchWithJournal<Run extends { readonly run_id: string }>(
  intent: LaunchIntentOptions,
  request: LaunchRequestParts & { readonly idempotencyKey?: string | undefined },
  steps: JournaledLaunchSteps<Run>,
): Promise<Run> {
  const fingerprint = await fingerprintLaunchRequest(request);
  const proposedKey =
    request.idempotencyKey ?? (await idempotencyKeyForIntent(request.workflowId, intent.id));
  const stored: LaunchIntent = await intent.journal.record({
    intentId: intent.id,
    idempotencyKey: proposedKey,
    bodyFingerprint: fingerprint,
  });
  if (stored.bodyFingerprint !== fingerprint)
    throw new LaunchIntentConflictError(intent.id, stored.idempotencyKey);
  if (stored.state === "acknowledged" && stored.runId)
    return steps.read(stored.runId, stored.idempotencyKey);
  await intent.journal.markSent(intent.id);
  let run: Run;
  try {
    run = await steps.send(stored.idempotencyKey);
  } catch (error) {
    if (isDefinitiveRefusal(error))
      await intent.journal.markFailed(intent.id, describeFailure(error));
    throw error;
  }
  await intent.journal.markAcknowledged(intent.id, run.run_id);
  return run;
}

// A 4xx other than 408/429 will be refused again however often it is resent;
// anything else (network, timeout, 5xx, 429) may have reached the service and
// stays "sent" so that a resend with the same key finds out.
function isDefinitiveRefusal(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return (
    typeof status === "number" && status >= 400 && status < 500 && status !== 408 && status !== 429
  );
}

function describeFailure(error: unknown): string {
  const { status, code } = (error ?? {}) as { status?: unknown; code?: unknown };
  return (
    [status, code].filter((part) => part !== undefined && part !== null).join(" ") || "refused"
  );
}
