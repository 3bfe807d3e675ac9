// Lease semantics every shared callback event store must show. (Run here
// against PGlite and a real PostgreSQL server.)
import { afterEach, describe, expect, it } from "vitest";
import type { LeasedCallbackEventStore as CallbackEventStore } from "../callback-lease-store.js";

export interface CallbackEventStoreHarness {
  readonly store: CallbackEventStore;
  close?(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function describeCallbackEventStoreConformance(
  name: string,
  open: () => Promise<CallbackEventStoreHarness>,
) {
  describe(`CallbackEventStore conformance: ${name}`, () => {
    const opened: CallbackEventStoreHarness[] = [];
    const fresh = async () => {
      const harness = await open();
      opened.push(harness);
      return harness.store;
    };
    afterEach(async () => {
      for (const harness of opened.splice(0)) await harness.close?.();
    });

    it("claims a new event once; a duplicate while it is processing is told to come back later", async () => {
      const store = await fresh();
      const first = await store.claim("evt_1", 60_000);
      expect(first.outcome).toBe("claimed");
      const second = await store.claim("evt_1", 60_000);
      expect(second.outcome).toBe("processing");
      if (second.outcome === "processing") expect(second.retryAfterMs).toBeGreaterThan(0);
    });

    it("a completed event is done for every later claim", async () => {
      const store = await fresh();
      const claim = await store.claim("evt_1", 60_000);
      if (claim.outcome !== "claimed") throw new Error("expected a claim");
      expect(await store.complete("evt_1", claim.fence)).toBe(true);
      expect((await store.claim("evt_1", 60_000)).outcome).toBe("done");
      expect(await store.complete("evt_1", claim.fence)).toBe(false);
    });

    it("a released event can be claimed again, with a new fence", async () => {
      const store = await fresh();
      const claim = await store.claim("evt_1", 60_000);
      if (claim.outcome !== "claimed") throw new Error("expected a claim");
      expect(await store.release("evt_1", claim.fence)).toBe(true);
      const again = await store.claim("evt_1", 60_000);
      if (again.outcome !== "claimed") throw new Error("expected a second claim");
      expect(again.fence).not.toBe(claim.fence);
      // The old fence can neither finish nor release the new owner's claim.
      expect(await store.complete("evt_1", claim.fence)).toBe(false);
      expect(await store.release("evt_1", claim.fence)).toBe(false);
      expect(await store.complete("evt_1", again.fence)).toBe(true);
    });

    it("an expired lease is taken over, and the old owner is fenced out", async () => {
      const store = await fresh();
      const stale = await store.claim("evt_1", 50);
      if (stale.outcome !== "claimed") throw new Error("expected a claim");
      let takeover = await store.claim("evt_1", 60_000);
      while (takeover.outcome === "processing") {
        await sleep(25);
        takeover = await store.claim("evt_1", 60_000);
      }
      if (takeover.outcome !== "claimed")
        throw new Error(`expected a takeover, got ${takeover.outcome}`);
      expect(await store.complete("evt_1", stale.fence)).toBe(false);
      expect(await store.complete("evt_1", takeover.fence)).toBe(true);
      expect((await store.claim("evt_1", 60_000)).outcome).toBe("done");
    });

    it("of many concurrent claims of one event, exactly one wins", async () => {
      const store = await fresh();
      const claims = await Promise.all(
        Array.from({ length: 25 }, () => store.claim("evt_race", 60_000)),
      );
      expect(claims.filter((c) => c.outcome === "claimed")).toHaveLength(1);
      expect(claims.filter((c) => c.outcome === "processing")).toHaveLength(24);
    });

    it("keeps distinct ids apart and ids byte for byte", async () => {
      const store = await fresh();
      const ids = ["evt_a", "evt_A", "evt_a ", `evt_'";-- ${"🧾".repeat(40)}`];
      for (const id of ids) expect((await store.claim(id, 60_000)).outcome).toBe("claimed");
    });
  });
}
