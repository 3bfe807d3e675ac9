// The HTTP kit: typed errors, JSON responses, bounded body reading and JSON parsing. Nothing here
// knows about runs, keys or routes.

import type { IncomingMessage, ServerResponse } from "node:http";
import { CODE } from "@wfr/protocol";
import { jsonTextDepth } from "../model/json-text.js";

export const MAX_DEPTH = 128;

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  if (status === 409) headers["X-Should-Retry"] = "false";
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(text),
    "Cache-Control": "no-store",
    ...headers,
  });
  res.end(text);
}

export function failResponse(res: ServerResponse, e: unknown): void {
  if (e instanceof HttpError) {
    sendJson(res, e.status, { error: e.message, code: e.code, ...e.extra }, { ...e.headers });
    return;
  }
  if (res.destroyed || res.socket?.destroyed) return; // the client went away mid-request
  console.error("wfr-emulator: internal error:", (e as Error)?.message ?? e);
  sendJson(res, 500, { error: "internal emulator error", code: CODE.INTERNAL });
}

/**
 * `Content-Disposition: attachment` for a file name from a path or a run's outputs: the quoted
 * `filename` keeps printable ASCII other than `"` and `\\` (anything else becomes `_`, so a quote
 * cannot add a second parameter and CR/LF cannot split the header), and `filename*` (RFC 6266,
 * RFC 8187) carries the exact name percent-encoded.
 */
export function attachmentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  const exact = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

/** Read the body, stopping as soon as it exceeds `limit` (spec: rejected before parsing). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on("data", (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > limit) {
        done = true;
        chunks.length = 0;
        resolve(null);
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => {
      if (!done) {
        done = true;
        resolve(Buffer.concat(chunks, size));
      }
    });
    req.on("error", (e) => {
      if (!done) {
        done = true;
        reject(e);
      }
    });
    req.on("close", () => {
      if (!done) {
        done = true;
        reject(new Error("client closed the request before the body ended"));
      }
    });
  });
}

/**
 * What a refused body may still send after the 413: read and discarded (RFC 9112 §9.6: a server
 * that answers before the body ended reads the rest before it closes, or the client, still
 * uploading, meets a reset instead of the answer, and retries the whole upload). Past it, the
 * connection is cut: the client has been told.
 */
export const DISCARD_AFTER_REFUSAL_BYTES = 256 * 1024 * 1024;

/** Reads and discards the rest of a refused request's body; cuts the connection past `allowance`. */
export function discardRest(req: IncomingMessage, allowance: number): void {
  let discarded = 0;
  req.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > allowance) req.socket.destroy();
  });
  req.on("error", () => {});
  req.resume();
}

export async function readBodyWithin(req: IncomingMessage, limit: number): Promise<Buffer> {
  const buf = await readBody(req, limit);
  if (buf === null) {
    // docs/service-rules.md#limits: 413 BODY_TOO_LARGE, no attachment_id. The rest of the body is
    // read and thrown away (no memory kept), so the client reads this answer rather than a reset;
    // the connection stays usable. (`Connection: close` would make node:http destroy the socket
    // once the answer is written, while the client is still sending.)
    discardRest(req, DISCARD_AFTER_REFUSAL_BYTES);
    throw new HttpError(413, CODE.BODY_TOO_LARGE, `request body exceeds ${limit} bytes`);
  }
  return buf;
}

export function parseJsonBody(buf: Buffer): unknown {
  // Depth from the bytes first: linear, allocation-free, and it keeps JSON.parse shallow.
  if (jsonTextDepth(buf, MAX_DEPTH) > MAX_DEPTH) {
    throw new HttpError(
      400,
      CODE.INVALID_JSON,
      `JSON nesting deeper than ${MAX_DEPTH} levels is not accepted`,
    );
  }
  let text: string;
  try {
    // Invalid UTF-8 is an unparsable body, not text to repair with U+FFFD behind the caller's back.
    text = UTF8.decode(buf);
  } catch {
    throw new HttpError(400, CODE.INVALID_JSON, "request body is not valid UTF-8");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, CODE.INVALID_JSON, "request body is not parseable as JSON");
  }
}
