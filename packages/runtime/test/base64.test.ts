// Base64 written into the request bytes (src/base64.ts), in slices that yield.
import { describe, expect, it } from "vitest";
import {
  base64EncodedLength,
  encodeBase64,
  SLICE_BYTES,
  writeBase64Into,
  writeBase64IntoSliced,
} from "../src/base64.js";

function bytesOf(n: number): Uint8Array {
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i += 1) bytes[i] = (i * 131 + 7) & 255;
  return bytes;
}

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("writeBase64IntoSliced", () => {
  it("writes exactly what Buffer encodes, for sizes around the slice edges", async () => {
    for (const n of [
      0,
      1,
      2,
      3,
      SLICE_BYTES - 1,
      SLICE_BYTES,
      SLICE_BYTES + 1,
      2 * SLICE_BYTES + 2,
    ]) {
      const input = bytesOf(n);
      const target = new Uint8Array(base64EncodedLength(n) + 2);
      const end = await writeBase64IntoSliced(input, target, 1);
      expect(end, String(n)).toBe(1 + base64EncodedLength(n));
      expect(decode(target.subarray(1, end)), String(n)).toBe(
        Buffer.from(input).toString("base64"),
      );
    }
  });

  it("yields between slices: once per slice after the first", async () => {
    let yields = 0;
    const input = bytesOf(3 * SLICE_BYTES + 10);
    const target = new Uint8Array(base64EncodedLength(input.length));
    await writeBase64IntoSliced(input, target, 0, async () => {
      yields += 1;
    });
    expect(yields).toBe(3);
    const whole = new Uint8Array(target.length);
    writeBase64Into(input, whole, 0);
    expect(Buffer.from(target).equals(Buffer.from(whole))).toBe(true);
  });

  it("lets a timer queued before the encoding run before it ends (the loop is not held)", async () => {
    let timerRan = false;
    let timerRanBeforeEnd = false;
    setTimeout(() => {
      timerRan = true;
    }, 0);
    const input = bytesOf(4 * SLICE_BYTES);
    const target = new Uint8Array(base64EncodedLength(input.length));
    const encoding = writeBase64IntoSliced(input, target, 0).then(() => {
      timerRanBeforeEnd = timerRan;
    });
    await encoding;
    expect(timerRanBeforeEnd).toBe(true);
  });
});

describe("encodeBase64", () => {
  it("encodes base64 like the platform, in chunks, with the arithmetic length", () => {
    for (const size of [0, 1, 2, 3, 4, 5, 100, 3 * 16_384 + 1, 200_000]) {
      const bytes = new Uint8Array(size).map((_, i) => (i * 31 + 7) & 255);
      const encoded = encodeBase64(bytes);
      expect(encoded).toBe(Buffer.from(bytes).toString("base64"));
      expect(encoded.length).toBe(base64EncodedLength(size));
    }
  });
});
