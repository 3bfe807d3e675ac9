// The runtime's own scenario, with web globals only (fetch, streams, Web Crypto, timers): the same
// bundle runs on Node, Bun, Deno and workerd (test/four-runtimes.test.ts). Each step reports what
// it saw; the test on Node decides. The workflow is the generated code of `schemas/sample`, as an
// app imports it, so that its validators (zod) run on each runtime too.

// A relative path, not the package name: @wfr/generated depends on this package, not the reverse.
import { invoiceIntake as invoice } from "../../../generated/src/sample/invoiceIntake.js";
import { requestStreamsSupported } from "../../src/http-transport.js";
import {
  createClient,
  file,
  InputValidationError,
  type RunEnvelope,
  verifyStandardWebhook,
} from "../../src/index.js";

export interface ScenarioConfig {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly runtime: string;
  /** A server that never answers `/runs/no-headers` and stalls the body of `/runs/stalled-body`. */
  readonly stallingBaseUrl: string;
  /** A delivery signed by the emulator's secret, to verify here. */
  readonly webhook: {
    readonly secret: string;
    readonly body: string;
    readonly headers: Record<string, string>;
  };
}

const fast = { initialIntervalMs: 20, maxIntervalMs: 100, timeoutMs: 60_000 };

export async function runScenario(config: ScenarioConfig): Promise<Record<string, unknown>> {
  const wfr = createClient({ baseUrl: config.baseUrl, apiKey: config.apiKey });
  const report: Record<string, unknown> = { runtime: config.runtime };
  const step = async (name: string, work: () => Promise<unknown>) => {
    try {
      report[name] = await work();
    } catch (error) {
      report[name] = { failed: `${(error as Error).name}: ${(error as Error).message}` };
    }
  };
  const pdf = (size: number) => {
    const bytes = new Uint8Array(size);
    bytes.set(new TextEncoder().encode("%PDF-1.4\n"));
    return file(bytes, { filename: "inv.pdf", mimeType: "application/pdf" });
  };

  await step("inputError", async () => {
    try {
      await wfr.launch(invoice, {
        inputs: { vendor_name: 5 as unknown as string, amount: 1, invoice_pdf: pdf(16) },
      });
      return "launched";
    } catch (error) {
      return error instanceof InputValidationError
        ? { fields: error.details.map((d) => d.field), code: error.code }
        : `${(error as Error).name}`;
    }
  });

  let run: RunEnvelope | undefined;
  await step("launchAndReplay", async () => {
    const key = `runtimes-${config.runtime}-${crypto.randomUUID()}`;
    const inputs = { vendor_name: "Northwind", amount: 12.5, invoice_pdf: pdf(1024) };
    const first = await wfr.launch(invoice, { inputs, idempotencyKey: key });
    const again = await wfr.launch(invoice, { inputs, idempotencyKey: key });
    run = first;
    return { sameRun: first.run_id === again.run_id };
  });

  await step("checkpointAndResult", async () => {
    if (!run) return "no run";
    const waiting = await wfr.waitForRun(run.run_id, fast);
    const checkpointId = waiting.human_action?.checkpoint_id;
    if (waiting.status !== "waiting_for_human_live" || !checkpointId) return waiting.status;
    await wfr.answerHumanInput(run.run_id, { checkpointId, response: { approved: true } });
    const result = await wfr.waitForResult(invoice, run.run_id, {
      ...fast,
      answeredCheckpointIds: [checkpointId],
    });
    return result.state === "terminal" && result.status === "succeeded"
      ? { status: result.status, total: result.outputs.total }
      : { status: result.status };
  });

  await step("largeAttachment", async () => {
    // 5 MiB: above the size where the body goes out as a duplex "half" stream, or as bytes where
    // this runtime's fetch does not stream request bodies (detected, not assumed).
    const big = await wfr.launch(invoice, {
      inputs: { vendor_name: "Big", amount: 1, invoice_pdf: pdf(5 * 1024 * 1024) },
    });
    return {
      launched: typeof big.run_id === "string",
      body: requestStreamsSupported() ? "stream" : "bytes",
    };
  });

  await step("attemptTimeouts", async () => {
    // Only the attempt's signal ends these (no promise is raced against fetch): this runtime's
    // fetch must reject while waiting for headers and error a body that stalls.
    const stalling = createClient({
      baseUrl: config.stallingBaseUrl,
      apiKey: config.apiKey,
      timeoutMs: 300,
      retry: { maxAttempts: 1 },
    });
    const codeOf = (runId: string) =>
      stalling.getRun(runId).then(
        () => "answered",
        (error: unknown) => (error as { code?: string }).code ?? String(error),
      );
    return { noHeaders: await codeOf("no-headers"), stalledBody: await codeOf("stalled-body") };
  });

  await step("webhookSignature", async () => {
    const verdict = await verifyStandardWebhook({
      secret: config.webhook.secret,
      body: new TextEncoder().encode(config.webhook.body),
      headers: new Headers(config.webhook.headers),
    });
    return verdict.ok;
  });

  await step("recording", async () => {
    if (!run) return "no run";
    const download = await wfr.downloadRecording(run.run_id);
    const bytes = new Uint8Array(await new Response(download.stream).arrayBuffer());
    return { contentType: download.contentType, bytes: bytes.length };
  });
  return report;
}
