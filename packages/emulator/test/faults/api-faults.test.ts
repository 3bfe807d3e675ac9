import { describe, expect, it } from "vitest";
import {
  ApiFaultError,
  ApiFaults,
  apiFaultFromFlag,
  parseApiFault,
  routeMatches,
} from "../../src/faults/api-faults.js";

describe("routeMatches", () => {
  it("matches a method and segments; * and {name} are one segment, ** the rest", () => {
    const launch = ["automations", "wf_1", "runs"];
    expect(routeMatches("POST /automations/*/runs", "POST", launch)).toBe(true);
    expect(routeMatches("POST /automations/{workflowId}/runs", "post", launch)).toBe(true);
    expect(routeMatches("GET /automations/*/runs", "POST", launch)).toBe(false);
    expect(routeMatches("* /**", "GET", ["runs", "run_1", "result"])).toBe(true);
    expect(routeMatches("GET /runs/*", "GET", ["runs", "run_1", "result"])).toBe(false);
    expect(routeMatches("GET /runs/**", "GET", ["runs", "run_1", "result"])).toBe(true);
    expect(routeMatches("GET /runs/run_2", "GET", ["runs", "run_1"])).toBe(false);
  });
});

describe("parseApiFault", () => {
  const field = (body: Record<string, unknown>) => {
    try {
      parseApiFault(body, "flt_1");
    } catch (e) {
      return (e as ApiFaultError).field;
    }
    return null;
  };

  it("names the field of each bad value", () => {
    const ok = { route: "* /**", fault: "status", status: 503 };
    expect(field(ok)).toBeNull();
    expect(field({ ...ok, route: "/runs" })).toBe("route");
    expect(field({ ...ok, route: "FETCH /runs" })).toBe("route");
    expect(field({ ...ok, fault: "explode" })).toBe("fault");
    expect(field({ ...ok, status: 404 })).toBe("status");
    expect(field({ ...ok, retry_after: -1 })).toBe("retry_after");
    expect(field({ ...ok, count: 0 })).toBe("count");
    expect(field({ ...ok, probability: 0 })).toBe("probability");
    expect(field({ ...ok, workspace: 3 })).toBe("workspace");
    expect(field({ route: "* /**", fault: "stall" })).toBe("ms");
    expect(field({ route: "* /**", fault: "delay", ms: 1e9 })).toBe("ms");
  });

  it("defaults: once; a 429 says Retry-After 1; with a probability and no count, no limit", () => {
    const once = parseApiFault({ route: "* /**", fault: "status", status: 429 }, "a");
    expect(once.remaining).toBe(1);
    expect(once.action).toEqual({ kind: "status", status: 429, retry_after: 1 });
    const sometimes = parseApiFault({ route: "* /**", fault: "drop", probability: 0.5 }, "b");
    expect(sometimes.remaining).toBeNull();
    expect(parseApiFault({ route: "* /**", fault: "status", status: 503 }, "c").action).toEqual({
      kind: "status",
      status: 503,
      retry_after: null,
    });
  });
});

describe("ApiFaults", () => {
  it("fires the first matching rule its count of times, for its workspace only", () => {
    const faults = new ApiFaults();
    faults.add(
      parseApiFault(
        {
          route: "POST /automations/*/runs",
          fault: "status",
          status: 503,
          count: 2,
          workspace: "ws_a",
        },
        "flt_a",
      ),
    );
    // What the middleware does: the firing is committed (here: restored) before it counts.
    const take = (query: Parameters<ApiFaults["firing"]>[0]) => {
      const rule = faults.firing(query);
      if (rule) faults.restore(rule.id, rule);
      return rule;
    };
    const q = (workspace: string) => ({
      method: "POST",
      path: ["automations", "wf_1", "runs"],
      environment: "production",
      workspace,
    });
    expect(take(q("ws_b"))).toBeNull();
    expect(take(q("ws_a"))?.id).toBe("flt_a");
    expect(take(q("ws_a"))?.id).toBe("flt_a");
    expect(take(q("ws_a"))).toBeNull();
    expect(faults.list()[0]).toMatchObject({ remaining: 0, hits: 2 });
  });

  it("fires with its probability", () => {
    let r = 0.9;
    const faults = new ApiFaults(() => r);
    faults.add(parseApiFault({ route: "* /**", fault: "drop", probability: 0.5 }, "flt_p"));
    const q = { method: "GET", path: ["runs", "x"], environment: "e", workspace: "w" };
    expect(faults.firing(q)).toBeNull();
    r = 0.1;
    expect(faults.firing(q)?.id).toBe("flt_p");
  });
});

describe("apiFaultFromFlag", () => {
  it("reads the short form and JSON", () => {
    expect(apiFaultFromFlag("503 POST /automations/*/runs count=2 workspace=ws_a")).toEqual({
      route: "POST /automations/*/runs",
      fault: "status",
      status: 503,
      count: 2,
      workspace: "ws_a",
    });
    expect(apiFaultFromFlag("stall=1500 GET /runs/*")).toEqual({
      route: "GET /runs/*",
      fault: "stall",
      ms: 1500,
    });
    expect(apiFaultFromFlag("drop * /** probability=0.25")).toEqual({
      route: "* /**",
      fault: "drop",
      probability: 0.25,
    });
    expect(apiFaultFromFlag('{"route":"* /**","fault":"drop"}')).toEqual({
      route: "* /**",
      fault: "drop",
    });
    expect(() => apiFaultFromFlag("explode * /**")).toThrow(ApiFaultError);
    expect(() => apiFaultFromFlag("503 * /** colour=red")).toThrow(ApiFaultError);
  });
});

describe("ApiFaults.firing", () => {
  it("counts a firing on a copy: the rule changes only when the firing is committed", () => {
    const faults = new ApiFaults();
    faults.add(parseApiFault({ route: "* /**", fault: "status", status: 500, count: 1 }, "flt_c"));
    const q = { method: "GET", path: ["runs", "x"], environment: "e", workspace: "w" };
    expect(faults.firing(q)).toMatchObject({ id: "flt_c", remaining: 0, hits: 1 });
    expect(faults.list()[0]).toMatchObject({ remaining: 1, hits: 0 });
    expect(faults.firing(q)).toMatchObject({ remaining: 0, hits: 1 });
  });
});
