import { describe, expect, it } from "vitest";
import { printable } from "../src/printable.js";

describe("printable", () => {
  it("escapes C0, DEL, C1 and bidi controls; keeps other text, including non-Latin letters", () => {
    expect(printable("a\u0000b\tc\u007fd\u0085e\u202ef\u2066g ключ 😀")).toBe(
      "a\\x00b\\x09c\\x7fd\\x85e\\u202ef\\u2066g ключ 😀",
    );
  });
  it("escapes a line break unless asked to keep them", () => {
    expect(printable("a\nb\r")).toBe("a\\x0ab\\x0d");
    expect(printable("a\nb\r", { keepLineBreaks: true })).toBe("a\nb\\x0d");
  });
});
