// Pure construction of the launch body: attachments out of `inputs`, sizes
// checked arithmetically before any encoding, then the body rendered as
// bytes (base64 written straight into one buffer) or, for large bodies where
// the platform streams request bodies, as a stream encoding as it is read.
import { CODE } from "@wfr/protocol";
import {
  base64EncodedLength,
  encodeBase64,
  SLICE_BYTES,
  writeBase64Into,
  writeBase64IntoSliced,
  yieldToEventLoop,
} from "./base64.js";
import { AttachmentTooLargeError, BodyTooLargeError } from "./errors.js";
import { type FileData, type FileInput, isFileInput } from "./file-input.js";
import type { LaunchBody } from "./wire-types.js";

/** Spec, Limits: "One attachment, after base64 decoding | 25 MiB (26,214,400 bytes)". */
export const MAX_ATTACHMENT_BYTES = 26_214_400;
/** Spec, Limits: "Entire JSON request body incl. all encoded attachments | 36 MiB (37,748,736 bytes)". */
export const MAX_LAUNCH_BODY_BYTES = 37_748_736;

interface PendingAttachment {
  readonly id: string;
  readonly field: string;
  readonly file: FileInput;
  readonly byteLength: number;
}

interface ExtractedAttachments {
  /** A copy of the inputs with every FileInput replaced by `{ attachment_id }`. */
  readonly inputs: Record<string, unknown>;
  readonly attachments: readonly PendingAttachment[];
}

