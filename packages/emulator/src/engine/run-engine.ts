// The scenario engine: moves each run through queued -> starting -> running ->
// (waiting_for_human_live) -> terminal, driven by its scenario on the real or virtual clock.

import { CODE, RUN_STATUS } from "@wfr/protocol";
import { newId } from "../model/ids.js";
import { type FailStatus, isTerminal, type RunRecord, type RunStatus } from "../model/types.js";
import {
  type AnswerOutcome,
  checkpointEventData,
  type HumanStep,
  judgeAnswer,
  newCheckpoint,
} from "./checkpoints.js";
import { type Clock, iso } from "./clock.js";
import { canonicalJson } from "./idempotency.js";
import { redactVault } from "./vault.js";

/** How long the runtime takes to acknowledge an accepted human answer. */
const ACK_MS = 100;
const DEFAULT_QUEUE_MS = 50;
const DEFAULT_START_MS = 50;

export type NotifyType = "workflow.run.requires_action" | "workflow.run.completed";

interface EngineHooks {
  persist(run: RunRecord): void;
  notify(run: RunRecord, type: NotifyType): void;
  vault(environment: string): Record<string, string>;
  synthesize(run: RunRecord): Record<string, unknown>;
  /** Outputs given by the scenario, with its `$file` markers made download references. */
  fileOutputs(run: RunRecord, outputs: Record<string, unknown>): Record<string, unknown>;
  /** A finished run no longer in memory, read back from disk (journal/run-archive.ts). */
  archived?(runId: string): RunRecord | undefined;
}

/** What launch hands the engine: the stored fields of a run before it has a status or a step. */
export type NewRun = Pick<
  RunRecord,
  | "environment"
  | "workspace"
  | "workflow_id"
  | "revision"
  | "inputs"
  | "metadata"
  | "model"
  | "callback_url"
  | "idempotency_key"
  | "fingerprint"
  | "attachments"
  | "scenario"
  | "source"
>;

/** A fault injected into a live run from the admin API. */
export type Fault =
  | { kind: "checkpoint"; human: HumanStep }
  | { kind: "expire" }
  | { kind: "fail"; status: FailStatus; error: { code?: string; message: string } }
  | { kind: "succeed"; outputs?: Record<string, unknown> };

export class RunEngine {
  readonly runs = new Map<string, RunRecord>();
  private readonly active = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private timerAt: number | null = null;
  private stopped = false;

  constructor(
    readonly clock: Clock,
    private readonly hooks: EngineHooks,
  ) {}

  /** Drop a run entirely (environment reset). */
  forget(runId: string): void {
    this.runs.delete(runId);
    this.active.delete(runId);
  }

  /**
   * A run by id: in memory, or finished and on disk (read back as a fresh copy; a finished run
   * never changes, so nothing is lost by not keeping it).
   */
  find(runId: string): RunRecord | undefined {
    return this.runs.get(runId) ?? this.hooks.archived?.(runId);
  }

  /** Drop a finished run from memory once it is on disk (persistence.ts, retention). */
  evict(runId: string): void {
    const run = this.runs.get(runId);
    if (run && isTerminal(run.status)) this.runs.delete(runId);
  }

  /** Re-adopt a run (journal replay). */
  restore(run: RunRecord): void {
    this.runs.set(run.run_id, run);
    if (run.next_at !== null && !isTerminal(run.status)) this.active.add(run.run_id);
    else this.active.delete(run.run_id);
  }

  create(p: NewRun): RunRecord {
    const now = this.clock.now();
    const run: RunRecord = {
      run_id: newId("run"),
      ...p,
      status: RUN_STATUS.queued,
      step: 0,
      next_at: now + (p.scenario.queue_ms ?? DEFAULT_QUEUE_MS),
      created_at: now,
      updated_at: now,
      started_at: null,
      finished_at: null,
      session_id: null,
      error: null,
      outputs: null,
      events: [],
      checkpoints: [],
      waiting: null,
      event_seq: 0,
    };
    this.event(run, "run.queued", { workflow_id: p.workflow_id, revision: p.revision });
    this.runs.set(run.run_id, run);
    this.active.add(run.run_id);
    // Zero-length steps run at once (virtual clock included).
    this.process(run, false);
    this.hooks.persist(run);
    this.scheduleAt(run.next_at);
    return run;
  }

  private event(run: RunRecord, type: string, data?: Record<string, unknown>, step?: number): void {
    run.event_seq += 1;
    run.events.push({
      id: `${run.run_id}_evt_${run.event_seq}`,
      type,
      at: iso(this.clock.now()),
      ...(step !== undefined ? { step } : {}),
      ...(data !== undefined ? { data } : {}),
    });
  }

  private setStatus(run: RunRecord, status: RunStatus, data?: Record<string, unknown>): void {
    run.status = status;
    run.updated_at = this.clock.now();
    this.event(run, `run.${status}`, data);
  }

