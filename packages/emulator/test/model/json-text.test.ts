import { describe, expect, it } from "vitest";
import { jsonTextDepth, metadataMembers } from "../../src/model/json-text.js";

const depth = (t: string, limit = 128) => jsonTextDepth(Buffer.from(t), limit);

describe("jsonTextDepth", () => {
  it("counts nesting of arrays and objects, ignoring brackets inside strings and escapes", () => {
    expect(depth("1")).toBe(0);
    expect(depth('{"a":[1,{"b":2}]}')).toBe(3);
    expect(depth('{"a":"[[[{{{"}')).toBe(1);
    expect(depth('{"a":"\\"[[[","b":[]}')).toBe(2);
    expect(depth('["\\\\",[[]]]')).toBe(3);
    // An escaped backslash, then an escaped quote, then a bracket still inside the string.
    expect(depth('["a\\\\\\"[",[]]')).toBe(2);
    expect(depth('["never closed [[[')).toBe(1);
  });
  it("stops past the limit", () => {
    expect(depth("[".repeat(100000), 128)).toBe(129);
  });
});

const members = (t: string, limit = 10_000) => metadataMembers(Buffer.from(t), limit);

describe("metadataMembers", () => {
  it("counts the members of the top-level metadata only, at every level", () => {
    expect(members('{"inputs":{"a":1,"b":2,"c":3},"metadata":{"x":1,"y":2}}')).toBe(2);
    expect(members('{"metadata":{"x":[1,2,3],"y":{"z":1}}}')).toBe(6);
    expect(members('{"metadata":{}}')).toBe(1);
    expect(members('{"metadata":null,"inputs":{"a":[1,2,3,4]}}')).toBe(0);
    expect(members('{"inputs":{"metadata":{"a":1,"b":2}}}')).toBe(0);
  });
  it("reads the key however it is escaped, ignores commas in strings", () => {
    expect(members('{"\\u006detadata":{"x":1,"y":2}}')).toBe(2);
    expect(members('{"metadata":{"x":"a,b,c,{[","y":2}}')).toBe(2);
    expect(members('{ "metadata" : { "x" : 1 , "y" : 2 } , "inputs" : {"a":1,"b":2,"c":3} }')).toBe(
      2,
    );
  });
  it("stops past the limit", () => {
    const big = `{"metadata":{${Array.from({ length: 1000 }, (_, i) => `"k${i}":${i}`).join(",")}}}`;
    expect(members(big, 10)).toBe(11);
  });
});
