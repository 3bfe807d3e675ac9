// The callback rows: a burst of runs (callback-burst.ts) delivered to receiver processes, with
// PostgreSQL restarted (fast shutdown), a receiver killed with SIGKILL, or Redis restarted while
// it lasts; then side effects counted per event id against every run's completed event.
import { join } from "node:path";
import type { PostgresServer, RedisServer } from "@wfr/test-servers";
import { type Burst, callbackBurst, spread } from "./callback-burst.js";
import { type Child, kill, startReceiver, stop } from "./child-processes.js";
import type { RoundRobin } from "./round-robin.js";
import { createEffectsTable, fileEffects, tableEffects } from "./side-effects.js";
import { type FaultRow, sideEffectTally } from "./tally.js";

/** What every burst shares: the emulator, its key and workflow, a scratch directory. */
export interface Stage {
  readonly emulatorUrl: string;
  readonly environment: string;
  readonly apiKey: string;
  readonly workflowId: string;
  readonly dir: string;
  readonly log: (line: string) => void;
  /**
   * The balancer the emulator forwards every callback to (its `forwardCallbacks`: the runtime
   * accepts only a public https callback_url, docs/service-rules.md#launch-body); each burst
   * puts its own receivers behind it.
   */
  readonly balancer: RoundRobin;
}

export interface BurstSize {
  readonly runs: number;
  /** Restarts or kills in the burst. */
  readonly faults: number;
  readonly ratePerSecond: number;
}

/**
 * Leases short enough that an event a killed receiver held is taken over within the suite's
 * wait (docs/service-rules.md#callbacks: the next delivery after the lease claims it), long
 * enough for a handler on a loaded machine.
 */
const LEASE_MS = 4_000;

/** How long Redis stays down at each restart. */
const REDIS_DOWN_MS = 1_000;

interface ReceiverGroup {
  readonly receivers: (Child & { port: number })[];
  /** The callback_url of the burst's launches. */
  readonly callbackUrl: string;
  readonly effectsFiles: string[];
  /** SIGKILL receiver `index`, then start it again on the same port (a supervisor's restart). */
  killAndRestart(index: number): Promise<void>;
  /** A receiver that exited without being killed or stopped: a crash under test. */
  problem(): string | undefined;
  stop(): Promise<void>;
}

async function receiverGroup(
  stage: Stage,
  store: { kind: "postgres" | "redis"; url: string; namespace: string },
  count: number,
): Promise<ReceiverGroup> {
  const effectsFiles: string[] = [];
  const envFor = (index: number, port: number) => {
    const effects = join(stage.dir, `${store.namespace.replace(/\W/g, "_")}-${index}.effects`);
    if (!effectsFiles.includes(effects)) effectsFiles.push(effects);
    return {
      WFR_RECEIVER_STORE: store.kind,
      WFR_STORE_URL: store.url,
      WFR_STORE_NAMESPACE: store.namespace,
      WFR_BASE_URL: `${stage.emulatorUrl}/${stage.environment}/api/v1`,
      WFR_API_KEY: stage.apiKey,
      WFR_LEASE_MS: String(LEASE_MS),
      WFR_RECEIVER_NAME: `receiver-${index}`,
      WFR_EFFECTS_FILE: effects,
      WFR_PORT: String(port),
    };
  };
  // One at a time: two receivers applying the stores' migrations at once wait on their lock.
  const receivers: (Child & { port: number })[] = [];
  let crashed: string | undefined;
  let ending = false;
  const start = async (index: number, port: number) => {
    const receiver = await startReceiver(envFor(index, port));
    void receiver.exited.then((code) => {
      if (!ending && receiver.process.signalCode !== "SIGKILL")
        crashed ??= `receiver-${index} (${store.kind}) exited by itself with code ${code}`;
    });
    return receiver;
  };
  for (let i = 0; i < count; i++) receivers.push(await start(i, 0));
  const { balancer } = stage;
  balancer.backends.splice(0, balancer.backends.length, ...receivers.map((r) => r.port));
  return {
    receivers,
    // Public as the runtime requires; the emulator forwards it to the balancer.
    callbackUrl: `https://callbacks.example.com/${store.namespace.replace(/\W/g, "-")}`,
    effectsFiles,
    async killAndRestart(index) {
      const victim = receivers[index];
      if (!victim) return;
      await kill(victim);
      receivers[index] = await start(index, victim.port);
    },
    problem: () => crashed,
    async stop() {
      ending = true;
      balancer.backends.splice(0, balancer.backends.length);
      await Promise.all(receivers.map((receiver) => stop(receiver)));
    },
  };
}