  private finish(
    run: RunRecord,
    status: RunStatus,
    error: RunRecord["error"],
    outputs: Record<string, unknown> | null,
  ): void {
    run.error = error;
    run.outputs = outputs;
    run.finished_at = this.clock.now();
    run.next_at = null;
    run.waiting = null;
    this.setStatus(run, status, error ? { error } : undefined);
    this.active.delete(run.run_id);
    this.hooks.notify(run, "workflow.run.completed");
  }

  /** Process everything due for `run` at the current clock time. Returns whether it changed. */
  process(run: RunRecord, persist = true): boolean {
    let changed = false;
    let guard = 0;
    while (run.next_at !== null && run.next_at <= this.clock.now() && !isTerminal(run.status)) {
      if (++guard > 10_000) break;
      changed = true;
      this.stepOnce(run);
    }
    if (isTerminal(run.status)) this.active.delete(run.run_id);
    if (changed && persist) this.hooks.persist(run);
    return changed;
  }

  private stepOnce(run: RunRecord): void {
    const now = this.clock.now();
    const sc = run.scenario;
    switch (run.status) {
      case RUN_STATUS.queued:
        this.setStatus(run, RUN_STATUS.starting);
        run.next_at = now + (sc.start_ms ?? DEFAULT_START_MS);
        return;
      case RUN_STATUS.starting:
        run.session_id = newId("ses");
        run.started_at = now;
        this.setStatus(run, RUN_STATUS.running, { session: sc.session ?? "browser" });
        run.next_at = now;
        return;
      case RUN_STATUS.waiting_for_human_live: {
        const cp = run.waiting === null ? undefined : run.checkpoints[run.waiting];
        if (!cp) {
          run.next_at = now;
          run.status = RUN_STATUS.running;
          return;
        }
        if (cp.answer !== undefined && cp.answered_at !== undefined) {
          cp.acknowledged = true;
          run.waiting = null;
          this.event(run, "human.acknowledged", { checkpoint_id: cp.checkpoint_id }, cp.step);
          this.setStatus(run, RUN_STATUS.running);
          run.next_at = now;
          return;
        }
        cp.expired = true;
        this.event(run, "human.expired", { checkpoint_id: cp.checkpoint_id }, cp.step);
        run.waiting = null;
        this.finish(
          run,
          RUN_STATUS.human_wait_expired,
          {
            code: CODE.HUMAN_WAIT_EXPIRED,
            message: "nobody answered the checkpoint before it expired",
          },
          null,
        );
        return;
      }
      case RUN_STATUS.running:
        this.runStep(run);
        return;
      default:
        run.next_at = null;
    }
  }

  private runStep(run: RunRecord): void {
    const now = this.clock.now();
    const index = run.step;
    const step = run.scenario.steps[index];
    const vault = this.hooks.vault(run.environment);
    if (!step) {
      this.finish(run, RUN_STATUS.succeeded, null, this.hooks.synthesize(run));
      return;
    }
    run.step += 1;
    if ("wait_ms" in step) {
      run.next_at = now + step.wait_ms;
      return;
    }
    if ("event" in step) {
      const { type, ...rest } = step.event;
      const r = redactVault(rest, vault);
      if (r.missing.length > 0) {
        this.finish(
          run,
          RUN_STATUS.failed,
          {
            code: CODE.CREDENTIAL_NOT_FOUND,
            message: `vault credential ${JSON.stringify(r.missing[0])} is not configured`,
          },
          null,
        );
        return;
      }
      const data = r.value as Record<string, unknown>;
      this.event(run, type, Object.keys(data).length > 0 ? data : undefined, index);
      run.next_at = now;
      return;
    }
    if ("human" in step) {
      const cp = newCheckpoint(step.human, now, index);
      run.checkpoints.push(cp);
      run.waiting = run.checkpoints.length - 1;
      this.event(run, "human.requested", checkpointEventData(cp), index);
      this.setStatus(run, RUN_STATUS.waiting_for_human_live);
      run.next_at = cp.expires_at;
      this.hooks.notify(run, "workflow.run.requires_action");
      return;
    }
    if ("succeed" in step) {
      let outputs = step.succeed.outputs
        ? this.hooks.fileOutputs(run, structuredClone(step.succeed.outputs))
        : this.hooks.synthesize(run);
      outputs = redactVault(outputs, vault).value as Record<string, unknown>;
      this.finish(run, RUN_STATUS.succeeded, null, outputs);
      return;
    }
    if ("fail" in step) {
      const error = redactVault(step.fail.error, vault).value as RunRecord["error"];
      this.finish(run, step.fail.status, error, null);
    }
  }

  /** An answer to the run's checkpoint, judged by checkpoints.ts; an accepted one is acknowledged soon. */
  answer(run: RunRecord, checkpointId: string | undefined, response: unknown): AnswerOutcome {
    this.process(run);
    const canon = canonicalJson(response);
    const judged = judgeAnswer(run, checkpointId, canon);
    if (judged.kind !== "accept") return judged;
    const current = judged.checkpoint;
    const now = this.clock.now();
    current.answer = canon;
    current.answered_at = now;
    this.event(run, "human.answered", { checkpoint_id: current.checkpoint_id }, current.step);
    run.updated_at = now;
    run.next_at = now + ACK_MS;
    this.active.add(run.run_id);
    this.hooks.persist(run);
    this.scheduleAt(run.next_at);
    return { kind: "accepted" };
  }

