// A receiver process for the multi-process exactly-once test: it claims each
// delivered event in the shared store, "does the side effect" (appends the
// event id to its own effects file) and marks the event done. A victim worker
// stops before its side effect, holding the lease, and waits to be killed (once no other
// event of it is between its side effect and `complete`).
//
// Env: WFR_STORE_MODULE (a module exporting openStores(): Promise<{callbackEvents, close}>),
//      WFR_EFFECTS_FILE, WFR_LEASE_MS, WFR_VICTIM_AFTER (claims before it freezes; 0 = never).
import { appendFileSync } from "node:fs";

interface WorkerStores {
  callbackEvents: {
    claim(eventId: string, leaseMs: number): Promise<{ outcome: string; token?: number }>;
    complete(eventId: string, token: number): Promise<boolean>;
  };
  close(): Promise<void>;
}
interface Delivery {
  type: string;
  eventId: string;
  seq: number;
}
const send = (message: object) => process.send?.(message);
const { openStores } = (await import(process.env.WFR_STORE_MODULE as string)) as {
  openStores(): Promise<WorkerStores>;
};
const stores = await openStores();
const leaseMs = Number(process.env.WFR_LEASE_MS);
const victimAfter = Number(process.env.WFR_VICTIM_AFTER ?? "0");
const effectsFile = process.env.WFR_EFFECTS_FILE as string;
let claims = 0;
let frozen = false;
/** Events between their side effect and `complete`. */
let effecting = 0;
let reported = false;
/** Tell the parent to kill this process, once no side effect is half-recorded. */
const reportFrozen = () => {
  if (reported || effecting > 0) return;
  reported = true;
  send({ type: "frozen" });
};

process.on("message", async (message: Delivery) => {
  if (message.type === "stop") {
    await stores.close();
    process.exit(0);
  }
  if (message.type !== "deliver") return;
  const { eventId, seq } = message;
  try {
    const claim = await stores.callbackEvents.claim(eventId, leaseMs);
    if (claim.outcome === "done") return send({ type: "answer", seq, answer: "duplicate" });
    if (claim.outcome === "processing") return send({ type: "answer", seq, answer: "retry-later" });
    claims += 1;
    if (frozen || (victimAfter > 0 && claims >= victimAfter)) {
      // Hold the lease and never answer: the parent kills this process.
      frozen = true;
      reportFrozen();
      return;
    }
    // A little work, so that duplicates really overlap with processing.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 10));
    // Frozen meanwhile: this lease is held too, its side effect never done.
    if (frozen) return;
    // Between the side effect and `complete` a crash would repeat the effect under the next
    // owner (the documented at-least-once window of every lease store), so the victim is
    // killed only while no event is inside it: the test is about leases held, not that window.
    effecting += 1;
    appendFileSync(effectsFile, `${eventId}\n`);
    let done: boolean;
    try {
      done = await stores.callbackEvents.complete(eventId, claim.token as number);
    } finally {
      effecting -= 1;
      if (frozen) reportFrozen();
    }
    send({ type: "answer", seq, answer: done ? "done" : "fenced-out" });
  } catch (error) {
    send({
      type: "answer",
      seq,
      answer: "error",
      message: error instanceof Error ? error.message : String(error),
    });
  }
});
send({ type: "ready" });
