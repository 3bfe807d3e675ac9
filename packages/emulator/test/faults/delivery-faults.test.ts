// A run's callback delivery faults (delivery-faults.ts): taking one changes nothing by itself;
// what is left is for the caller to commit (emulator-state.ts, useDeliveryFault), journal first.
import { describe, expect, it } from "vitest";
import { DeliveryFaults } from "../../src/faults/delivery-faults.js";
import type { JournalRecord } from "../../src/journal/journal-records.js";
import { useDeliveryFault } from "../../src/state/emulator-state.js";

function armed(): DeliveryFaults {
  const faults = new DeliveryFaults();
  faults.restore("run_a", { twice: 1, late: [500], fail: { attempts: 2, status: 502 } });
  return faults;
}

describe("DeliveryFaults", () => {
  it("offers the next fault and the plan left after it, without using it", () => {
    const faults = armed();
    const before = structuredClone(faults.plan("run_a"));
    expect(faults.forCallback("run_a")).toEqual({
      fault: { twice: true, delayMs: 500 },
      left: { twice: 0, late: [], fail: { attempts: 2, status: 502 } },
    });
    expect(faults.forAttempt("run_a")).toEqual({
      fault: 502,
      left: { twice: 1, late: [500], fail: { attempts: 1, status: 502 } },
    });
    expect(faults.plan("run_a")).toEqual(before);
    expect(faults.forCallback("run_b")).toBeNull();
    expect(faults.forAttempt("run_b")).toBeNull();
  });

  it("leaves nothing (null) once the last fault is used", () => {
    const faults = new DeliveryFaults();
    faults.restore("run_a", { twice: 0, late: [], fail: { attempts: 1, status: 503 } });
    expect(faults.forCallback("run_a")).toBeNull();
    expect(faults.forAttempt("run_a")).toEqual({ fault: 503, left: null });
  });
});

describe("useDeliveryFault", () => {
  it("commits the plan left before the fault is used, and nothing when there is none", () => {
    const faults = armed();
    const committed: JournalRecord[] = [];
    const st = {
      commit: (rec: JournalRecord) => {
        committed.push(rec);
        if (rec.t === "delivery_faults") faults.restore(rec.run_id, rec.plan);
      },
    };
    expect(useDeliveryFault(st, "run_a", faults.forAttempt("run_a"))).toBe(502);
    expect(useDeliveryFault(st, "run_a", faults.forAttempt("run_a"))).toBe(502);
    expect(useDeliveryFault(st, "run_a", faults.forAttempt("run_a"))).toBeNull();
    expect(committed.map((r) => r.t === "delivery_faults" && r.plan?.fail)).toEqual([
      { attempts: 1, status: 502 },
      null,
    ]);
    expect(faults.plan("run_a")).toEqual({ twice: 1, late: [500], fail: null });
  });
});
