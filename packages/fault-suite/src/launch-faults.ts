// Launches through the fault proxy: the runtime launches one run per business id, the id as its
// idempotency key (docs/service-rules.md#idempotent-launch), and every connection meets the
// schedule's fault or none. Then the emulator's record is read: an accepted launch must have
// exactly its one run; a launch the runtime reports failed may have made 0 or 1 runs (the table
// says how many of each), and launched again with the same key it must end at exactly one.
import { createClient } from "@wfr/runtime";
import { listRuns } from "./emulator-admin.js";
import { startFaultProxy } from "./fault-proxy.js";
import { planFor } from "./fault-schedule.js";
import { type FaultRow, type LaunchOutcome, launchRows, runsByBusinessId } from "./tally.js";

export interface LaunchFaultsOptions {
  readonly emulatorUrl: string;
  readonly emulatorPort: number;
  readonly environment: string;
  readonly apiKey: string;
  readonly workflowId: string;
  readonly seed: number;
  readonly launches: number;
  readonly faultRate: number;
  readonly concurrency: number;
  /** The client's per-attempt timeout: a stalled answer must outlast it. */
  readonly timeoutMs: number;
  readonly prefix: string;
}

const launchBody = (businessId: string) => ({
  inputs: { ticket_url: `https://help.example.com/t/${businessId}`, tone: "formal" },
  metadata: { business_id: businessId },
  idempotencyKey: businessId,
});

export async function launchThroughFaults(options: LaunchFaultsOptions): Promise<FaultRow[]> {
  const proxy = await startFaultProxy({
    upstreamPort: options.emulatorPort,
    plan: (index) => planFor(options.seed, index, options.faultRate),
    stallMs: options.timeoutMs * 4,
  });
  try {
    const api = (port: number) => `http://127.0.0.1:${port}/${options.environment}/api/v1`;
    const client = createClient({
      baseUrl: api(proxy.port),
      apiKey: options.apiKey,
      timeoutMs: options.timeoutMs,
      // Fewer and quicker retries than the defaults, so that some launches fail after all of
      // them and the table's "failed, launched again" row has cases.
      retry: { maxAttempts: 3, initialDelayMs: 20, maxDelayMs: 200, totalTimeoutMs: 60_000 },
    });
    const ids = Array.from({ length: options.launches }, (_, i) => `${options.prefix}${i}`);
    const outcomes: LaunchOutcome[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        for (let id = ids[next++]; id !== undefined; id = ids[next++]) {
          const launched = await client
            .launch(options.workflowId, launchBody(id))
            .then((run) => run.run_id)
            .catch(() => undefined);
          outcomes.push(
            launched === undefined ? { businessId: id } : { businessId: id, runId: launched },
          );
        }
      }),
    );
    // A copy of a request still on its way to the emulator would be a run counted too late.
    await proxy.idle();
    const before = runsByBusinessId(
      await listRuns(options.emulatorUrl, options.environment),
      options.prefix,
    );
    const direct = createClient({ baseUrl: api(options.emulatorPort), apiKey: options.apiKey });
    for (const outcome of outcomes)
      if (outcome.runId === undefined)
        await direct
          .launch(options.workflowId, launchBody(outcome.businessId))
          .catch(() => undefined);
    const after = runsByBusinessId(
      await listRuns(options.emulatorUrl, options.environment),
      options.prefix,
    );
    return launchRows(proxy.exchanges, outcomes, before, after);
  } finally {
    await proxy.close();
  }
}
