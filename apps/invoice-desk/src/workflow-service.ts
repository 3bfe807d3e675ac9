// Everything the desk does with the Workflow Run API, in one place: launch
// through the generated builder and the launch journal, refresh from the API
// (callbacks are only hints), answer checkpoints, fetch the recording once.
import { invoiceIntake } from "@wfr/generated/sample/invoiceIntake";
import {
  type CallbackEventStore,
  createCallbackHandler,
  createClient,
  type FileOutputReference,
  file,
  HumanWaitConflictError,
  HumanWaitExpiredError,
  type LaunchJournal,
  NotWaitingForHumanError,
  type RunEnvelope,
  type WorkflowRunClient,
} from "@wfr/runtime";
import { crashPoint } from "./crash.js";
import type { InvoiceQueries, InvoiceRow } from "./db.js";

export interface WorkflowServiceOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly journal: LaunchJournal;
  readonly invoices: InvoiceQueries;
  /** The public URL the service should POST callbacks to; none: polling only. */
  readonly callbackUrl?: string | undefined;
  /** Names this instance in its notifications (several instances share one database). */
  readonly instance?: string;
  /** Verify deliveries' Standard Webhooks signatures with this secret (or these, during rotation). */
  readonly webhookSecret?: string | readonly string[] | undefined;
  readonly log: (line: string) => void;
}

