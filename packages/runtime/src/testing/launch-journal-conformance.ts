// The behaviour every LaunchJournal must show, as a vitest suite that a store
// package runs against its own engine (memory, PGlite, PostgreSQL, Redis).
import { afterEach, describe, expect, it } from "vitest";
import { type LaunchJournal, LaunchJournalInvariantError } from "../launch-journal.js";

export interface LaunchJournalHarness {
  readonly journal: LaunchJournal;
  close?(): Promise<void>;
}

/** `open` must return a journal that shares no records with earlier ones (a fresh schema, prefix, ...). */
export function describeLaunchJournalConformance(
  name: string,
  open: () => Promise<LaunchJournalHarness>,
): void {
  describe(`LaunchJournal conformance: ${name}`, () => {
    const opened: LaunchJournalHarness[] = [];
    const fresh = async () => {
      const harness = await open();
      opened.push(harness);
      return harness.journal;
    };
    afterEach(async () => {
      for (const harness of opened.splice(0)) await harness.close?.();
    });

    it("records an intent once: a second record returns the first key and fingerprint", async () => {
      const journal = await fresh();
      const first = await journal.record({
        intentId: "invoice-1",
        idempotencyKey: "key-a",
        bodyFingerprint: "f1",
      });
      expect(first).toMatchObject({
        intentId: "invoice-1",
        idempotencyKey: "key-a",
        state: "recorded",
        runId: null,
      });
      const again = await journal.record({
        intentId: "invoice-1",
        idempotencyKey: "key-b",
        bodyFingerprint: "f2",
      });
      expect(again.idempotencyKey).toBe("key-a");
      expect(again.bodyFingerprint).toBe("f1");
    });

    it("of many concurrent records of one intent, every caller gets the same key", async () => {
      const journal = await fresh();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          journal.record({
            intentId: "row-7",
            idempotencyKey: `key-${i}`,
            bodyFingerprint: `f-${i}`,
          }),
        ),
      );
      const keys = new Set(results.map((r) => r.idempotencyKey));
      expect(keys.size).toBe(1);
      const stored = await journal.get("row-7");
      expect(stored?.idempotencyKey).toBe(results[0]?.idempotencyKey);
    });

    it("moves recorded -> sent -> acknowledged and keeps the run id", async () => {
      const journal = await fresh();
      await journal.record({ intentId: "i", idempotencyKey: "k", bodyFingerprint: "f" });
      await journal.markSent("i");
      expect((await journal.get("i"))?.state).toBe("sent");
      await journal.markAcknowledged("i", "run_1");
      const stored = await journal.get("i");
      expect(stored).toMatchObject({ state: "acknowledged", runId: "run_1", idempotencyKey: "k" });
      expect(stored?.updatedAt.getTime()).toBeGreaterThanOrEqual(stored?.createdAt.getTime() ?? 0);
    });

    it("acknowledging again with the same run is a no-op; with another run it throws", async () => {
      const journal = await fresh();
      await journal.record({ intentId: "i", idempotencyKey: "k", bodyFingerprint: "f" });
      await journal.markAcknowledged("i", "run_1");
      await journal.markAcknowledged("i", "run_1");
      await expect(journal.markAcknowledged("i", "run_2")).rejects.toBeInstanceOf(
        LaunchJournalInvariantError,
      );
      expect((await journal.get("i"))?.runId).toBe("run_1");
    });

    it("never moves an acknowledged intent back to sent or failed", async () => {
      const journal = await fresh();
      await journal.record({ intentId: "i", idempotencyKey: "k", bodyFingerprint: "f" });
      await journal.markAcknowledged("i", "run_1");
      await journal.markSent("i");
      await journal.markFailed("i", "late failure");
      expect(await journal.get("i")).toMatchObject({
        state: "acknowledged",
        runId: "run_1",
        failure: null,
      });
    });

    it("records a failure, and a later resend clears it", async () => {
      const journal = await fresh();
      await journal.record({ intentId: "i", idempotencyKey: "k", bodyFingerprint: "f" });
      await journal.markFailed("i", "422 INVALID_INPUTS");
      expect(await journal.get("i")).toMatchObject({
        state: "failed",
        failure: "422 INVALID_INPUTS",
      });
      await journal.markSent("i");
      expect(await journal.get("i")).toMatchObject({ state: "sent", failure: null });
    });

    it("lists recorded and sent intents, oldest first, up to the limit; not acknowledged or failed ones", async () => {
      const journal = await fresh();
      for (const id of ["a", "b", "c", "d", "e"]) {
        await journal.record({ intentId: id, idempotencyKey: `k-${id}`, bodyFingerprint: "f" });
        // Distinct update times, so "oldest first" has one right answer.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await journal.markSent("b");
      await journal.markAcknowledged("c", "run_c");
      await journal.markFailed("d", "400");
      const open = await journal.listUnacknowledged();
      expect(open.map((i) => i.intentId)).toEqual(["a", "e", "b"]);
      const limited = await journal.listUnacknowledged({ limit: 2 });
      expect(limited.map((i) => i.intentId)).toEqual(["a", "e"]);
      expect(await journal.listUnacknowledged({ olderThanMs: 24 * 60 * 60 * 1000 })).toEqual([]);
    });

    it("refuses to change an intent it never recorded", async () => {
      const journal = await fresh();
      expect(await journal.get("nope")).toBeUndefined();
      await expect(journal.markSent("nope")).rejects.toBeInstanceOf(LaunchJournalInvariantError);
      await expect(journal.markAcknowledged("nope", "run")).rejects.toBeInstanceOf(
        LaunchJournalInvariantError,
      );
      await expect(journal.markFailed("nope", "x")).rejects.toBeInstanceOf(
        LaunchJournalInvariantError,
      );
    });

    it("keeps ids, keys and failures byte for byte (quotes, unicode, long values)", async () => {
      const journal = await fresh();
      const intentId = `inv'"\\;-- ${"é🧾".repeat(50)}`;
      const idempotencyKey = "🔑".repeat(150);
      await journal.record({ intentId, idempotencyKey, bodyFingerprint: "a".repeat(64) });
      await journal.markFailed(intentId, "line 1\nline 2 \t tab");
      expect(await journal.get(intentId)).toMatchObject({
        intentId,
        idempotencyKey,
        failure: "line 1\nline 2 \t tab",
      });
    });
  });
}
