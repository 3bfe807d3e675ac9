import { describe, expect, it } from "vitest";
import { NETWORK_FAULTS, planFor, seededRandom } from "../src/fault-schedule.js";

describe("seededRandom", () => {
  it("gives the same sequence for the same seed, and another for another seed", () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const c = seededRandom(43);
    const first = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(first);
    expect([c(), c(), c()]).not.toEqual(first);
    for (const value of first) expect(value >= 0 && value < 1).toBe(true);
  });
});

describe("planFor", () => {
  it("replays a connection's fault from the seed alone", () => {
    const run = (seed: number) => Array.from({ length: 200 }, (_, i) => planFor(seed, i, 0.5));
    expect(run(7)).toEqual(run(7));
    expect(run(7)).not.toEqual(run(8));
  });

  it("faults about the given share of connections, every fault among them", () => {
    const plans = Array.from({ length: 6000 }, (_, i) => planFor(1234, i, 0.5));
    const faulted = plans.filter((plan) => plan !== "none").length;
    expect(faulted).toBeGreaterThan(2700);
    expect(faulted).toBeLessThan(3300);
    for (const fault of NETWORK_FAULTS) expect(plans).toContain(fault);
  });

  it("faults nothing at rate 0 and everything at rate 1", () => {
    const at = (rate: number) => Array.from({ length: 100 }, (_, i) => planFor(5, i, rate));
    expect(at(0).every((plan) => plan === "none")).toBe(true);
    expect(at(1).every((plan) => plan !== "none")).toBe(true);
  });
});