export function createWorkflowService(options: WorkflowServiceOptions) {
  const client: WorkflowRunClient = createClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
  });
  const { invoices, log } = options;
  // The journal as the launch of one invoice uses it, with the crash hook between its steps.
  const journalFor = (invoiceId: string): LaunchJournal => ({
    ...bind(options.journal),
    async record(intent) {
      const stored = await options.journal.record(intent);
      crashPoint("after-journal", invoiceId);
      return stored;
    },
    async markAcknowledged(intentId, runId) {
      crashPoint("after-launch", invoiceId);
      await options.journal.markAcknowledged(intentId, runId);
      crashPoint("after-ack", invoiceId);
    },
  });

  /** Stores what the API says now: the run, and the result once it is terminal. */
  async function refresh(invoiceId: string, runId: string): Promise<RunEnvelope> {
    const run = await client.getRun(runId);
    const result = await client.getResult(invoiceIntake, runId);
    if (result.state === "terminal") {
      await invoices.setResult(invoiceId, result.serverStatus, run, {
        status: result.serverStatus,
        outputs: result.status === "succeeded" ? result.outputs : null,
        error: result.error ?? null,
      });
    } else {
      await invoices.setResult(invoiceId, String(run.status), run, undefined);
    }
    return run;
  }

  return {
    client,

    /**
     * The idempotency key is derived from the invoice's own id and recorded in
     * the journal before anything is sent: a crash at any point and a restart
     * (on any instance) resend the same request and get the same run.
     */
    async launch(invoiceId: string): Promise<void> {
      const stored = await invoices.get(invoiceId);
      const document = await invoices.pdf(invoiceId);
      if (!stored || !document) throw new Error(`invoice ${invoiceId} is not stored`);
      try {
        // The generated builder checks the inputs against the definition first.
        const inputs = invoiceIntake.buildInputs({
          vendor_name: stored.vendor_name,
          amount: stored.amount,
          invoice_pdf: file(document.pdf, {
            filename: document.filename,
            mimeType: "application/pdf",
          }),
        });
        const metadata = { invoice_id: invoiceId };
        // The intent id, and from it the idempotency key, come from the invoice's own id.
        const intentId = intentIdOf(invoiceId);
        crashPoint("after-key", invoiceId);
        const run = await client.launch(invoiceIntake, {
          inputs,
          metadata,
          intent: { journal: journalFor(invoiceId), id: intentId },
          ...(options.callbackUrl ? { callbackUrl: options.callbackUrl } : {}),
        });
        await invoices.setRun(invoiceId, run.run_id, String(run.status), run);
        crashPoint("after-mark", invoiceId);
        log(`launched invoice ${invoiceId} as run ${run.run_id}`);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        await invoices.setLaunchError(invoiceId, message);
        log(`launch of invoice ${invoiceId} failed: ${message}`);
        throw error;
      }
    },

    refresh,

    /** Launches stored invoices that have no run yet: the restart path after a crash. */
    async resumeUnlaunched(): Promise<void> {
      for (const row of await invoices.unlaunched()) {
        await this.launch(row.id).catch(() => undefined);
      }
    },

    /** The polling fallback for runs whose callbacks never come. */
    async pollStale(olderThanMs: number): Promise<void> {
      for (const row of await invoices.stale(olderThanMs)) {
        if (row.run_id)
          await refresh(row.id, row.run_id).catch((error) =>
            log(`poll of ${row.id} failed: ${error}`),
          );
      }
    },

    /** Answers the checkpoint; a conflict is explained, never retried with another answer. */
    async answer(
      row: InvoiceRow,
      checkpointId: string,
      response: unknown,
    ): Promise<{ ok: boolean; message: string }> {
      if (!row.run_id) return { ok: false, message: "This invoice has no run." };
      try {
        await client.answerHumanInput(row.run_id, { checkpointId, response });
        await refresh(row.id, row.run_id);
        return {
          ok: true,
          message: "Answer sent. The run resumes once the service acknowledges it.",
        };
      } catch (error) {
        await refresh(row.id, row.run_id).catch(() => undefined);
        if (error instanceof HumanWaitConflictError) {
          return {
            ok: false,
            message:
              "Another answer to this checkpoint was already accepted (or the checkpoint changed), so yours was not used. The page now shows the current state.",
          };
        }
        if (error instanceof NotWaitingForHumanError) {
          return {
            ok: false,
            message: "The run is no longer waiting for a person; nothing was sent.",
          };
        }
        if (error instanceof HumanWaitExpiredError) {
          return { ok: false, message: "The checkpoint expired before the answer arrived." };
        }
        throw error;
      }
    },

    /** Downloads the recording once and stores it; later views play the stored copy. */
    async fetchRecording(row: InvoiceRow): Promise<void> {
      if (!row.run_id) return;
      const download = await client.downloadRecording(row.run_id);
      const bytes = new Uint8Array(await new Response(download.stream).arrayBuffer());
      await invoices.saveRecording(row.id, download.contentType ?? "video/mp4", bytes);
    },

    /**
     * A file output's bytes, only from the environment or its storage origins (the runtime's
     * download policy): a result cannot make the desk fetch and show anything else.
     */
    async downloadOutputFile(reference: FileOutputReference): Promise<Response> {
      return client.downloadFileOutput(reference);
    },

    /** The callback receiver: a hint to refresh from the API, deduplicated in the shared store. */
    callbackHandler(store: CallbackEventStore) {
      const onRequiresAction = async ({ callback }: { callback: { run: { run_id: string } } }) => {
        const row = await invoices.byRun(callback.run.run_id);
        if (row) await refresh(row.id, callback.run.run_id);
      };
      // Runs once per event_id across every instance (the shared store's lease):
      // the place for side effects that must not repeat.
      const onCompleted = async ({
        callback,
      }: {
        callback: { event_id: string; run: { run_id: string } };
      }) => {
        const row = await invoices.byRun(callback.run.run_id);
        if (!row) return;
        const run = await refresh(row.id, callback.run.run_id);
        await invoices.notify(
          callback.event_id,
          row.id,
          String(run.status),
          options.instance ?? "desk",
        );
      };
      // Signed deliveries only, whenever a secret is configured (Standard Webhooks).
      return createCallbackHandler({
        client,
        store,
        onCompleted,
        onRequiresAction,
        ...(options.webhookSecret ? { webhookSecret: options.webhookSecret } : {}),
      });
    },
  };
}
/** One invoice, one intent: the journal key and the idempotency key derive from it. */
function intentIdOf(invoiceId: string): string {
  return `invoice:${invoiceId}`;
}

function bind(journal: LaunchJournal): LaunchJournal {
  return {
    record: (intent) => journal.record(intent),
    markSent: (intentId) => journal.markSent(intentId),
    markAcknowledged: (intentId, runId) => journal.markAcknowledged(intentId, runId),
    markFailed: (intentId, failure) => journal.markFailed(intentId, failure),
    get: (intentId) => journal.get(intentId),
    listUnacknowledged: (listOptions) => journal.listUnacknowledged(listOptions),
  };
}

export type WorkflowService = ReturnType<typeof createWorkflowService>;
