// Full-jitter backoff (src/backoff.ts).
import { describe, expect, it } from "vitest";
import { fullJitterDelay } from "../src/backoff.js";

describe("fullJitterDelay", () => {
  it("full jitter stays within [0, min(max, initial * 2^attempt))", () => {
    expect(fullJitterDelay(0, 100, 1000, () => 0.999)).toBe(99);
    expect(fullJitterDelay(3, 100, 1000, () => 0.5)).toBe(400);
    expect(fullJitterDelay(10, 100, 1000, () => 0.5)).toBe(500);
    expect(fullJitterDelay(10, 100, 1000, () => 0)).toBe(0);
  });
});
