// The conformance check every CallbackEventStore runs (memory here; Redis
// and PostgreSQL in their own packages). It uses fresh random ids, so it can
// run against a shared, already used store, and real time for lease expiry.
import type { CallbackEventStore, ClaimResult } from "@wfr/runtime";

export interface ConformanceOptions {
  /** Lease used where expiry is tested; the check sleeps a little longer. Default 200 ms. */
  readonly leaseMs?: number;
  /** Parallel claims of one id in the atomicity check. Default 25. */
  readonly concurrentClaims?: number;
}

class StoreConformanceError extends Error {
  override name = "StoreConformanceError";
}

function expect(condition: boolean, rule: string, seen: unknown): void {
  if (!condition) throw new StoreConformanceError(`${rule} (got ${JSON.stringify(seen)})`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs every rule of the CallbackEventStore contract against `createStore()`
 * and throws a StoreConformanceError naming the first rule broken. Call it
 * from any test runner: `await verifyCallbackEventStore(() => myStore)`.
 */
export async function verifyCallbackEventStore(
  createStore: () => CallbackEventStore | Promise<CallbackEventStore>,
  options: ConformanceOptions = {},
): Promise<void> {
  const leaseMs = options.leaseMs ?? 200;
  const store = await createStore();
  const prefix = `conformance-${crypto.randomUUID()}`;
  const long = 60_000;

  const a = await store.claim(`${prefix}-a`, long);
  expect(a.outcome === "claimed", "a new id is claimed", a);
  const again = await store.claim(`${prefix}-a`, long);
  expect(
    again.outcome === "processing",
    "a claimed id reads processing to a second claimer",
    again,
  );
  const tokenA = (a as Extract<ClaimResult, { outcome: "claimed" }>).token;
  expect(
    !(await store.complete(`${prefix}-a`, tokenA + 1)),
    "complete with a wrong token is refused",
    "true",
  );
  expect(
    !(await store.release(`${prefix}-a`, tokenA + 1)),
    "release with a wrong token is refused",
    "true",
  );
  expect(
    await store.complete(`${prefix}-a`, tokenA),
    "complete with the lease's token succeeds",
    "false",
  );
  const done = await store.claim(`${prefix}-a`, long);
  expect(done.outcome === "done", "a completed id reads done", done);
  expect(
    !(await store.release(`${prefix}-a`, tokenA)),
    "a completed id cannot be released",
    "true",
  );

  const b = await store.claim(`${prefix}-b`, long);
  const tokenB = (b as Extract<ClaimResult, { outcome: "claimed" }>).token;
  expect(
    await store.release(`${prefix}-b`, tokenB),
    "release with the lease's token succeeds",
    "false",
  );
  const b2 = await store.claim(`${prefix}-b`, long);
  expect(b2.outcome === "claimed", "a released id can be claimed again", b2);
  expect(
    b2.outcome === "claimed" && b2.token > tokenB,
    "a new claim gets a higher fencing token",
    b2,
  );

  const c = await store.claim(`${prefix}-c`, leaseMs);
  const tokenC = (c as Extract<ClaimResult, { outcome: "claimed" }>).token;
  await sleep(leaseMs + 50);
  const c2 = await store.claim(`${prefix}-c`, long);
  expect(c2.outcome === "claimed", "an expired lease can be claimed again", c2);
  expect(
    !(await store.complete(`${prefix}-c`, tokenC)),
    "the holder of an expired lease cannot complete (fencing)",
    "true",
  );
  const tokenC2 = (c2 as Extract<ClaimResult, { outcome: "claimed" }>).token;
  expect(await store.complete(`${prefix}-c`, tokenC2), "the new holder completes", "false");

  if (store.extend) await verifyExtend(store, store.extend.bind(store), prefix, leaseMs);

  const racers = options.concurrentClaims ?? 25;
  const results = await Promise.all(
    Array.from({ length: racers }, () => store.claim(`${prefix}-d`, long)),
  );
  const winners = results.filter((result) => result.outcome === "claimed").length;
  expect(winners === 1, "exactly one of concurrent claims wins", winners);
}

/** The lease extension's rules (`extend` is optional in the contract; checked where a store has it). */
async function verifyExtend(
  store: CallbackEventStore,
  extend: NonNullable<CallbackEventStore["extend"]>,
  prefix: string,
  leaseMs: number,
): Promise<void> {
  const long = 60_000;
  const e = await store.claim(`${prefix}-e`, leaseMs);
  const tokenE = (e as Extract<ClaimResult, { outcome: "claimed" }>).token;
  expect(
    !(await extend(`${prefix}-e`, tokenE + 1, long)),
    "extend with a wrong token is refused",
    "true",
  );
  expect(
    await extend(`${prefix}-e`, tokenE, long),
    "extend with the lease's token succeeds",
    "false",
  );
  await sleep(leaseMs + 50);
  const during = await store.claim(`${prefix}-e`, long);
  expect(
    during.outcome === "processing",
    "an extended lease outlives the lease it was claimed with",
    during,
  );
  expect(
    await store.complete(`${prefix}-e`, tokenE),
    "the holder completes within its extended lease",
    "false",
  );
  expect(!(await extend(`${prefix}-e`, tokenE, long)), "a completed id cannot be extended", "true");

  const f = await store.claim(`${prefix}-f`, leaseMs);
  const tokenF = (f as Extract<ClaimResult, { outcome: "claimed" }>).token;
  await sleep(leaseMs + 50);
  expect(
    !(await extend(`${prefix}-f`, tokenF, long)),
    "an expired lease cannot be extended (a redelivery may claim it)",
    "true",
  );
  const f2 = await store.claim(`${prefix}-f`, long);
  expect(f2.outcome === "claimed", "an id whose extension was refused can be claimed", f2);
  expect(
    !(await extend(`${prefix}-f`, tokenF, long)),
    "the holder of a lease taken over cannot extend it (fencing)",
    "true",
  );
}
