// Redaction of secrets from text and errors (src/redact.ts).
import { describe, expect, it } from "vitest";
import { redact, redactError } from "../src/redact.js";

const API_KEY = "wfr_live_SECRET123";

describe("redact", () => {
  it("removes the key and any Bearer token from text", () => {
    expect(redact(`key ${API_KEY} and Authorization: Bearer abc.def`, [API_KEY])).toBe(
      "key [REDACTED] and Authorization: Bearer [REDACTED]",
    );
  });

  it("rebuilds an error's cause chain with every message redacted", () => {
    const inner = new Error(`inner ${API_KEY}`);
    const outer = new TypeError(`outer ${API_KEY}`, {
      cause: { detail: API_KEY, authorization: "x", nested: inner },
    });
    const clean = redactError(outer, [API_KEY]);
    expect(JSON.stringify(clean) + clean.message + String(clean.stack)).not.toContain(API_KEY);
    const cause = clean.cause as { detail: string; authorization: string; nested: Error };
    expect(cause).toMatchObject({ detail: "[REDACTED]", authorization: "[REDACTED]" });
    expect(cause.nested.message).toBe("inner [REDACTED]");
  });
});
