// Launches every planned row at a concurrency limit. Each row's intent goes
// into the launch journal before it is sent (the runtime's `intent` option),
// so a restart after a crash resends the same key and body for the rows that
// were in flight and reads back the runs of those already acknowledged.
import { basename } from "node:path";
import type { LaunchJournal, WorkflowRunClient } from "@wfr/runtime";
import type { PlannedRow } from "./plan.js";

export interface RowOutcome {
  readonly row: number;
  readonly key: string;
  readonly run_id?: string;
  readonly status?: string;
  readonly error?: { readonly code: string; readonly message: string };
}

export interface BatchOptions {
  readonly client: WorkflowRunClient;
  readonly journal: LaunchJournal;
  readonly workflowId: string;
  readonly file: string;
  readonly concurrency: number;
  readonly onOutcome?: (outcome: RowOutcome, done: number, total: number) => void;
}

/** The intent of one row: stable across restarts and across launchers sharing the file. */
function intentIdOf(workflowId: string, file: string, key: string): string {
  return `batch:${workflowId}:${basename(file)}:${key}`;
}

export async function launchBatch(
  rows: readonly PlannedRow[],
  options: BatchOptions,
): Promise<RowOutcome[]> {
  const outcomes: RowOutcome[] = new Array(rows.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    for (let index = next++; index < rows.length; index = next++) {
      const row = rows[index] as PlannedRow;
      let outcome: RowOutcome;
      try {
        const run = await options.client.launch(options.workflowId, {
          inputs: row.inputs,
          metadata: { batch_file: basename(options.file), batch_row: row.key },
          intent: {
            journal: options.journal,
            id: intentIdOf(options.workflowId, options.file, row.key),
          },
        });
        outcome = { row: row.row, key: row.key, run_id: run.run_id, status: String(run.status) };
      } catch (error) {
        const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
        outcome = {
          row: row.row,
          key: row.key,
          error: {
            code: typeof code === "string" ? code : "ERROR",
            message: String(message ?? error),
          },
        };
      }
      outcomes[index] = outcome;
      done += 1;
      options.onOutcome?.(outcome, done, rows.length);
    }
  };
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(options.concurrency, rows.length)) }, worker),
  );
  return outcomes;
}
