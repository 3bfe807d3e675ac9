import { describe, expect, it } from "vitest";
import { sameJson } from "../src/json-equal.js";

describe("sameJson", () => {
  it("ignores key order, not array order or types", () => {
    expect(sameJson({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBe(true);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson(1, "1")).toBe(false);
    expect(sameJson({ a: undefined }, {})).toBe(false);
    expect(sameJson(null, {})).toBe(false);
  });
});
