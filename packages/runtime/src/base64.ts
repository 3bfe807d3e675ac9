// Base64 without btoa (which needs a binary string copy of the whole input)
// and without Node's Buffer: encodes in chunks so no intermediate holds more
// than one chunk besides the output string.

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const CHUNK_BYTES = 3 * 16_384;

/** Length of the base64 text for `byteLength` bytes: 4 * ceil(n / 3). */
export function base64EncodedLength(byteLength: number): number {
  return 4 * Math.ceil(byteLength / 3);
}

function encodeChunk(bytes: Uint8Array, start: number, end: number): string {
  const codes: number[] = [];
  let index = start;
  for (; index + 2 < end; index += 3) {
    const triple =
      ((bytes[index] ?? 0) << 16) | ((bytes[index + 1] ?? 0) << 8) | (bytes[index + 2] ?? 0);
    codes.push(
      ALPHABET.charCodeAt(triple >> 18),
      ALPHABET.charCodeAt((triple >> 12) & 63),
      ALPHABET.charCodeAt((triple >> 6) & 63),
      ALPHABET.charCodeAt(triple & 63),
    );
  }
  const remaining = end - index;
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
  return String.fromCharCode(...codes);
}

/** Standard base64 (RFC 4648 §4, with padding) of the bytes. */
export function encodeBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  for (let start = 0; start < bytes.length; start += CHUNK_BYTES) {
    parts.push(encodeChunk(bytes, start, Math.min(start + CHUNK_BYTES, bytes.length)));
  }
  return parts.join("");
}
