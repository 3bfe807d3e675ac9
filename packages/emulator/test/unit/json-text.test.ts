import { describe, expect, it } from "vitest";
import { jsonTextDepth } from "../../src/json-text.js";

const depth = (t: string, limit = 128) => jsonTextDepth(Buffer.from(t), limit);

describe("jsonTextDepth", () => {
  it("counts nesting of arrays and objects, ignoring brackets inside strings and escapes", () => {
    expect(depth("1")).toBe(0);
    expect(depth('{"a":[1,{"b":2}]}')).toBe(3);
    expect(depth('{"a":"[[[{{{"}')).toBe(1);
    expect(depth('{"a":"\\"[[[","b":[]}')).toBe(2);
    expect(depth('["\\\\",[[]]]')).toBe(3);
  });
  it("stops past the limit", () => {
    expect(depth("[".repeat(100000), 128)).toBe(129);
  });
});
