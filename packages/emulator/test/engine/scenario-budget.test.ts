// Scenarios and recorded runs have a budget (docs/limits.md): at most MAX_SCENARIO_STEPS steps,
// a recorded-run file at most MAX_RECORDED_RUN_BYTES, refused by its size before it is read.
// Each is tested at ten times its budget: a typed error naming the limit, nothing replayed.
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseScenario, ScenarioError } from "../../src/engine/scenario.js";
import {
  MAX_RECORDED_RUN_BYTES,
  MAX_SCENARIO_STEPS,
  RECORDED_RUN_FORMAT,
  RecordedRunError,
  readRecordedRunFile,
} from "../../src/index.js";
import { Harness, INVOICE } from "../conformance/support.js";

const dir = mkdtempSync(join(tmpdir(), "wfr-scenario-budget-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const steps = (n: number) => Array.from({ length: n }, () => ({ wait_ms: 1 }));

describe("scenario budget", () => {
  it(`a scenario of ${MAX_SCENARIO_STEPS} steps is read; ten times as many is refused naming the limit`, () => {
    expect(parseScenario({ steps: steps(MAX_SCENARIO_STEPS) }).steps).toHaveLength(
      MAX_SCENARIO_STEPS,
    );
    expect(() => parseScenario({ steps: steps(10 * MAX_SCENARIO_STEPS) })).toThrow(ScenarioError);
    expect(() => parseScenario({ steps: steps(10 * MAX_SCENARIO_STEPS) })).toThrow(/at most 10000/);
  });

  it("the admin API refuses such a scenario with 400, and the workflow keeps the one it had", async () => {
    const h = await Harness.start();
    try {
      const path = `/environments/production/workflows/${INVOICE}/scenario`;
      expect((await h.admin("PUT", path, { steps: [{ succeed: {} }] })).status).toBeLessThan(300);
      const refused = await h.admin("PUT", path, { steps: steps(10 * MAX_SCENARIO_STEPS) });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain("at most 10000");
    } finally {
      await h.close();
    }
  });

  it("a recorded-run file ten times the size budget is refused by its size, unread", async () => {
    const file = join(dir, "huge.json");
    // Sparse: the size is on record, nothing to read (it is never read).
    const fd = openSync(file, "w");
    closeSync(fd);
    const { truncateSync } = await import("node:fs");
    truncateSync(file, 10 * MAX_RECORDED_RUN_BYTES);
    await expect(readRecordedRunFile(file)).rejects.toBeInstanceOf(RecordedRunError);
    await expect(readRecordedRunFile(file)).rejects.toThrow(/at most 16777216 bytes/);
  });

  it("a recorded-run file whose scenario has ten times the steps is refused naming the file", async () => {
    const file = join(dir, "long.json");
    writeFileSync(
      file,
      JSON.stringify({
        format: RECORDED_RUN_FORMAT,
        environment: "production",
        workflow_id: INVOICE,
        scenario: { steps: steps(10 * MAX_SCENARIO_STEPS) },
      }),
    );
    await expect(readRecordedRunFile(file)).rejects.toThrow(
      /long\.json: scenario: .*at most 10000/,
    );
  });
});
