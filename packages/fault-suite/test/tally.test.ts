import { describe, expect, it } from "vitest";
import {
  allHeld,
  countLines,
  launchRows,
  launchVerdict,
  renderTable,
  runsByBusinessId,
  sideEffectTally,
} from "../src/tally.js";

describe("side effects", () => {
  it("counts lines of an effects file", () => {
    expect(countLines("a\nb\na\n")).toEqual(
      new Map([
        ["a", 2],
        ["b", 1],
      ]),
    );
  });

  it("counts lost and duplicated against the events that had to happen", () => {
    const effects = new Map([
      ["a", 1],
      ["b", 3],
      ["z", 1],
    ]);
    expect(sideEffectTally(["a", "b", "c"], effects)).toEqual({
      lost: 1,
      duplicated: 1,
      unexpected: 1,
    });
  });
});

describe("launches", () => {
  const runs = [
    { run_id: "run_1", metadata: { business_id: "launch-1" } },
    { run_id: "run_2", metadata: { business_id: "launch-2" } },
    { run_id: "run_3", metadata: { business_id: "launch-2" } },
    { run_id: "run_4", metadata: { business_id: "other-1" } },
  ];

  it("groups runs by business id under a prefix", () => {
    expect(runsByBusinessId(runs, "launch-")).toEqual(
      new Map([
        ["launch-1", ["run_1"]],
        ["launch-2", ["run_2", "run_3"]],
      ]),
    );
  });

  it("judges an accepted launch by its own run, a failed one by the record", () => {
    const after = runsByBusinessId(runs, "launch-");
    expect(launchVerdict({ businessId: "launch-1", runId: "run_1" }, after)).toEqual({
      lost: false,
      duplicated: false,
    });
    expect(launchVerdict({ businessId: "launch-1", runId: "run_9" }, after).lost).toBe(true);
    expect(launchVerdict({ businessId: "launch-2" }, after)).toEqual({
      lost: false,
      duplicated: true,
    });
    expect(launchVerdict({ businessId: "launch-3" }, after).lost).toBe(true);
  });

  it("makes a row per fault, one for failed launches and one for all", () => {
    const exchanges = [
      { plan: "gateway-502", idempotencyKey: "launch-1" },
      { plan: "none", idempotencyKey: "launch-1" },
      { plan: "reset-mid-request", idempotencyKey: "launch-2" },
    ];
    const outcomes = [{ businessId: "launch-1", runId: "run_1" }, { businessId: "launch-2" }];
    const before = new Map([["launch-1", ["run_1"]]]);
    const after = new Map([
      ["launch-1", ["run_1"]],
      ["launch-2", ["run_2"]],
    ]);
    const rows = launchRows(exchanges, outcomes, before, after);
    expect(rows).toHaveLength(8);
    expect(rows.find((r) => r.fault.startsWith("gateway"))).toMatchObject({
      operations: 1,
      lost: 0,
    });
    expect(rows.find((r) => r.fault.startsWith("launch failed"))).toMatchObject({
      operations: 1,
      lost: 0,
      duplicated: 0,
      note: "before the relaunch: 1 with 0 runs, 0 with 1",
    });
    expect(allHeld(rows)).toBe(true);
    expect(allHeld([{ ...rows[0], duplicated: 1 } as (typeof rows)[0]])).toBe(false);
  });
});

describe("renderTable", () => {
  it("pads the columns of a Markdown table", () => {
    const table = renderTable([
      { fault: "f", setup: "s", operations: 10, lost: 0, duplicated: 0, note: "n" },
    ]);
    const lines = table.split("\n");
    expect(lines).toHaveLength(3);
    expect(new Set(lines.map((line) => line.length)).size).toBe(1);
    expect(lines[2]).toContain("| 10         | 0    | 0          |");
  });
});
