// Base64 with the platform's native encoder (Uint8Array.prototype.toBase64
// where it exists, Buffer in Node), written chunk by chunk straight into the
// request bytes, so no intermediate holds more than one chunk. Large files are
// encoded in slices with a yield to the event loop between them. A JavaScript
// encoder remains only for platforms that have neither.

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/** A multiple of 3, so each chunk encodes without padding except the last. */
// 48 KiB in, 64 KiB of text out: small enough to stay in V8's young generation,
// so each chunk's string is freed by the next scavenge.
const CHUNK_BYTES = 3 * 16_384;

/** Length of the base64 text for `byteLength` bytes: 4 * ceil(n / 3). */
export function base64EncodedLength(byteLength: number): number {
  return 4 * Math.ceil(byteLength / 3);
}

function encodeInJavaScript(bytes: Uint8Array): string {
  const codes: number[] = [];
  let text = "";
  let index = 0;
  const flush = () => {
    text += String.fromCharCode(...codes);
    codes.length = 0;
  };
  for (; index + 2 < bytes.length; index += 3) {
    const triple =
      ((bytes[index] ?? 0) << 16) | ((bytes[index + 1] ?? 0) << 8) | (bytes[index + 2] ?? 0);
    codes.push(
      ALPHABET.charCodeAt(triple >> 18),
      ALPHABET.charCodeAt((triple >> 12) & 63),
      ALPHABET.charCodeAt((triple >> 6) & 63),
      ALPHABET.charCodeAt(triple & 63),
    );
    if (codes.length >= 32_768) flush();
  }
  const remaining = bytes.length - index;
  if (remaining > 0) {
    const first = bytes[index] ?? 0;
    const second = remaining === 2 ? (bytes[index + 1] ?? 0) : 0;
    const pair = (first << 16) | (second << 8);
    codes.push(
      ALPHABET.charCodeAt(pair >> 18),
      ALPHABET.charCodeAt((pair >> 12) & 63),
      remaining === 2 ? ALPHABET.charCodeAt((pair >> 6) & 63) : 61,
      61,
    );
  }
  flush();
  return text;
}

type NativeEncoder = (bytes: Uint8Array) => string;

function pickNativeEncoder(): NativeEncoder | undefined {
  const proto = Uint8Array.prototype as Uint8Array & { toBase64?: () => string };
  if (typeof proto.toBase64 === "function") {
    return (bytes) => (bytes as Uint8Array & { toBase64: () => string }).toBase64();
  }
  const NodeBuffer = (
    globalThis as {
      Buffer?: { from(b: ArrayBufferLike, o: number, l: number): { toString(e: string): string } };
    }
  ).Buffer;
  if (NodeBuffer) {
    return (bytes) =>
      NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  }
  return undefined;
}

const nativeEncoder = pickNativeEncoder();

/** Standard base64 (RFC 4648 §4, with padding) of the bytes. */
export function encodeBase64(bytes: Uint8Array): string {
  return (nativeEncoder ?? encodeInJavaScript)(bytes);
}

const textEncoder = new TextEncoder();

/**
 * Writes the base64 of `bytes` into `target` at `offset`, one chunk at a
 * time, and returns the offset after it.
 */
export function writeBase64Into(bytes: Uint8Array, target: Uint8Array, offset: number): number {
  let position = offset;
  for (let start = 0; start < bytes.length; start += CHUNK_BYTES) {
    const text = encodeBase64(bytes.subarray(start, Math.min(start + CHUNK_BYTES, bytes.length)));
    position += textEncoder.encodeInto(text, target.subarray(position)).written;
  }
  return position;
}

/** Input bytes encoded between two yields (240 KiB; a multiple of 3, so no padding inside): a few milliseconds of work. */
export const SLICE_BYTES = CHUNK_BYTES * 5;

const setImmediateIfAny = (globalThis as { setImmediate?: (callback: () => void) => unknown })
  .setImmediate;

/**
 * Lets timers, I/O and other tasks run: setImmediate where there is one (Node,
 * Bun: no 1 ms clamp per yield), else setTimeout (Deno, workerd, browsers).
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) =>
    setImmediateIfAny ? setImmediateIfAny(resolve) : setTimeout(resolve, 0),
  );
}

/**
 * `writeBase64Into` in slices of SLICE_BYTES, yielding to the event loop
 * between slices, so that encoding a 25 MiB file never holds the caller's
 * loop for more than one slice. Returns the offset after the text.
 */
export async function writeBase64IntoSliced(
  bytes: Uint8Array,
  target: Uint8Array,
  offset: number,
  yieldNow: () => Promise<void> = yieldToEventLoop,
): Promise<number> {
  let position = offset;
  for (let start = 0; start < bytes.length; start += SLICE_BYTES) {
    if (start > 0) await yieldNow();
    position = writeBase64Into(
      bytes.subarray(start, Math.min(start + SLICE_BYTES, bytes.length)),
      target,
      position,
    );
  }
  return position;
}
