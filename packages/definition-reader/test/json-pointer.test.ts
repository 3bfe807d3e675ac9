// RFC 6901's own examples (section 5: string form; section 6: URI fragment
// form) as the judge of the one pointer decoding every reader uses.
import { describe, expect, it } from "vitest";
import {
  formatJsonPointer,
  JsonPointerError,
  parseFragmentPointer,
  parseJsonPointer,
  resolveJsonPointer,
} from "../src/json-pointer.js";

const DOC = JSON.parse(`{
  "foo": ["bar", "baz"],
  "": 0,
  "a/b": 1,
  "c%d": 2,
  "e^f": 3,
  "g|h": 4,
  "i\\\\j": 5,
  "k\\"l": 6,
  " ": 7,
  "m~n": 8
}`);

describe("RFC 6901 section 5: JSON string representation", () => {
  const cases: [string, unknown][] = [
    ["", DOC],
    ["/foo", ["bar", "baz"]],
    ["/foo/0", "bar"],
    ["/", 0],
    ["/a~1b", 1],
    ["/c%d", 2],
    ["/e^f", 3],
    ["/g|h", 4],
    ["/i\\j", 5],
    ['/k"l', 6],
    ["/ ", 7],
    ["/m~0n", 8],
  ];
  for (const [pointer, value] of cases)
    it(JSON.stringify(pointer), () => {
      expect(resolveJsonPointer(DOC, parseJsonPointer(pointer))).toEqual(value);
    });
});

describe("RFC 6901 section 6: URI fragment identifier representation", () => {
  const cases: [string, unknown][] = [
    ["", DOC],
    ["/foo", ["bar", "baz"]],
    ["/foo/0", "bar"],
    ["/", 0],
    ["/a~1b", 1],
    ["/c%25d", 2],
    ["/e%5Ef", 3],
    ["/g%7Ch", 4],
    ["/i%5Cj", 5],
    ["/k%22l", 6],
    ["/%20", 7],
    ["/m~0n", 8],
  ];
  for (const [fragment, value] of cases)
    it(`#${fragment}`, () => {
      expect(resolveJsonPointer(DOC, parseFragmentPointer(fragment))).toEqual(value);
    });

  it("percent-decodes before reading ~ escapes: #/a%7E1b is the key a/b", () => {
    expect(parseFragmentPointer("/a%7E1b")).toEqual(["a/b"]);
    expect(parseFragmentPointer("/a%7E0b")).toEqual(["a~b"]);
  });
});

describe("escapes and errors", () => {
  it("reads ~01 as ~1 (~1 is replaced before ~0)", () => {
    expect(parseJsonPointer("/~01")).toEqual(["~1"]);
    expect(formatJsonPointer(["~1", "a/b", 0])).toBe("/~01/a~1b/0");
  });

  it("refuses what is not a pointer", () => {
    expect(() => parseJsonPointer("foo")).toThrow(JsonPointerError);
    expect(() => parseJsonPointer("/a~2")).toThrow(JsonPointerError);
    expect(() => parseJsonPointer("/a~")).toThrow(JsonPointerError);
    expect(() => parseFragmentPointer("/%E0%A4%A")).toThrow(JsonPointerError);
  });

  it("follows own properties only, and decimal array indexes", () => {
    expect(resolveJsonPointer({}, ["constructor"])).toBeUndefined();
    expect(resolveJsonPointer(JSON.parse('{"__proto__": 1}'), ["__proto__"])).toBe(1);
    expect(resolveJsonPointer(["a", "b"], ["01"])).toBeUndefined();
    expect(resolveJsonPointer(["a", "b"], ["-"])).toBeUndefined();
    expect(resolveJsonPointer(["a", "b"], ["1"])).toBe("b");
  });
});
