// The runtime's in-memory stores against the conformance suites every shared store must pass
// (the PostgreSQL and Redis stores run the same suites in their own packages).
import {
  createMemoryEventStore,
  createMemoryLaunchJournal,
  type LaunchJournal,
} from "@wfr/runtime";
import { describe, expect, it } from "vitest";
import { verifyCallbackEventStore, verifyLaunchJournal } from "../src/index.js";

describe("conformance of the runtime's memory stores", () => {
  it("the memory journal passes the LaunchJournal suite", async () => {
    await verifyLaunchJournal(async () => ({ journal: createMemoryLaunchJournal() }));
  });

  it("the suite catches a journal that lets a second record change the key", async () => {
    const real = createMemoryLaunchJournal();
    const broken: LaunchJournal = {
      ...real,
      async record(intent) {
        const stored = await real.record(intent);
        return { ...stored, idempotencyKey: intent.idempotencyKey };
      },
    };
    await expect(verifyLaunchJournal(async () => ({ journal: broken }))).rejects.toThrow(
      /record is write-once/,
    );
  });

  it("the memory event store passes the CallbackEventStore suite", async () => {
    await verifyCallbackEventStore(() => createMemoryEventStore(), { leaseMs: 150 });
  });

  it("the suite catches a store that hands one event to two claimants", async () => {
    const real = createMemoryEventStore();
    const broken = {
      ...real,
      claim: async (eventId: string, ttlMs: number) => {
        await real.claim(eventId, ttlMs);
        return real.claim(`${eventId}#again-${Math.random()}`, ttlMs);
      },
    };
    await expect(verifyCallbackEventStore(() => broken, { leaseMs: 150 })).rejects.toThrow();
  });

  it("the suite checks extend where a store has it: one that extends for any token fails", async () => {
    const real = createMemoryEventStore();
    const broken = { ...real, extend: async () => true };
    await expect(verifyCallbackEventStore(() => broken, { leaseMs: 150 })).rejects.toThrow(
      /extend with a wrong token is refused/,
    );
  });
});
