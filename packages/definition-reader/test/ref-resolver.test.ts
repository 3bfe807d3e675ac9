// RefResolver.deref: what the generator follows into its typed model.
import { describe, expect, it } from "vitest";
import { type Located, RefResolver } from "../src/ref-resolver.js";

function resolverFor(files: Record<string, unknown>): RefResolver {
  const resolver = new RefResolver(
    (file) => file.replace("/defs/", ""),
    (file) => {
      const text = files[file];
      if (typeof text !== "string") throw new Error("ENOENT");
      return text;
    },
  );
  return resolver;
}

describe("RefResolver", () => {
  it("follows a chain across files (read through the injected reader, once each)", () => {
    const reads: string[] = [];
    const files: Record<string, string> = {
      "/defs/a.json": JSON.stringify({ A: { $ref: "b.json#/B" } }),
      "/defs/b.json": JSON.stringify({ B: { type: "string", title: "b" } }),
    };
    const resolver = new RefResolver(
      (f) => f,
      (f) => {
        reads.push(f);
        return files[f] as string;
      },
    );
    const start: Located = {
      node: { $ref: "a.json#/A" },
      file: "/defs/openapi.json",
      pointer: "/x",
    };
    const end = resolver.deref(start);
    expect(end).toEqual({
      node: { type: "string", title: "b" },
      file: "/defs/b.json",
      pointer: "/B",
    });
    resolver.deref(start);
    expect(reads).toEqual(["/defs/a.json", "/defs/b.json"]);
  });

  it("stops at a $ref whose siblings constrain (2020-12), merges annotations when ignoring (3.0)", () => {
    const resolver = resolverFor({});
    const doc = { T: { type: "integer", maximum: 10 } };
    resolver.seed("/defs/openapi.json", doc);
    const node = { $ref: "#/T", maximum: 20, description: "d" };
    const here: Located = { node, file: "/defs/openapi.json", pointer: "/p" };
    expect(resolver.deref(here)).toBe(here);
    resolver.siblingRule = "ignore";
    expect(resolver.deref(here).node).toEqual({ type: "integer", maximum: 10, description: "d" });
  });

  it("refuses URLs, URNs and $anchor fragments, and reports cycles", () => {
    const resolver = resolverFor({});
    resolver.seed("/defs/openapi.json", { A: { $ref: "#/B" }, B: { $ref: "#/A" } });
    const from = (ref: string): Located => ({
      node: { $ref: ref },
      file: "/defs/openapi.json",
      pointer: "/p",
    });
    expect(() => resolver.deref(from("https://example.test/x.json"))).toThrow(/never a URL or URN/);
    expect(() => resolver.deref(from("#anchor"))).toThrow(/not an `\$anchor` name/);
    expect(() => resolver.deref(from("#/A"))).toThrow(/cyclic \$ref/);
  });

  it("refTarget gives one hop whatever stands beside the $ref", () => {
    const resolver = resolverFor({});
    resolver.seed("/defs/openapi.json", { T: { type: "integer" } });
    const hop = resolver.refTarget({
      node: { $ref: "#/T", maximum: 3 },
      file: "/defs/openapi.json",
      pointer: "/p",
    });
    expect(hop).toEqual({
      key: "/defs/openapi.json#/T",
      target: { node: { type: "integer" }, file: "/defs/openapi.json", pointer: "/T" },
    });
  });
});
