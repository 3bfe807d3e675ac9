// Drives N receiver processes with the same events, duplicated and shuffled,
// the way a service retrying deliveries would: an answer "retry-later" (the
// event is processing elsewhere) or no answer from a killed worker is
// delivered again later, to another worker.
import { type ChildProcess, fork } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export interface ClaimRaceOptions {
  /** A module exporting `openStores()` for the store under test; env is passed through. */
  readonly storeModule: string;
  readonly env?: Record<string, string>;
  readonly workers: number;
  readonly events: number;
  /** Each event is delivered this many times. */
  readonly copies: number;
  readonly leaseMs: number;
  /** Kill -9 one worker after it has claimed this many events and holds the last lease. 0: nobody dies. */
  readonly killVictimAfterClaims?: number;
}

export interface ClaimRaceReport {
  /** event id -> how many times its side effect happened. */
  readonly effects: Map<string, number>;
  readonly deliveries: number;
  readonly redeliveries: number;
  readonly killedWorker: boolean;
  readonly errors: string[];
}

const WORKER = fileURLToPath(new URL("./claim-worker.js", import.meta.url));

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

export async function runClaimRace(options: ClaimRaceOptions): Promise<ClaimRaceReport> {
  const dir = mkdtempSync(join(tmpdir(), "wfr-claim-race-"));
  const workers: { child: ChildProcess; effects: string; alive: boolean }[] = [];
  const pending = new Map<number, { eventId: string; worker: number }>();
  const queue = shuffle(
    Array.from({ length: options.events * options.copies }, (_, i) => `evt_${i % options.events}`),
  );
  const errors: string[] = [];
  let seq = 0;
  let deliveries = 0;
  let redeliveries = 0;
  let killedWorker = false;
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: options.workers }, async (_, index) => {
        const effects = join(dir, `effects-${index}.txt`);
        writeFileSync(effects, "");
        const victim = index === 0 && (options.killVictimAfterClaims ?? 0) > 0;
        const child = fork(WORKER, [], {
          env: {
            ...process.env,
            ...options.env,
            WFR_STORE_MODULE: options.storeModule,
            WFR_EFFECTS_FILE: effects,
            WFR_LEASE_MS: String(options.leaseMs),
            WFR_VICTIM_AFTER: victim ? String(options.killVictimAfterClaims) : "0",
          },
          stdio: ["ignore", "inherit", "inherit", "ipc"],
        });
        workers.push({ child, effects, alive: true });
        await new Promise<void>((resolve, reject) => {
          child.once("exit", (code) => reject(new Error(`worker ${index} exited early (${code})`)));
          child.on("message", (message: { type: string }) => {
            if (message.type === "ready") resolve();
          });
        });
      }),
    );
    await new Promise<void>((resolve) => {
      let scheduled = 0; // retries waiting for their timer
      const finishIfDone = () => {
        if (queue.length === 0 && pending.size === 0 && scheduled === 0) resolve();
      };
      const deliver = (eventId: string) => {
        const alive = workers.map((w, i) => ({ w, i })).filter(({ w }) => w.alive);
        next += 1;
        const pick = alive[next % alive.length];
        if (!pick) return;
        seq += 1;
        deliveries += 1;
        pending.set(seq, { eventId, worker: pick.i });
        pick.w.child.send({ type: "deliver", eventId, seq });
      };
      const retryLater = (eventId: string) => {
        redeliveries += 1;
        scheduled += 1;
        // The service's retry comes later; a short pause keeps the loop from spinning.
        setTimeout(
          () => {
            scheduled -= 1;
            deliver(eventId);
          },
          20 + Math.random() * 30,
        );
      };
      workers.forEach((worker, index) => {
        worker.child.on(
          "message",
          (message: { type: string; seq: number; answer: string; message?: string }) => {
            if (message.type === "frozen") {
              // It holds a lease it will never finish: kill -9 it, and redeliver
              // what it was sent, as the service retries after a timeout.
              killedWorker = true;
              worker.alive = false;
              worker.child.kill("SIGKILL");
              for (const [s, p] of [...pending]) {
                if (p.worker !== index) continue;
                pending.delete(s);
                retryLater(p.eventId);
              }
              return;
            }
            if (message.type !== "answer") return;
            const sent = pending.get(message.seq);
            pending.delete(message.seq);
            if (!sent) return;
            if (message.answer === "retry-later") retryLater(sent.eventId);
            else if (message.answer === "error") errors.push(message.message ?? "error");
            pump();
            finishIfDone();
          },
        );
      });
      // Several deliveries in flight per worker, as concurrent deliveries arrive.
      const pump = () => {
        while (queue.length > 0 && pending.size < options.workers * 8)
          deliver(queue.pop() as string);
      };
      pump();
    });
    const effects = new Map<string, number>();
    for (const worker of workers) {
      for (const line of readFileSync(worker.effects, "utf8").split("\n")) {
        if (line) effects.set(line, (effects.get(line) ?? 0) + 1);
      }
    }
    return { effects, deliveries, redeliveries, killedWorker, errors };
  } finally {
    for (const worker of workers) {
      if (worker.alive && worker.child.exitCode === null) {
        const exited = new Promise((resolve) => worker.child.once("exit", resolve));
        worker.child.send({ type: "stop" });
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
        if (worker.child.exitCode === null) worker.child.kill("SIGKILL");
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The standard race of the multi-process tests: 4 workers, 200 events, 3
 * deliveries each, and a lease long enough that a slow worker on a loaded
 * machine keeps it while it works (a lease that runs out mid-work lets a
 * second owner repeat the side effect; see the store READMEs).
 */
export const STANDARD_RACE = { workers: 4, events: 200, copies: 3, leaseMs: 8_000 } as const;

/** What broke exactly-once in a report: empty when every event's side effect happened once. */
export function exactlyOnceProblems(report: ClaimRaceReport, events: number): string[] {
  const problems = [...report.errors];
  if (report.effects.size !== events)
    problems.push(`${report.effects.size} of ${events} events had a side effect`);
  for (const [eventId, count] of report.effects)
    if (count !== 1) problems.push(`${eventId}: ${count} side effects`);
  return problems;
}
