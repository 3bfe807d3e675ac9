// The result of a run as the client returns it (src/run-result.ts).
import { describe, expect, it } from "vitest";
import { OutputValidationError } from "../src/index.js";
import { toRunResult } from "../src/run-result.js";

import { invoiceIntake } from "./support/fake-workflows.js";

describe("toRunResult", () => {
  const body = (status: string, outputs: unknown = null) =>
    ({ run_id: "run_1", status, error: null, metadata: {}, outputs }) as never;
  it("only status succeeded carries outputs, checked with the workflow's checkOutputs", () => {
    expect(
      toRunResult(200, body("succeeded", { total: 1, summary: "s" }), "run_1", invoiceIntake),
    ).toMatchObject({
      state: "terminal",
      status: "succeeded",
      outputs: { total: 1 },
    });
    expect(() =>
      toRunResult(200, body("succeeded", { total: "1" }), "run_1", invoiceIntake),
    ).toThrow(OutputValidationError);
    const failed = toRunResult(200, body("failed", { total: 1 }), "run_1", invoiceIntake);
    expect(failed).not.toHaveProperty("outputs");
    expect(toRunResult(202, body("running"), "run_1")).toMatchObject({
      state: "pending",
      status: "running",
    });
    expect(toRunResult(202, body("warming_up"), "run_1")).toMatchObject({
      status: "unrecognized",
      serverStatus: "warming_up",
    });
  });
});
