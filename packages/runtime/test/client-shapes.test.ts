// The client's small pure helpers (src/client-shapes.ts).
import { describe, expect, it } from "vitest";
import { path, resultArguments } from "../src/client-shapes.js";

describe("path", () => {
  it("puts the encoded id in place of the route's one parameter", () => {
    expect(path("/runs/{runId}", "run_1")).toBe("/runs/run_1");
    expect(path("/runs/{runId}/result", "a/b?c#d")).toBe("/runs/a%2Fb%3Fc%23d/result");
    expect(path("/automations/{workflowId}/runs", "wf 1")).toBe("/automations/wf%201/runs");
  });

  it("leaves text that looks like a replacement pattern as it is", () => {
    expect(path("/browser-access-grants/{grantId}", "$&$1")).toBe(
      "/browser-access-grants/%24%26%241",
    );
  });
});

describe("resultArguments", () => {
  it("reads (runId, options) and (workflow, runId, options)", () => {
    const options = { maxRetries: 1 };
    expect(resultArguments("run_1", options, undefined)).toEqual({
      workflow: undefined,
      runId: "run_1",
      options,
    });
  });
});
