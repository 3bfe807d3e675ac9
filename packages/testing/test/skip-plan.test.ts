// Where time goes next when every client sleeps (src/skip-plan.ts).
import { describe, expect, it } from "vitest";
import { skipTarget, wakesAt } from "../src/skip-plan.js";

const plain = (wakeAt: number) => ({ wakeAt, latest: wakeAt });
const polling = (wakeAt: number, until = Number.POSITIVE_INFINITY) => ({ wakeAt, latest: until });
const DAY = 86_400_000;

describe("skipTarget", () => {
  it("with plain sleeps only, the earliest wake-up (the rule before the emulator's events)", () => {
    expect(skipTarget(0, [plain(15_000), plain(20_000)], null)).toBe(15_000);
  });

  it("a polling client sleeps on to the emulator's next event, a day away", () => {
    expect(skipTarget(0, [polling(15_000, 2 * DAY)], DAY)).toBe(DAY);
  });

  it("never past a plain sleep's wake-up, nor a poll's deadline", () => {
    expect(skipTarget(0, [polling(15_000), plain(60_000)], DAY)).toBe(60_000);
    expect(skipTarget(0, [polling(15_000, 3_600_000)], DAY)).toBe(3_600_000);
  });

  it("stops at an event before anyone wakes, so that what happens there happens at its time", () => {
    expect(skipTarget(0, [plain(60_000)], 50)).toBe(50);
  });

  it("with nothing scheduled, a poll with no deadline wakes at its own time", () => {
    expect(skipTarget(0, [polling(15_000)], null)).toBe(15_000);
  });

  it("stays put while a sleeper is due, and with nobody asleep", () => {
    expect(skipTarget(5_000, [plain(4_000), polling(4_000)], DAY)).toBe(5_000);
    expect(skipTarget(5_000, [], DAY)).toBe(5_000);
  });

  it("a sleep wakes once the clock reaches its latest, a poll not at its own wake-up alone", () => {
    expect(wakesAt(plain(4_000), 4_000)).toBe(true);
    expect(wakesAt(polling(4_000), 4_000)).toBe(false);
    expect(wakesAt({ wakeAt: 4_000, latest: 50_000 }, 50_000)).toBe(true);
  });
});
