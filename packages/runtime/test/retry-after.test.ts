// Retry-After as seconds or an HTTP date (src/retry-after.ts).
import { describe, expect, it } from "vitest";
import { errorFromResponse } from "../src/errors.js";
import { parseRetryAfterSeconds } from "../src/retry-after.js";

describe("Retry-After", () => {
  const headers = (init: Record<string, string> = {}) => new Headers(init);
  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(parseRetryAfterSeconds("3")).toBe(3);
    expect(
      parseRetryAfterSeconds(
        "Wed, 21 Oct 2015 07:28:10 GMT",
        Date.parse("Wed, 21 Oct 2015 07:28:00 GMT"),
      ),
    ).toBe(10);
    expect(parseRetryAfterSeconds("soon")).toBeUndefined();
    expect(
      errorFromResponse(
        429,
        { error: "x", code: "RECORDING_RATE_LIMITED" },
        headers({ "retry-after": "60" }),
      ).retryAfterSeconds,
    ).toBe(60);
  });
});