function fileDataByteLength(data: FileData): number {
  return data instanceof Blob ? data.size : data.byteLength;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Walks inputs (objects and arrays, any depth) for values made by `file()`,
 * gives each a distinct id att_1, att_2, ... (docs/service-rules.md#launch-body: "Attachment identifiers
 * must be distinct within a request") and puts `{ attachment_id }` in its
 * place. The caller's object is not modified.
 */
export function extractAttachments(inputs: Record<string, unknown>): ExtractedAttachments {
  const attachments: PendingAttachment[] = [];
  // The same file() value in several fields is one attachment, encoded once.
  const idByFile = new Map<FileInput, string>();
  const walk = (value: unknown, field: string): unknown => {
    if (isFileInput(value)) {
      const known = idByFile.get(value);
      if (known) return { attachment_id: known };
      const id = `att_${attachments.length + 1}`;
      idByFile.set(value, id);
      attachments.push({ id, field, file: value, byteLength: fileDataByteLength(value.data) });
      return { attachment_id: id };
    }
    if (Array.isArray(value)) return value.map((item, index) => walk(item, `${field}[${index}]`));
    if (isPlainObject(value)) {
      const copy: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const item = walk(value[key], field ? `${field}.${key}` : key);
        // Defined, not assigned, so a field named __proto__ stays a field.
        if (key === "__proto__")
          Object.defineProperty(copy, key, {
            value: item,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        else copy[key] = item;
      }
      return copy;
    }
    return value;
  };
  return { inputs: walk(inputs, "") as Record<string, unknown>, attachments };
}

/** Throws AttachmentTooLargeError for the first attachment over the per-attachment limit. */
function checkAttachmentSizes(attachments: readonly PendingAttachment[]): void {
  for (const attachment of attachments) {
    if (attachment.byteLength > MAX_ATTACHMENT_BYTES) {
      throw new AttachmentTooLargeError({
        status: null,
        code: CODE.ATTACHMENT_TOO_LARGE,
        message: `Attachment ${attachment.id} ("${attachment.file.filename}") in field ${attachment.field} is ${attachment.byteLength} bytes; the limit is ${MAX_ATTACHMENT_BYTES} bytes decoded`,
        attachmentId: attachment.id,
        field: attachment.field,
      });
    }
  }
}

const encoder = new TextEncoder();

/**
 * Exact UTF-8 size of the serialised body, computed with empty base64
 * strings plus the arithmetic encoded length of each file (base64 is ASCII
 * and never escaped in JSON), so nothing is encoded to find out.
 */
export function predictBodyBytes(
  skeleton: LaunchBody,
  attachments: readonly PendingAttachment[],
): number {
  const withoutFiles = encoder.encode(JSON.stringify(skeleton)).byteLength;
  return attachments.reduce(
    (total, item) => total + base64EncodedLength(item.byteLength),
    withoutFiles,
  );
}

function checkBodySize(bodyBytes: number): void {
  if (bodyBytes > MAX_LAUNCH_BODY_BYTES) {
    throw new BodyTooLargeError({
      status: null,
      code: CODE.BODY_TOO_LARGE,
      message: `Launch body would be ${bodyBytes} bytes; the limit is ${MAX_LAUNCH_BODY_BYTES} bytes including encoded attachments`,
    });
  }
}

async function readBytes(data: FileData): Promise<Uint8Array> {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(await data.arrayBuffer());
}

interface LaunchBodyParts {
  readonly inputs: Record<string, unknown>;
  readonly metadata?: Record<string, unknown> | undefined;
  readonly callbackUrl?: string | undefined;
  readonly model?: string | undefined;
  /** Sent as the body field `idempotency_key` (a key no header can carry; see `keyFitsHeader`). */
  readonly idempotencyKey?: string | undefined;
}

/**
 * Whether a key can travel in the Idempotency-Key header: visible ASCII and inner spaces only.
 * A header value is bytes (fetch refuses any character above U+00FF, and servers read bytes
 * above 0x7F differently), so other keys go in the body field, which the spec offers for this
 * and which takes precedence when both are sent.
 */
export function keyFitsHeader(key: string): boolean {
  return /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(key);
}

/** The key's length in characters (Unicode code points), as the 200-character limit (docs/service-rules.md#idempotent-launch) counts. */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

let marker: string | undefined;
/** Random once per process: a caller cannot guess it, and no launch pays for a new one. */
function placeholderMarker(): string {
  marker ??= `wfr-base64-${crypto.randomUUID()}`;
  return marker;
}

/**
 * A launch body before it is rendered: its JSON around the files, the files'
 * bytes, and its exact size. Rendered either as one buffer (`toBytes`) or as
 * a stream that encodes each file slice by slice as it is read (`toStream`).
 */
interface LaunchBodyPlan {
  /** JSON text before, between and after the files' base64 (files.length + 1 of them). */
  readonly segments: readonly Uint8Array<ArrayBuffer>[];
  readonly files: readonly Uint8Array[];
  readonly byteLength: number;
}

/**
 * Files of up to this many bytes in all are encoded into the JSON text
 * directly: one JSON.stringify and one UTF-8 encoding instead of the
 * placeholder split, for the common launch with a small document. More is
 * never read or encoded before the limits pass.
 */
const INLINE_FILE_BYTES = 64 * 1024;

/** The plan of a body whose files are all small: the whole JSON as one segment. */
function inlinePlan(
  skeleton: LaunchBody,
  attachments: readonly PendingAttachment[],
  files: readonly Uint8Array[],
): LaunchBodyPlan {
  skeleton.input_context = {
    attachments: attachments.map(({ id, file }, index) => ({
      id,
      filename: file.filename,
      mimeType: file.mimeType,
      base64: encodeBase64(files[index] as Uint8Array),
    })),
  };
  const bytes = encoder.encode(JSON.stringify(skeleton));
  checkBodySize(bytes.byteLength);
  return { segments: [bytes], files: [], byteLength: bytes.byteLength };
}

/**
 * Plans the launch body. Limits are enforced before more than
 * INLINE_FILE_BYTES of files are read or encoded: the size is arithmetic
 * (base64 is ASCII and never escaped).
 */
export async function planLaunchBody(parts: LaunchBodyParts): Promise<LaunchBodyPlan> {
  const { inputs, attachments } = extractAttachments(parts.inputs);
  checkAttachmentSizes(attachments);
  const skeleton: LaunchBody = { inputs };
  if (parts.metadata !== undefined) skeleton.metadata = parts.metadata;
  if (parts.callbackUrl !== undefined) skeleton.callback_url = parts.callbackUrl;
  if (parts.model !== undefined) skeleton.model = parts.model as LaunchBody["model"];
  if (parts.idempotencyKey !== undefined) skeleton.idempotency_key = parts.idempotencyKey;
  if (attachments.length === 0) {
    // The 36 MiB limit is the whole body's, with or without files: a large inputs or metadata
    // object is refused here, before a byte is sent, not cut off by the server mid-upload.
    const bytes = encoder.encode(JSON.stringify(skeleton));
    checkBodySize(bytes.byteLength);
    return { segments: [bytes], files: [], byteLength: bytes.byteLength };
  }
  const fileBytes = attachments.reduce((sum, item) => sum + item.byteLength, 0);
  if (fileBytes <= INLINE_FILE_BYTES) {
    const files: Uint8Array[] = [];
    // Bytes are used as they are, without waiting a tick; only a Blob is read.
    for (const { file } of attachments)
      files.push(file.data instanceof Uint8Array ? file.data : await readBytes(file.data));
    return inlinePlan(skeleton, attachments, files);
  }
  // A marker no caller string can produce by chance stands where each base64 goes.
  const marker = placeholderMarker();
  skeleton.input_context = {
    attachments: attachments.map(({ id, file }, index) => ({
      id,
      filename: file.filename,
      mimeType: file.mimeType,
      base64: `${marker}-${index}`,
    })),
  };
  const text = JSON.stringify(skeleton);
  const segments: string[] = [];
  let rest = text;
  for (let index = 0; index < attachments.length; index += 1) {
    const placeholder = `${marker}-${index}`;
    const at = rest.indexOf(placeholder);
    segments.push(rest.slice(0, at));
    rest = rest.slice(at + placeholder.length);
  }
  segments.push(rest);
  const segmentBytes = segments.map((segment) => encoder.encode(segment));
  const byteLength = attachments.reduce(
    (sum, item) => sum + base64EncodedLength(item.byteLength),
    segmentBytes.reduce((sum, bytes) => sum + bytes.byteLength, 0),
  );
  checkBodySize(byteLength);
  const files: Uint8Array[] = [];
  for (const attachment of attachments) files.push(await readBytes(attachment.file.data));
  return { segments: segmentBytes, files, byteLength };
}

/**
 * The planned body as one buffer, each file's base64 written chunk by chunk
 * straight into it (the peak is about the body plus one chunk, not the body
 * as a string, then as bytes), in slices that yield to the event loop.
 */
export async function launchBodyBytes(plan: LaunchBodyPlan): Promise<Uint8Array<ArrayBuffer>> {
  const [first] = plan.segments;
  if (plan.files.length === 0 && first) return first;
  const body = new Uint8Array(plan.byteLength);
  let offset = 0;
  for (const [index, bytes] of plan.segments.entries()) {
    body.set(bytes, offset);
    offset += bytes.byteLength;
    const file = plan.files[index];
    if (file) offset = await writeBase64IntoSliced(file, body, offset);
  }
  return body;
}

/**
 * The planned body as a stream that encodes as it is read: each pull is one
 * JSON segment or one slice of a file's base64, so no buffer of the whole
 * body exists and every pull is a short step (the reader's pace, the network,
 * sets the rest). A fresh stream per attempt re-encodes from the same files.
 */
export function launchBodyStream(plan: LaunchBodyPlan): ReadableStream<Uint8Array> {
  let part = 0; // even: segment part / 2; odd: file (part - 1) / 2
  let fileOffset = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (part % 2 === 0) {
          const segment = plan.segments[part / 2];
          part += 1;
          if (!segment) return controller.close();
          if (segment.byteLength > 0) return controller.enqueue(segment);
          continue;
        }
        const file = plan.files[(part - 1) / 2];
        if (!file || fileOffset >= file.length) {
          part += 1;
          fileOffset = 0;
          continue;
        }
        // A reader that finds room (a socket buffer with space) pulls again at once, in the same
        // task: one yield per slice keeps each slice a step of its own.
        if (fileOffset > 0) await yieldToEventLoop();
        const end = Math.min(fileOffset + SLICE_BYTES, file.length);
        const slice = file.subarray(fileOffset, end);
        const text = new Uint8Array(base64EncodedLength(slice.length));
        writeBase64Into(slice, text, 0);
        fileOffset = end;
        return controller.enqueue(text);
      }
    },
  });
}

/** Builds the launch body once, as the bytes that go on the wire (see `launchBodyBytes`). */
export async function buildLaunchBody(parts: LaunchBodyParts): Promise<Uint8Array<ArrayBuffer>> {
  return launchBodyBytes(await planLaunchBody(parts));
}

/** The launch body as text (tests and logging); the client sends `buildLaunchBody`'s bytes. */
export async function serializeLaunchBody(parts: LaunchBodyParts): Promise<string> {
  return new TextDecoder().decode(await buildLaunchBody(parts));
}
