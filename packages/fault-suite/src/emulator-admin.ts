// The emulator's admin API (`/_emulator/...`, packages/emulator/README.md "Admin API"): the
// suite's one source of truth for what happened on the service's side. Runs are counted and
// deliveries read here, never through the code under test.
import {
  completedByRun,
  type EventDelivery,
  type LoggedAttempt,
  settlementStep,
} from "./deliveries.js";

/** The fields of a run of the admin API's run history that the suite reads. */
export interface AdminRun {
  readonly run_id: string;
  readonly status: string;
  readonly metadata: Record<string, unknown>;
  readonly idempotency_key: string | null;
}

async function admin<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, {
    ...init,
    headers: { "content-type": "application/json", ...init?.headers },
  });
  if (!response.ok) throw new Error(`${init?.method ?? "GET"} ${url}: ${response.status}`);
  return (await response.json()) as T;
}

export async function createApiKey(emulatorUrl: string, environment: string): Promise<string> {
  const body = { environment, scopes: ["workflows:run", "runs:read"] };
  const created = await admin<{ token: string }>(`${emulatorUrl}/_emulator/keys`, {
    method: "POST",
    body: JSON.stringify(body),
  });
  return created.token;
}

export async function listRuns(emulatorUrl: string, environment: string): Promise<AdminRun[]> {
  const url = `${emulatorUrl}/_emulator/environments/${environment}/runs`;
  return (await admin<{ runs: AdminRun[] }>(url)).runs;
}

export async function listDeliveries(
  emulatorUrl: string,
  environment: string,
): Promise<LoggedAttempt[]> {
  const url = `${emulatorUrl}/_emulator/environments/${environment}/callbacks`;
  return (await admin<{ deliveries: LoggedAttempt[] }>(url)).deliveries;
}

export interface Settled {
  /** Each run's completed event, as the delivery log has it at the end. */
  readonly deliveries: ReadonlyMap<string, EventDelivery>;
  /** Events sent again after the service's three attempts failed (the polling fallback's work). */
  readonly redelivered: number;
  /** Runs whose completed event was still not delivered at the deadline. */
  readonly unsettled: number;
}

/**
 * Waits until every run's completed callback was answered 2xx (or refused), sending abandoned
 * events again every `pollMs`, as a receiver's polling fallback would pick them up. Gives up at
 * `deadlineMs` (generous: a loaded machine is slow, and what is left is reported, not hidden).
 */
export async function settleCallbacks(options: {
  readonly emulatorUrl: string;
  readonly environment: string;
  readonly runIds: readonly string[];
  readonly pollMs: number;
  readonly deadlineMs: number;
  /** Checked on every poll: a reason to stop waiting now (a receiver that died by itself). */
  readonly problem?: () => string | undefined;
}): Promise<Settled> {
  const { emulatorUrl, environment } = options;
  const expected = new Map<string, number>();
  const deadline = Date.now() + options.deadlineMs;
  let redelivered = 0;
  for (;;) {
    const problem = options.problem?.();
    if (problem) throw new Error(problem);
    const deliveries = completedByRun(await listDeliveries(emulatorUrl, environment));
    const step = settlementStep(options.runIds, deliveries, expected);
    if (step.done || Date.now() > deadline) {
      const unsettled = step.waiting + step.resend.length;
      return { deliveries, redelivered, unsettled };
    }
    const attempts = new Map([...deliveries.values()].map((e) => [e.eventId, e.attempts]));
    for (const eventId of step.resend) {
      expected.set(eventId, (attempts.get(eventId) ?? 0) + 3);
      redelivered += 1;
      await admin(
        `${emulatorUrl}/_emulator/environments/${environment}/callbacks/${eventId}/resend`,
        {
          method: "POST",
          body: "{}",
        },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs));
  }
}
