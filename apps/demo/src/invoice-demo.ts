// The main job's caller: written only against the generated types for the
// production environment and @wfr/runtime, exactly as an app would be. The
// checkpoint loop between the `checkpoint-loop` markers is the root README's
// pattern, line for line (apps/demo/test/demo.test.ts holds them equal).
import { invoiceIntake } from "@wfr/generated/sample/invoiceIntake";
import { createClient, file } from "@wfr/runtime";

export interface InvoiceDemoOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly log: (line: string) => void;
}

// A tiny but real PDF header: the emulator stores the attachment bytes as given.
const INVOICE_PDF = new TextEncoder().encode("%PDF-1.4\n% wfr demo invoice\n%%EOF\n");

export async function runInvoiceDemo({ baseUrl, apiKey, log }: InvoiceDemoOptions) {
  const wfr = createClient({ baseUrl, apiKey });
  const order = { id: "o-1042", vendor: "Northwind Traders", amount: 1280.5 };

  // The key is derived from the order's own id before launching: after a
  // crash, relaunching the order gets the same run, not a second one.
  const run = await wfr.launch(invoiceIntake, {
    inputs: {
      vendor_name: order.vendor,
      amount: order.amount,
      invoice_pdf: file(INVOICE_PDF, { filename: "inv-1042.pdf", mimeType: "application/pdf" }),
    },
    metadata: { orderId: order.id },
    idempotencyKey: `invoice-intake:${order.id}`,
  });
  log(
    `launched ${invoiceIntake.name} as ${run.run_id} (status ${run.status}, idempotency key ${run.idempotencyKey})`,
  );

  // Wait -> answer while a checkpoint is unanswered; a new checkpoint_id is a
  // new wait; stop when the run is terminal (docs/service-rules.md#human-checkpoints).
  // #region checkpoint-loop
  const answered: string[] = [];
  for (;;) {
    const current = await wfr.waitForRun(run.run_id, {
      answeredCheckpointIds: answered,
      timeoutMs: 10 * 60_000,
    });
    const checkpoint = current.human_action?.checkpoint_id;
    if (current.status !== "waiting_for_human_live" || !checkpoint) break;
    await wfr.answerHumanInput(run.run_id, {
      checkpointId: checkpoint,
      response: { approved: true },
    });
    answered.push(checkpoint);
  }
  // #endregion checkpoint-loop
  log(`answered ${answered.length} checkpoint(s), each once: ${answered.join(", ")}`);

  const result = await wfr.getResult(invoiceIntake, run.run_id);
  if (result.state === "terminal" && result.status === "succeeded") {
    // `outputs` is typed from the downloaded definition: a graph edit that
    // removes `total` becomes a type error on this line.
    log(
      `succeeded: invoice ${result.outputs.invoice_id}, total ${result.outputs.total}, status ${result.outputs.status}`,
    );
    log(`metadata echoed: ${JSON.stringify(result.metadata)}`);
    return { outputs: result.outputs, runId: run.run_id, answered };
  }
  throw new Error(
    `run ${run.run_id} ended ${result.serverStatus}: ${result.error?.message ?? "no error message"}`,
  );
}
