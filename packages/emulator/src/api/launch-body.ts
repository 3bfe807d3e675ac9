// Checks of the launch body (docs/service-rules.md#launch-body, "Errors", "Limits"), apart from `inputs`.
import { CODE, LIMITS } from "@wfr/protocol";
import { checkCallbackUrl } from "../engine/callback-url.js";
import { HttpError } from "../http/http-kit.js";
import { isObject } from "../model/json-text.js";
import type { AttachmentMeta } from "../model/types.js";

export const BODY_LIMIT = LIMITS.launchBodyBytes; // 36 MiB, docs/service-rules.md#limits
const ATTACHMENT_LIMIT = LIMITS.attachmentBytes; // 25 MiB decoded, docs/service-rules.md#limits
const IDEMPOTENCY_KEY_MAX = LIMITS.idempotencyKeyCharacters;
/**
 * The emulator's own limit, not the specification's (it names none): metadata may hold at most
 * this many members (properties and array elements, at every level). Counted on the bytes before
 * parsing (json-text.ts), so a launch with a million keys is refused in a scan instead of blocking
 * every other client while it is parsed, stored and serialized again on each read. Size alone stays
 * bounded by the body limit: it is the member count that makes parsing and serializing slow.
 */
export const METADATA_MEMBER_LIMIT = 10_000;
const MODELS = ["pro", "flash", "lite", "max"];
const ALLOWED_KEYS = [
  "inputs",
  "callback_url",
  "metadata",
  "idempotency_key",
  "model",
  "input_context",
];
/** Per-run browser or proxy overrides are rejected (docs/service-rules.md#launch-body). */
const OVERRIDE_KEY =
  /browser|proxy|user_?agent|headless|viewport|profile|region|country|stealth|captcha/i;

export interface BodyProblem {
  status: number;
  code: string;
  message: string;
  attachment_id?: string;
}

/** The HTTP error a body problem answers. */
export function problemError(p: BodyProblem): HttpError {
  return new HttpError(
    p.status,
    p.code,
    p.message,
    p.attachment_id ? { attachment_id: p.attachment_id } : {},
  );
}

const B64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function decodedLength(b64: string): number {
  const pad = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  return (b64.length / 4) * 3 - pad;
}

export function isStrictBase64(s: string): boolean {
  return s.length % 4 === 0 && B64.test(s) && !/=[^=]/.test(s);
}

export function checkTopLevel(body: unknown): BodyProblem | null {
  if (!isObject(body)) {
    return {
      status: 400,
      code: CODE.INVALID_BODY,
      message: "the launch body must be a JSON object",
    };
  }
  const keys = Object.keys(body);
  const override = keys.find((k) => !ALLOWED_KEYS.includes(k) && OVERRIDE_KEY.test(k));
  if (override !== undefined) {
    return {
      status: 400,
      code: CODE.RUN_OVERRIDE_NOT_ALLOWED,
      message: `per-run browser or proxy overrides are not accepted (${JSON.stringify(override)}); they come from the saved workflow or workspace defaults`,
    };
  }
  const unknown = keys.find((k) => !ALLOWED_KEYS.includes(k));
  if (unknown !== undefined) {
    return {
      status: 400,
      code: CODE.INVALID_BODY,
      message: `unknown launch body field ${JSON.stringify(unknown.slice(0, 100))}; allowed: ${ALLOWED_KEYS.join(", ")}`,
    };
  }
  return null;
}

export function checkMetadata(body: Record<string, unknown>): BodyProblem | null {
  // Spec: metadata must be a JSON object (null, array, string, number, boolean are invalid).
  if (Object.hasOwn(body, "metadata") && !isObject(body.metadata)) {
    return { status: 400, code: CODE.INVALID_METADATA, message: "metadata must be a JSON object" };
  }
  return null;
}

/** Whether `s` has more than `max` code points; stops counting at max + 1. */
function codePointsOver(s: string, max: number): boolean {
  if (s.length <= max) return false;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    if (++n > max) return true;
  }
  return false;
}