  /**
   * Process a run from a timer or clock advance. One run's failure (a bug, an impossible date)
   * ends that run with status error; it never escapes into the timer and takes the server down.
   */
  private processGuarded(run: RunRecord): void {
    try {
      this.process(run);
    } catch (e) {
      const message = `the emulator could not continue this run: ${(e as Error)?.message ?? e}`;
      console.error(`wfr-emulator: run ${run.run_id}: ${message}`);
      this.active.delete(run.run_id);
      run.next_at = null;
      run.waiting = null;
      run.status = RUN_STATUS.error;
      run.error = { code: CODE.EMULATOR_ERROR, message };
      try {
        run.finished_at = this.clock.now();
        run.updated_at = run.finished_at;
        this.hooks.persist(run);
      } catch (e2) {
        console.error(`wfr-emulator: run ${run.run_id}: not persisted: ${(e2 as Error)?.message}`);
      }
    }
  }

  /**
   * Fault injection (admin API): move a live run now, as if its scenario had said so. Returns
   * null when done, or why the run cannot take this fault.
   */
  inject(run: RunRecord, fault: Fault): string | null {
    this.process(run);
    if (isTerminal(run.status)) return `the run already ended with ${run.status}`;
    const now = this.clock.now();
    switch (fault.kind) {
      case "checkpoint": {
        if (run.status === RUN_STATUS.waiting_for_human_live)
          return "the run already waits for a human";
        if (run.session_id === null) {
          run.session_id = newId("ses");
          run.started_at = now;
          this.setStatus(run, RUN_STATUS.running, { session: run.scenario.session ?? "browser" });
        }
        const cp = newCheckpoint(fault.human, now, run.step);
        run.checkpoints.push(cp);
        run.waiting = run.checkpoints.length - 1;
        this.event(run, "human.requested", checkpointEventData(cp));
        this.setStatus(run, RUN_STATUS.waiting_for_human_live);
        run.next_at = cp.expires_at;
        this.hooks.notify(run, "workflow.run.requires_action");
        break;
      }
      case "expire": {
        const cp = run.waiting === null ? undefined : run.checkpoints[run.waiting];
        if (run.status !== RUN_STATUS.waiting_for_human_live || !cp)
          return "the run waits for no human";
        if (cp.answer !== undefined) return "the checkpoint was already answered";
        cp.expires_at = now;
        run.next_at = now;
        break;
      }
      case "fail":
        run.waiting = null;
        this.finish(run, fault.status, fault.error, null);
        break;
      case "succeed":
        run.waiting = null;
        this.finish(run, RUN_STATUS.succeeded, null, fault.outputs ?? this.hooks.synthesize(run));
        break;
    }
    this.active.add(run.run_id);
    this.process(run, false);
    this.hooks.persist(run);
    this.schedule();
    return null;
  }

  /** Process every run that is due now. */
  tick(): void {
    for (const id of [...this.active]) {
      const run = this.runs.get(id);
      if (run) this.processGuarded(run);
    }
    this.schedule();
  }

  /** The earliest time a live run has something due (a scenario step, an expiry, an acknowledgement). */
  nextDueAt(): number | null {
    let min: number | null = null;
    for (const id of this.active) {
      const at = this.runs.get(id)?.next_at;
      if (at !== null && at !== undefined && (min === null || at < min)) min = at;
    }
    return min;
  }

  /**
   * Virtual clock: move time forward by `ms`, running due steps in time order; `setNow` moves
   * it to each due time, then the end (journalled first: emulator-state.ts, advanceClock).
   */
  advance(ms: number, setNow: (t: number) => void): void {
    const target = this.clock.now() + ms;
    for (let guard = 0; guard < 1_000_000; guard++) {
      const at = this.nextDueAt();
      if (at === null || at > target) break;
      setNow(at);
      for (const id of [...this.active]) {
        const run = this.runs.get(id);
        if (run && run.next_at !== null && run.next_at <= at) this.processGuarded(run);
      }
    }
    setNow(target);
  }

  /** Real clock: make sure the timer fires no later than `at` (cheap path for new work). */
  private scheduleAt(at: number | null): void {
    if (this.clock.virtual || this.stopped || at === null) return;
    if (this.timer !== null && this.timerAt !== null && this.timerAt <= at) return;
    this.armTimer(at);
  }

  private armTimer(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.timerAt = null;
        try {
          this.tick();
        } catch (e) {
          console.error(`wfr-emulator: scheduler: ${(e as Error)?.message ?? e}`);
        }
      },
      Math.max(0, Math.min(at - this.clock.now(), 2 ** 31 - 1)),
    );
  }

  /** Real clock: one timer for the earliest due run. */
  schedule(): void {
    if (this.clock.virtual || this.stopped) return;
    const at = this.nextDueAt();
    if (at === null) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.timerAt = null;
      return;
    }
    if (this.timer === null || this.timerAt !== at) this.armTimer(at);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
