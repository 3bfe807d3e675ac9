// Callback delivery faults armed from the admin API (so that a receiver's handling of them can be tested): deliver a run's next
// callback twice or late, or make the next N attempts to its callback fail as a 5xx receiver
// would, so a client's duplicate handling, ordering and the retry schedule (docs/service-rules.md#callbacks:
// retried on network errors, 429 and 5xx) can be exercised. Plans are plain data, journalled.

/** Late deliveries are bounded so a forgotten fault cannot hold a callback for long. */
export const MAX_LATE_MS = 60_000;
export const MAX_FAILED_ATTEMPTS = 10;

export interface DeliveryFaultPlan {
  /** How many of the run's next callbacks are delivered twice (same event_id, same body). */
  twice: number;
  /** Delays (ms) for the run's next callbacks, first one first. */
  late: number[];
  /** The next `attempts` delivery attempts answer `status` without reaching the receiver. */
  fail: { attempts: number; status: number } | null;
}

export type DeliveryFaultKind = "callback-twice" | "callback-late" | "callback-fail";

export class DeliveryFaultError extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

const intIn = (v: unknown, min: number, max: number, field: string, dflt?: number): number => {
  const n = v === undefined ? dflt : v;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max)
    throw new DeliveryFaultError(`${field} must be an integer from ${min} to ${max}`, field);
  return n;
};

export function isDeliveryFaultKind(kind: string): kind is DeliveryFaultKind {
  return kind === "callback-twice" || kind === "callback-late" || kind === "callback-fail";
}

/** What one admin call adds to a plan; errors name the field. */
export function parseDeliveryFault(
  kind: DeliveryFaultKind,
  body: Record<string, unknown>,
): Partial<DeliveryFaultPlan> {
  switch (kind) {
    case "callback-twice":
      return { twice: 1 };
    case "callback-late":
      return { late: [intIn(body.delay_ms, 0, MAX_LATE_MS, "delay_ms")] };
    case "callback-fail":
      return {
        fail: {
          attempts: intIn(body.attempts, 1, MAX_FAILED_ATTEMPTS, "attempts", 1),
          status: intIn(body.status, 500, 599, "status", 503),
        },
      };
  }
}

export class DeliveryFaults {
  private readonly plans = new Map<string, DeliveryFaultPlan>();

  /**
   * The run's plan with `add` added, not stored: the caller commits it (state-changes.ts), so
   * the armed plan is journalled before it takes effect.
   */
  armed(runId: string, add: Partial<DeliveryFaultPlan>): DeliveryFaultPlan {
    const plan = structuredClone(this.plans.get(runId) ?? { twice: 0, late: [], fail: null });
    plan.twice += add.twice ?? 0;
    plan.late.push(...(add.late ?? []));
    if (add.fail) plan.fail = { ...add.fail };
    return plan;
  }

  restore(runId: string, plan: DeliveryFaultPlan | null): void {
    if (plan) this.plans.set(runId, plan);
    else this.plans.delete(runId);
  }

  plan(runId: string): DeliveryFaultPlan | null {
    return this.plans.get(runId) ?? null;
  }

  all(): [string, DeliveryFaultPlan][] {
    return [...this.plans];
  }

  forgetRuns(runIds: Set<string>): void {
    for (const id of runIds) this.plans.delete(id);
  }

  /**
   * For a new callback of the run: deliver it twice? after what delay? With the plan left after
   * it (null: nothing left), which the caller commits before using the fault, so a fault is never
   * used without the journal knowing. Nothing changes here.
   */
  forCallback(runId: string): FaultUse<{ twice: boolean; delayMs: number }> | null {
    const plan = this.plans.get(runId);
    if (!plan || (plan.twice === 0 && plan.late.length === 0)) return null;
    const left = structuredClone(plan);
    const twice = left.twice > 0;
    if (twice) left.twice -= 1;
    const delayMs = left.late.shift() ?? 0;
    return { fault: { twice, delayMs }, left: tidy(left) };
  }

  /**
   * For one delivery attempt of the run's callback: the injected status, with the plan left
   * after it (committed by the caller, as above); null to really send.
   */
  forAttempt(runId: string): FaultUse<number> | null {
    const plan = this.plans.get(runId);
    if (!plan?.fail || plan.fail.attempts <= 0) return null;
    const left = structuredClone(plan);
    const fail = left.fail as NonNullable<DeliveryFaultPlan["fail"]>;
    fail.attempts -= 1;
    if (fail.attempts === 0) left.fail = null;
    return { fault: fail.status, left: tidy(left) };
  }
}

/** A fault taken from a plan, and what the plan holds after it (null: nothing). */
export interface FaultUse<F> {
  fault: F;
  left: DeliveryFaultPlan | null;
}

function tidy(plan: DeliveryFaultPlan): DeliveryFaultPlan | null {
  return plan.twice === 0 && plan.late.length === 0 && plan.fail === null ? null : plan;
}
