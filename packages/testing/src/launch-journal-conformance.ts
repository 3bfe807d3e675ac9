// The conformance check every LaunchJournal runs (memory here; PGlite,
// PostgreSQL and Redis in their own packages). `open` must return a journal
// that shares no intents with earlier ones (a fresh schema or key prefix),
// because the listing rules need an empty journal.
import { type LaunchJournal, LaunchJournalInvariantError } from "@wfr/runtime";

export interface LaunchJournalUnderTest {
  readonly journal: LaunchJournal;
  close?(): Promise<void>;
}

class JournalConformanceError extends Error {
  override name = "JournalConformanceError";
}

function expect(condition: boolean, rule: string, seen: unknown): void {
  if (!condition) throw new JournalConformanceError(`${rule} (got ${JSON.stringify(seen)})`);
}

async function rejectsWithInvariantError(promise: Promise<unknown>, rule: string): Promise<void> {
  try {
    await promise;
  } catch (error) {
    expect(error instanceof LaunchJournalInvariantError, rule, String(error));
    return;
  }
  expect(false, rule, "resolved");
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs every rule of the LaunchJournal contract, each on a fresh journal, and
 * throws an error naming the first rule broken. Call it from any test runner.
 */
export async function verifyLaunchJournal(
  open: () => Promise<LaunchJournalUnderTest>,
): Promise<void> {
  const rules: [string, (journal: LaunchJournal) => Promise<void>][] = [
    [
      "record is write-once",
      async (journal) => {
        const first = await journal.record({
          intentId: "inv-1",
          idempotencyKey: "key-a",
          bodyFingerprint: "f1",
        });
        expect(
          first.state === "recorded" && first.runId === null,
          "a new intent is recorded with no run",
          first,
        );
        const again = await journal.record({
          intentId: "inv-1",
          idempotencyKey: "key-b",
          bodyFingerprint: "f2",
        });
        expect(
          again.idempotencyKey === "key-a" && again.bodyFingerprint === "f1",
          "a second record returns the first key and fingerprint",
          again,
        );
      },
    ],
    [
      "concurrent records agree",
      async (journal) => {
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
        expect(
          keys.size === 1,
          "of concurrent records of one intent, every caller gets the same key",
          [...keys],
        );
      },
    ],
    [
      "state machine",
      async (journal) => {
        await journal.record({ intentId: "i", idempotencyKey: "k", bodyFingerprint: "f" });
        await journal.markSent("i");
        expect(
          (await journal.get("i"))?.state === "sent",
          "markSent moves recorded -> sent",
          await journal.get("i"),
        );
        await journal.markAcknowledged("i", "run_1");
        const acked = await journal.get("i");
        expect(
          acked?.state === "acknowledged" && acked.runId === "run_1",
          "markAcknowledged keeps the run",
          acked,
        );
        await journal.markAcknowledged("i", "run_1");
        await rejectsWithInvariantError(
          journal.markAcknowledged("i", "run_2"),
          "acknowledging with a second run throws LaunchJournalInvariantError",
        );
        await journal.markSent("i");
        await journal.markFailed("i", "late");
        const still = await journal.get("i");
        expect(
          still?.state === "acknowledged" && still.runId === "run_1" && still.failure === null,
          "an acknowledged intent never goes back to sent or failed",
          still,
        );
      },
    ],
    [
      "failures",
      async (journal) => {
        await journal.record({ intentId: "i", idempotencyKey: "k", bodyFingerprint: "f" });
        await journal.markFailed("i", "422 INVALID_INPUTS");
        const failed = await journal.get("i");
        expect(
          failed?.state === "failed" && failed.failure === "422 INVALID_INPUTS",
          "markFailed keeps the reason",
          failed,
        );
        await journal.markSent("i");
        const resent = await journal.get("i");
        expect(
          resent?.state === "sent" && resent.failure === null,
          "a resend clears the failure",
          resent,
        );
      },
    ],
    [
      "listing",
      async (journal) => {
        for (const id of ["a", "b", "c", "d", "e"]) {
          await journal.record({ intentId: id, idempotencyKey: `k-${id}`, bodyFingerprint: "f" });
          await sleep(5); // distinct update times, so "oldest first" has one right answer
        }
        await journal.markSent("b");
        await journal.markAcknowledged("c", "run_c");
        await journal.markFailed("d", "400");
        const open = (await journal.listUnacknowledged()).map((i) => i.intentId);
        expect(
          JSON.stringify(open) === JSON.stringify(["a", "e", "b"]),
          "listUnacknowledged lists recorded and sent intents, least recently touched first",
          open,
        );
        const limited = (await journal.listUnacknowledged({ limit: 2 })).map((i) => i.intentId);
        expect(
          JSON.stringify(limited) === JSON.stringify(["a", "e"]),
          "listUnacknowledged honours limit",
          limited,
        );
        const none = await journal.listUnacknowledged({ olderThanMs: 24 * 60 * 60 * 1000 });
        expect(none.length === 0, "listUnacknowledged honours olderThanMs", none);
      },
    ],
    [
      "unknown intents",
      async (journal) => {
        expect(
          (await journal.get("nope")) === undefined,
          "get of an unknown intent is undefined",
          "defined",
        );
        await rejectsWithInvariantError(
          journal.markSent("nope"),
          "markSent of an unknown intent throws",
        );
        await rejectsWithInvariantError(
          journal.markAcknowledged("nope", "r"),
          "markAcknowledged of an unknown intent throws",
        );
        await rejectsWithInvariantError(
          journal.markFailed("nope", "x"),
          "markFailed of an unknown intent throws",
        );
      },
    ],
    [
      "values round-trip",
      async (journal) => {
        const intentId = `inv'"\\;-- ${"é🧾".repeat(50)}`;
        const idempotencyKey = "🔑".repeat(150);
        await journal.record({ intentId, idempotencyKey, bodyFingerprint: "a".repeat(64) });
        await journal.markFailed(intentId, "line 1\nline 2\ttab");
        const stored = await journal.get(intentId);
        expect(
          stored?.intentId === intentId &&
            stored.idempotencyKey === idempotencyKey &&
            stored.failure === "line 1\nline 2\ttab",
          "ids, keys and failures are kept byte for byte",
          stored,
        );
      },
    ],
  ];
  for (const [name, rule] of rules) {
    const underTest = await open();
    try {
      await rule(underTest.journal);
    } catch (error) {
      if (error instanceof JournalConformanceError) error.message = `${name}: ${error.message}`;
      throw error;
    } finally {
      await underTest.close?.();
    }
  }
}
