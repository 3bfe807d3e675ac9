// When are a burst's callbacks all delivered? Read from the emulator's delivery log (every
// attempt, through its admin API): pure functions over that log, so the rule is unit-tested.
// The service tries each event up to three times (docs/service-rules.md#callbacks); an event
// whose attempts all failed is abandoned by it, and the receiver's polling fallback must cover
// it. The suite stands in for that fallback by asking the emulator to send the event again
// (`.../callbacks/{eventId}/resend`, three attempts more), and counts how often it had to.

/** One attempt as the admin API lists it (`GET /_emulator/environments/{env}/callbacks`). */
export interface LoggedAttempt {
  readonly event_id: string;
  readonly type: string;
  readonly run_id: string;
  readonly attempt: number;
  readonly status: number | null;
}

export const COMPLETED = "workflow.run.completed";

/** One event's delivery so far. */
export interface EventDelivery {
  readonly eventId: string;
  readonly runId: string;
  readonly attempts: number;
  /** Some attempt was answered 2xx. */
  readonly delivered: boolean;
  /** Some attempt got an answer the service does not retry (a 4xx other than 429). */
  readonly refused: boolean;
}

const retried = (status: number | null) => status === null || status === 429 || status >= 500;

/** The completed events of the log, by run id (one per run). */
export function completedByRun(log: readonly LoggedAttempt[]): Map<string, EventDelivery> {
  const byEvent = new Map<string, EventDelivery>();
  for (const attempt of log) {
    if (attempt.type !== COMPLETED) continue;
    const seen = byEvent.get(attempt.event_id);
    const status = attempt.status;
    byEvent.set(attempt.event_id, {
      eventId: attempt.event_id,
      runId: attempt.run_id,
      attempts: (seen?.attempts ?? 0) + 1,
      delivered: (seen?.delivered ?? false) || (status !== null && status >= 200 && status < 300),
      refused: (seen?.refused ?? false) || (!retried(status) && (status ?? 0) >= 300),
    });
  }
  const byRun = new Map<string, EventDelivery>();
  for (const event of byEvent.values()) byRun.set(event.runId, event);
  return byRun;
}

export interface SettlementStep {
  /** Runs whose completed event is not yet known, or whose attempts are still going. */
  readonly waiting: number;
  /** Events the service gave up on: to be sent again. */
  readonly resend: readonly string[];
  readonly done: boolean;
}

/**
 * What to do next for `runIds`: wait, send abandoned events again, or stop. `expected` holds
 * how many attempts an event will have made when its current delivery ends (3, then 6 after a
 * resend, ...); an event is abandoned once it made them all without a 2xx.
 */
export function settlementStep(
  runIds: Iterable<string>,
  deliveries: ReadonlyMap<string, EventDelivery>,
  expected: ReadonlyMap<string, number>,
  attemptsPerDelivery = 3,
): SettlementStep {
  let waiting = 0;
  const resend: string[] = [];
  for (const runId of runIds) {
    const event = deliveries.get(runId);
    if (!event) waiting += 1;
    else if (event.delivered || event.refused) continue;
    else if (event.attempts < (expected.get(event.eventId) ?? attemptsPerDelivery)) waiting += 1;
    else resend.push(event.eventId);
  }
  return { waiting, resend, done: waiting === 0 && resend.length === 0 };
}
