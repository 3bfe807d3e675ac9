// A burst of runs whose completed callbacks go to the receivers under test, with faults applied
// while it lasts: launches paced at a steady rate straight to the emulator (the faults here are
// on the receivers' side), each fault started once a given share of the burst was launched, one
// after another. Then every run's callback is waited for (emulator-admin.ts `settleCallbacks`).
import { createClient } from "@wfr/runtime";
import { type Settled, settleCallbacks } from "./emulator-admin.js";

export interface TimedFault {
  /** Started once this share (0..1) of the burst's runs was launched. */
  readonly at: number;
  readonly apply: () => Promise<void>;
}

export interface BurstOptions {
  readonly emulatorUrl: string;
  readonly environment: string;
  readonly apiKey: string;
  readonly workflowId: string;
  readonly prefix: string;
  readonly runs: number;
  readonly ratePerSecond: number;
  readonly callbackUrl: string;
  readonly faults: readonly TimedFault[];
  /** Why the burst cannot end well (a receiver died by itself), or undefined. */
  readonly problem?: () => string | undefined;
}

export interface Burst {
  readonly runIds: readonly string[];
  readonly settled: Settled;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `count` shares spread evenly inside a burst: 1 -> [0.5], 3 -> [0.25, 0.5, 0.75]. */
export function spread(count: number): number[] {
  return Array.from({ length: count }, (_, i) => (i + 1) / (count + 1));
}

export async function callbackBurst(options: BurstOptions): Promise<Burst> {
  const client = createClient({
    baseUrl: `${options.emulatorUrl}/${options.environment}/api/v1`,
    apiKey: options.apiKey,
  });
  const runIds: string[] = [];
  let launched = 0;
  const started = Date.now();
  const launches = Array.from({ length: options.runs }, async (_, i) => {
    await sleep(started + (i * 1000) / options.ratePerSecond - Date.now());
    const businessId = `${options.prefix}${i}`;
    const run = await client.launch(options.workflowId, {
      inputs: { ticket_url: `https://help.example.com/t/${businessId}`, tone: "formal" },
      metadata: { business_id: businessId },
      callbackUrl: options.callbackUrl,
      idempotencyKey: businessId,
    });
    runIds.push(run.run_id);
    launched += 1;
  });
  const faults = (async () => {
    for (const fault of options.faults) {
      while (launched < fault.at * options.runs) await sleep(10);
      await fault.apply();
    }
  })();
  await Promise.all([...launches, faults]);
  const settled = await settleCallbacks({
    emulatorUrl: options.emulatorUrl,
    environment: options.environment,
    runIds,
    pollMs: 1_000,
    deadlineMs: 180_000,
    ...(options.problem ? { problem: options.problem } : {}),
  });
  return { runIds, settled };
}
