import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import {
  compose,
  honoPath,
  type Middleware,
  type RequestContext,
  RouteTable,
  requestContext,
} from "../../src/http/router.js";

const ctxOf = (url: string, method = "GET"): RequestContext =>
  requestContext({ url, method } as IncomingMessage, {} as ServerResponse);

describe("requestContext", () => {
  it("splits the target by hand: no authority from //, empty segments dropped, segments decoded", () => {
    const c = ctxOf("//evil.example///production/a%2Fb/%E0?api_key=x&y=1");
    expect(c.path).toBe("/evil.example/production/a%2Fb/%E0");
    expect(c.parts).toEqual(["evil.example", "production", "a/b", "%E0"]);
    expect(c.query.get("api_key")).toBe("x");
  });
});

describe("RouteTable", () => {
  const table = new RouteTable()
    .add("POST", "/runs/:runId/faults/callback-twice", "literal first", () => {})
    .add("POST", "/runs/:runId/faults/:kind", "then the parameter", () => {})
    .add("ALL", "/_app", "app root", () => {})
    .add("ALL", "/_app/*", "app pages", () => {})
    .add("GET", "/", "home", () => {});

  it("matches several parameters, decoded; the row added first wins", () => {
    const a = table.match("POST", "/runs/run%201/faults/callback-twice");
    expect(a?.params).toEqual({ runId: "run 1" });
    expect(a?.handler).toBe(table.match("POST", "/runs/x/faults/callback-twice")?.handler);
    expect(table.match("POST", "/runs/r1/faults/fail")?.params).toEqual({
      runId: "r1",
      kind: "fail",
    });
  });

  it("matches methods (HEAD as GET, ALL as any) and wildcards; null when nothing does", () => {
    expect(table.match("HEAD", "/")).not.toBeNull();
    expect(table.match("DELETE", "/")).toBeNull();
    expect(table.match("PUT", "/_app")).not.toBeNull();
    expect(table.match("GET", "/_app/runs/production/run_1")).not.toBeNull();
    expect(table.match("GET", "/runs/r1/faults/fail")).toBeNull();
    expect(table.rows.map((r) => r.purpose)).toContain("app pages");
  });

  it("reads the specification's path spelling", () => {
    expect(honoPath("/runs/{runId}/human-input")).toBe("/runs/:runId/human-input");
  });
});

describe("compose", () => {
  it("runs middleware in order around the handler; a middleware that answers stops the chain", async () => {
    const seen: string[] = [];
    const mw =
      (name: string, stop = false): Middleware =>
      async (_ctx, next) => {
        seen.push(`${name}>`);
        if (!stop) await next();
        seen.push(`<${name}`);
      };
    await compose([mw("a"), mw("b")], () => {
      seen.push("handler");
    })(ctxOf("/"));
    expect(seen).toEqual(["a>", "b>", "handler", "<b", "<a"]);
    seen.length = 0;
    await compose([mw("a", true), mw("b")], () => {
      seen.push("handler");
    })(ctxOf("/"));
    expect(seen).toEqual(["a>", "<a"]);
  });
});
