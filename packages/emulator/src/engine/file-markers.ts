// File outputs given by a scenario: `{"$file": {"filename", "mime_type", "base64"?}}` anywhere in
// `succeed.outputs` becomes a FileOutput download reference served by this emulator under
// /<env>/_files/, with those bytes (or a small placeholder when `base64` is absent: a recorded
// run exported without its files). The bytes stay in the run's scenario, which the run keeps from
// its launch, so nothing else is stored and a restart serves the same bytes.
import { isObject } from "../model/json-text.js";

export interface FileMarker {
  readonly filename: string;
  readonly mime_type: string;
  readonly base64?: string;
}

/** One attachment's limit: a scenario file is no bigger than a file the API accepts. */
const MAX_FILE_BYTES = 26_214_400;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function isFileMarker(value: unknown): value is { $file: FileMarker } {
  return isObject(value) && Object.keys(value).length === 1 && isObject(value.$file);
}

/** The first malformed marker in `value`, as a sentence naming its place; null when all are well formed. */
export function fileMarkerProblem(value: unknown, where: string): string | null {
  if (isFileMarker(value)) {
    const m = value.$file as unknown as Record<string, unknown>;
    for (const k of Object.keys(m))
      if (k !== "filename" && k !== "mime_type" && k !== "base64")
        return `${where}.$file has an unknown field ${JSON.stringify(k)}`;
    if (typeof m.filename !== "string" || m.filename === "" || m.filename.length > 255)
      return `${where}.$file.filename must be a name of 1 to 255 characters`;
    if (typeof m.mime_type !== "string" || !/^[\w.+-]+\/[\w.+-]+$/.test(m.mime_type))
      return `${where}.$file.mime_type must be a MIME type such as application/pdf`;
    if (m.base64 !== undefined) {
      if (typeof m.base64 !== "string" || m.base64.length % 4 !== 0 || !BASE64.test(m.base64))
        return `${where}.$file.base64 must be standard base64`;
      if ((m.base64.length / 4) * 3 > MAX_FILE_BYTES + 2)
        return `${where}.$file.base64 is over ${MAX_FILE_BYTES} bytes`;
    }
    return null;
  }
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const problem = fileMarkerProblem(v, `${where}[${i}]`);
      if (problem) return problem;
    }
  } else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      const problem = fileMarkerProblem(v, `${where}.${k}`);
      if (problem) return problem;
    }
  }
  return null;
}

/** The markers in `value`, in the order `replaceFileMarkers` numbers them (depth first, key order). */
export function collectFileMarkers(value: unknown, out: FileMarker[] = []): FileMarker[] {
  if (isFileMarker(value)) out.push(value.$file);
  else if (Array.isArray(value)) for (const v of value) collectFileMarkers(v, out);
  else if (isObject(value)) for (const v of Object.values(value)) collectFileMarkers(v, out);
  return out;
}

/** A copy of `value` with the n-th marker (from 1) replaced by `make(marker, n)`. */
export function replaceFileMarkers(
  value: unknown,
  make: (marker: FileMarker, n: number) => unknown,
): unknown {
  let n = 0;
  const walk = (v: unknown): unknown => {
    if (isFileMarker(v)) {
      n += 1;
      return make(v.$file, n);
    }
    if (Array.isArray(v)) return v.map(walk);
    if (isObject(v)) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v))
        Object.defineProperty(out, k, {
          value: walk(x),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      return out;
    }
    return v;
  };
  return walk(value);
}

/** The bytes of a marker: its own, or a placeholder naming what was recorded without them. */
export function markerBytes(marker: FileMarker): Buffer {
  return marker.base64 !== undefined
    ? Buffer.from(marker.base64, "base64")
    : Buffer.from(`${marker.filename} (${marker.mime_type}): recorded without its bytes\n`);
}