/** The row of a burst: every run's completed event against the side effects counted. */
function burstRow(
  fault: string,
  setup: string,
  burst: Burst,
  effects: ReadonlyMap<string, number>,
  applied: string,
): FaultRow {
  const delivered = burst.runIds.flatMap((runId) => {
    const event = burst.settled.deliveries.get(runId);
    return event ? [event] : [];
  });
  const events = delivered.map((event) => event.eventId);
  const tally = sideEffectTally(events, effects);
  const attempts = delivered.reduce((sum, event) => sum + event.attempts, 0);
  return {
    fault,
    setup,
    operations: burst.runIds.length,
    lost: tally.lost + (burst.runIds.length - events.length),
    duplicated: tally.duplicated,
    note: `${applied}; ${attempts - events.length} delivery attempts failed; ${burst.settled.redelivered} events sent again after the service's 3 attempts`,
  };
}

const burstOf = (stage: Stage, prefix: string, size: BurstSize, callbackUrl: string) => ({
  emulatorUrl: stage.emulatorUrl,
  environment: stage.environment,
  apiKey: stage.apiKey,
  workflowId: stage.workflowId,
  prefix,
  runs: size.runs,
  ratePerSecond: size.ratePerSecond,
  callbackUrl,
});

/** Two transactional PostgreSQL receivers behind the balancer; the server restarted (fast). */
export async function postgresRestartBurst(
  stage: Stage,
  server: PostgresServer,
  size: BurstSize,
): Promise<FaultRow> {
  const schema = "fault_pg_restart";
  await createEffectsTable(server.url, schema);
  const group = await receiverGroup(
    stage,
    { kind: "postgres", url: server.url, namespace: schema },
    2,
  );
  try {
    let restarts = 0;
    const burst = await callbackBurst({
      ...burstOf(stage, "pg-restart-", size, group.callbackUrl),
      problem: group.problem,
      faults: spread(size.faults).map((at) => ({
        at,
        apply: async () => {
          const began = Date.now();
          await server.restart("fast");
          restarts += 1;
          stage.log(`PostgreSQL restarted (fast) in ${Date.now() - began} ms`);
        },
      })),
    });
    return burstRow(
      `PostgreSQL restarted (fast) ×${restarts} mid-burst`,
      "PostgreSQL, transactional completion, 2 receivers round-robin",
      burst,
      await tableEffects(server.url, schema),
      `${restarts} restarts`,
    );
  } finally {
    await group.stop();
  }
}

/** Two transactional PostgreSQL receivers; one killed with SIGKILL mid-burst and started again. */
export async function receiverKillBurst(
  stage: Stage,
  server: PostgresServer,
  size: BurstSize,
): Promise<FaultRow> {
  const schema = "fault_receiver_kill";
  await createEffectsTable(server.url, schema);
  const group = await receiverGroup(
    stage,
    { kind: "postgres", url: server.url, namespace: schema },
    2,
  );
  try {
    let kills = 0;
    const burst = await callbackBurst({
      ...burstOf(stage, "receiver-kill-", size, group.callbackUrl),
      problem: group.problem,
      faults: spread(size.faults).map((at, i) => ({
        at,
        apply: async () => {
          await group.killAndRestart(i % 2);
          kills += 1;
          stage.log(`receiver ${i % 2} killed with SIGKILL and started again`);
        },
      })),
    });
    return burstRow(
      `receiver killed with SIGKILL ×${kills} mid-burst`,
      "PostgreSQL, transactional completion, 2 receivers round-robin",
      burst,
      await tableEffects(server.url, schema),
      `${kills} kills`,
    );
  } finally {
    await group.stop();
  }
}

/** Two Redis receivers (no transactional completion: an appended line); Redis restarted. */
export async function redisRestartBurst(
  stage: Stage,
  server: RedisServer,
  size: BurstSize,
): Promise<FaultRow> {
  const group = await receiverGroup(
    stage,
    { kind: "redis", url: server.url, namespace: "fault-redis:" },
    2,
  );
  try {
    let restarts = 0;
    const burst = await callbackBurst({
      ...burstOf(stage, "redis-restart-", size, group.callbackUrl),
      problem: group.problem,
      faults: spread(size.faults).map((at) => ({
        at,
        apply: async () => {
          const began = Date.now();
          // Down for a while, not only as long as a restart takes (about 0.1 s, which the
          // client's offline queue hides): claims and completions meet a server that is gone.
          await server.kill();
          await new Promise((resolve) => setTimeout(resolve, REDIS_DOWN_MS));
          await server.restart();
          restarts += 1;
          stage.log(`Redis killed and started again after ${Date.now() - began} ms`);
        },
      })),
    });
    await group.stop();
    return burstRow(
      `Redis killed and restarted ×${restarts} mid-burst (down 1 s)`,
      "Redis (AOF, fsync always), non-transactional completion retried, 2 receivers round-robin",
      burst,
      fileEffects(group.effectsFiles),
      `${restarts} restarts`,
    );
  } finally {
    await group.stop();
  }
}
