// Counting, pure: runs per business id and side effects per event id, turned into the rows of
// the suite's table. "Lost" and "duplicated" are counted against the service's record (the
// emulator's admin API), never against what the code under test says it did.
import { FAULT_LABELS, NETWORK_FAULTS, type NetworkFault } from "./fault-schedule.js";

export interface FaultRow {
  readonly fault: string;
  /** The store and mode under test (or the client path, for launches). */
  readonly setup: string;
  readonly operations: number;
  readonly lost: number;
  readonly duplicated: number;
  /** What else a reader needs to judge the row: faults injected, redeliveries, 0-or-1 runs. */
  readonly note: string;
}

/** Each line of `text` counted (an effects file: one event id per line). */
export function countLines(text: string, into = new Map<string, number>()): Map<string, number> {
  for (const line of text.split("\n")) if (line) into.set(line, (into.get(line) ?? 0) + 1);
  return into;
}

/** Against the events that had to happen once each: how many never did, how many more than once. */
export function sideEffectTally(
  expected: Iterable<string>,
  effects: ReadonlyMap<string, number>,
): { readonly lost: number; readonly duplicated: number; readonly unexpected: number } {
  const wanted = new Set(expected);
  let lost = 0;
  let duplicated = 0;
  for (const id of wanted) {
    const count = effects.get(id) ?? 0;
    if (count === 0) lost += 1;
    if (count > 1) duplicated += 1;
  }
  const unexpected = [...effects.keys()].filter((id) => !wanted.has(id)).length;
  return { lost, duplicated, unexpected };
}

/** Run ids by business id (a run's `metadata.business_id`), for the ids starting with `prefix`. */
export function runsByBusinessId(
  runs: readonly { readonly run_id: string; readonly metadata: Record<string, unknown> }[],
  prefix: string,
): Map<string, string[]> {
  const byId = new Map<string, string[]>();
  for (const run of runs) {
    const id = run.metadata.business_id;
    if (typeof id !== "string" || !id.startsWith(prefix)) continue;
    byId.set(id, [...(byId.get(id) ?? []), run.run_id]);
  }
  return byId;
}

/** What the runtime said of one launch through the proxy. */
export interface LaunchOutcome {
  readonly businessId: string;
  /** The run id the runtime returned; absent when the launch threw after its retries. */
  readonly runId?: string;
}

/** One launch's verdict against the emulator's record after the relaunch of failed ones. */
export function launchVerdict(
  outcome: LaunchOutcome,
  runsAfter: ReadonlyMap<string, readonly string[]>,
): { readonly lost: boolean; readonly duplicated: boolean } {
  const runs = runsAfter.get(outcome.businessId) ?? [];
  const lost = runs.length === 0 || (outcome.runId !== undefined && !runs.includes(outcome.runId));
  return { lost, duplicated: runs.length > 1 };
}

/**
 * The launch rows: one per network fault (the launches that met it on at least one attempt),
 * and one for launches that failed after every retry and were launched again with the same key.
 * `runsBefore` is the record before that relaunch, `runsAfter` after it.
 */
export function launchRows(
  exchanges: readonly { readonly plan: string; readonly idempotencyKey: string | undefined }[],
  outcomes: readonly LaunchOutcome[],
  runsBefore: ReadonlyMap<string, readonly string[]>,
  runsAfter: ReadonlyMap<string, readonly string[]>,
): FaultRow[] {
  const byId = new Map(outcomes.map((outcome) => [outcome.businessId, outcome]));
  const setup = "runtime launch, business id as idempotency key, via the fault proxy";
  const rows: FaultRow[] = NETWORK_FAULTS.map((fault: NetworkFault) => {
    const met = exchanges.filter((exchange) => exchange.plan === fault);
    const ids = new Set(met.map((exchange) => exchange.idempotencyKey ?? ""));
    const verdicts = [...ids].flatMap((id) => {
      const outcome = byId.get(id);
      return outcome ? [launchVerdict(outcome, runsAfter)] : [];
    });
    return {
      fault: FAULT_LABELS[fault],
      setup,
      operations: met.length,
      lost: verdicts.filter((v) => v.lost).length,
      duplicated: verdicts.filter((v) => v.duplicated).length,
      note: `${ids.size} launches met it`,
    };
  });
  const failed = outcomes.filter((outcome) => outcome.runId === undefined);
  const hadRun = failed.filter((o) => (runsBefore.get(o.businessId)?.length ?? 0) === 1).length;
  const hadMore = failed.filter((o) => (runsBefore.get(o.businessId)?.length ?? 0) > 1).length;
  const verdicts = failed.map((outcome) => launchVerdict(outcome, runsAfter));
  rows.push({
    fault: "launch failed after every retry, launched again with the same key",
    setup: "runtime launch; the relaunch goes straight to the emulator",
    operations: failed.length,
    lost: verdicts.filter((v) => v.lost).length,
    duplicated: verdicts.filter((v) => v.duplicated).length,
    note: `before the relaunch: ${failed.length - hadRun - hadMore} with 0 runs, ${hadRun} with 1${hadMore ? `, ${hadMore} with more` : ""}`,
  });
  const accepted = outcomes.filter((outcome) => outcome.runId !== undefined);
  const acceptedVerdicts = accepted.map((outcome) => launchVerdict(outcome, runsAfter));
  rows.push({
    fault: "every launch through the proxy (all faults and none)",
    setup,
    operations: outcomes.length,
    lost: acceptedVerdicts.filter((v) => v.lost).length + verdicts.filter((v) => v.lost).length,
    duplicated: [...runsAfter.values()].filter((runs) => runs.length > 1).length,
    note: `${accepted.length} accepted, ${failed.length} failed after retries`,
  });
  return rows;
}

/** The table as Markdown, columns padded to their widest cell. */
export function renderTable(rows: readonly FaultRow[]): string {
  const header = ["fault", "store / mode", "operations", "lost", "duplicated", "note"];
  const cells = rows.map((row) => [
    row.fault,
    row.setup,
    String(row.operations),
    String(row.lost),
    String(row.duplicated),
    row.note,
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((line) => line[column]?.length ?? 0)),
  );
  const line = (values: readonly string[]) =>
    `| ${values.map((value, column) => value.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  const rule = `| ${widths.map((width) => "-".repeat(width)).join(" | ")} |`;
  return [line(header), rule, ...cells.map(line)].join("\n");
}

/** True when every row counts 0 lost and 0 duplicated. */
export function allHeld(rows: readonly FaultRow[]): boolean {
  return rows.every((row) => row.lost === 0 && row.duplicated === 0);
}