export function idempotencyKeyOf(
  body: Record<string, unknown>,
  header: string | string[] | undefined,
): { key: string | null } | BodyProblem {
  const check = (v: unknown, where: string): BodyProblem | null => {
    if (typeof v !== "string" || v.length === 0) {
      return {
        status: 400,
        code: CODE.INVALID_IDEMPOTENCY_KEY,
        message: `${where} must be a non-empty string`,
      };
    }
    // Counted in characters (code points), not UTF-16 units: 200 emoji are 200 characters.
    if (codePointsOver(v, IDEMPOTENCY_KEY_MAX)) {
      return {
        status: 400,
        code: CODE.INVALID_IDEMPOTENCY_KEY,
        message: `${where} is longer than ${IDEMPOTENCY_KEY_MAX} characters`,
      };
    }
    return null;
  };
  // Spec: idempotency_key takes precedence over the header when both are sent.
  if (Object.hasOwn(body, "idempotency_key")) {
    const p = check(body.idempotency_key, "idempotency_key");
    return p ?? { key: body.idempotency_key as string };
  }
  if (header !== undefined) {
    const h = Array.isArray(header) ? header[0] : header;
    const p = check(h, "Idempotency-Key header");
    return p ?? { key: h as string };
  }
  return { key: null };
}

export function checkModel(body: Record<string, unknown>, exposed: boolean): BodyProblem | null {
  if (!Object.hasOwn(body, "model")) return null;
  if (!exposed) {
    return {
      status: 400,
      code: CODE.INVALID_MODEL,
      message: "this environment's schema does not expose `model` for this workflow",
    };
  }
  if (typeof body.model !== "string" || !MODELS.includes(body.model)) {
    return {
      status: 400,
      code: CODE.INVALID_MODEL,
      message: `model must be one of ${MODELS.join(", ")}`,
    };
  }
  return null;
}

export function checkCallback(
  body: Record<string, unknown>,
  allowLocal: boolean,
): { url: string | null } | BodyProblem {
  if (!Object.hasOwn(body, "callback_url")) return { url: null };
  const c = checkCallbackUrl(body.callback_url, allowLocal);
  if (!c.ok) return { status: 400, code: CODE.INVALID_CALLBACK_URL, message: c.reason };
  return { url: c.url };
}

interface ParsedAttachments {
  ids: Set<string>;
  meta: AttachmentMeta[];
}

/** input_context.attachments: shape, strict base64, distinct ids, 25 MiB decoded each. */
export function checkAttachments(body: Record<string, unknown>): ParsedAttachments | BodyProblem {
  const out: ParsedAttachments = { ids: new Set(), meta: [] };
  if (!Object.hasOwn(body, "input_context")) return out;
  const ctx = body.input_context;
  const bad = (message: string): BodyProblem => ({
    status: 400,
    code: CODE.INVALID_ATTACHMENTS,
    message,
  });
  if (!isObject(ctx)) return bad("input_context must be an object");
  // Other input_context fields are accepted and ignored: the definition's InputContext allows
  // them (no additionalProperties: false), and a request valid per the definition is not refused.
  if (!Object.hasOwn(ctx, "attachments")) return out;
  if (!Array.isArray(ctx.attachments)) return bad("input_context.attachments must be an array");
  for (const [i, a] of ctx.attachments.entries()) {
    const where = `input_context.attachments[${i}]`;
    if (!isObject(a)) return bad(`${where} must be an object`);
    for (const k of ["id", "filename", "mimeType", "base64"]) {
      if (typeof a[k] !== "string") return bad(`${where}.${k} must be a string`);
    }
    const extraKey = Object.keys(a).find(
      (k) => !["id", "filename", "mimeType", "base64"].includes(k),
    );
    if (extraKey !== undefined)
      return bad(`${where} has an unknown field ${JSON.stringify(extraKey.slice(0, 100))}`);
    const id = a.id as string;
    if (id.length === 0) return bad(`${where}.id must not be empty`);
    if (out.ids.has(id)) return bad(`attachment id ${JSON.stringify(id)} is used more than once`);
    const b64 = a.base64 as string;
    if (!isStrictBase64(b64)) return bad(`${where}.base64 is not valid base64`);
    const size = decodedLength(b64);
    if (size > ATTACHMENT_LIMIT) {
      return {
        status: 413,
        code: CODE.ATTACHMENT_TOO_LARGE,
        message: `attachment ${JSON.stringify(id)} is ${size} bytes decoded; the limit is ${ATTACHMENT_LIMIT}`,
        attachment_id: id,
      };
    }
    out.ids.add(id);
    out.meta.push({
      id,
      filename: a.filename as string,
      mimeType: a.mimeType as string,
      size_bytes: size,
    });
  }
  return out;
}
