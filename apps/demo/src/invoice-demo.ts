// The main job's caller: written only against the generated types for the
// production environment and @wfr/runtime, exactly as an app would be.
import { workflows } from "@wfr/generated/production";
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
  const invoiceIntake = workflows.invoiceIntake;

  const run = await wfr.launch(invoiceIntake, {
    inputs: {
      vendor_name: "Northwind Traders",
      amount: 1280.5,
      invoice_pdf: file(INVOICE_PDF, { filename: "inv-1042.pdf", mimeType: "application/pdf" }),
    },
    metadata: { orderId: "o-1042" },
  });
  log(
    `launched ${invoiceIntake.name} as ${run.run_id} (status ${run.status}, idempotency key ${run.idempotencyKey})`,
  );

  const polling = { initialIntervalMs: 50, maxIntervalMs: 250, timeoutMs: 30_000 };
  const waiting = await wfr.waitForRun(run.run_id, {
    ...polling,
    onUpdate: (update) => log(`  status: ${update.status}`),
  });
  const checkpoint = waiting.human_action;
  if (waiting.status === "waiting_for_human_live" && checkpoint?.checkpoint_id) {
    log(
      `human checkpoint ${checkpoint.checkpoint_id}: ${checkpoint.reason ?? "(no reason given)"}`,
    );
    const answered = await wfr.answerHumanInput(run.run_id, {
      checkpointId: checkpoint.checkpoint_id,
      response: { approved: true, note: "Approved by the demo" },
    });
    log(`answered; response_accepted=${answered.human_action?.response_accepted ?? false}`);
  }

  const result = await wfr.waitForResult(invoiceIntake, run.run_id, {
    ...polling,
    keepWaitingOnHuman: true,
  });
  if (result.state === "terminal" && result.status === "succeeded") {
    // `outputs` is typed from the downloaded definition: a graph edit that
    // removes `total` becomes a type error on this line.
    log(
      `succeeded: invoice ${result.outputs.invoice_id}, total ${result.outputs.total}, status ${result.outputs.status}`,
    );
    log(`metadata echoed: ${JSON.stringify(result.metadata)}`);
    return result.outputs;
  }
  throw new Error(
    `run ${run.run_id} ended ${result.serverStatus}: ${result.error?.message ?? "no error message"}`,
  );
}
