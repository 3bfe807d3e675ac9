// Type-level rules: checked by `tsc --noEmit` (the typecheck task); a broken rule is a type error.
import { describe, expectTypeOf, it } from "vitest";
import {
  createClient,
  type LaunchedRun,
  type RequestOptions,
  type RunResult,
  type RunStatus,
  type WithRequestId,
} from "../src/index.js";
import type { WireRoute } from "../src/wire-types.js";
import {
  disabledInvoice,
  draftInvoice,
  type InvoiceOutputs,
  invoiceIntake,
  invoiceIntakeWithModel,
} from "./support/fake-workflows.js";

const wfr = createClient({ baseUrl: "https://api.example.com/api/v1", apiKey: "k" });
const inputs = { vendor_name: "Northwind", amount: 10 };

describe("launch types", () => {
  it("Only an enabled workflow can be launched; a draft or disabled one cannot", () => {
    expectTypeOf(wfr.launch(invoiceIntake, { inputs })).resolves.toEqualTypeOf<
      WithRequestId<LaunchedRun>
    >();
    // @ts-expect-error draft
    wfr.launch(draftInvoice, { inputs });
    // @ts-expect-error disabled
    wfr.launch(disabledInvoice, { inputs });
  });

  it("Optional fields such as model exist only where the environment's generated schema exposes them", () => {
    wfr.launch(invoiceIntakeWithModel, { inputs, model: "flash" });
    // @ts-expect-error model is not exposed for this workflow
    wfr.launch(invoiceIntake, { inputs, model: "flash" });
    // @ts-expect-error arbitrary vendor model ids are not accepted
    wfr.launch(invoiceIntakeWithModel, { inputs, model: "gpt-4o" });
  });

  it("inputs are typed by the workflow; a plain workflow id is untyped", () => {
    // @ts-expect-error amount must be a number ("No automatic conversion is done")
    wfr.launch(invoiceIntake, { inputs: { vendor_name: "N", amount: "10" } });
    // @ts-expect-error undeclared key
    wfr.launch(invoiceIntake, { inputs: { ...inputs, extra: 1 } });
    wfr.launch("wf_any", { inputs: { anything: 1 }, model: "pro" });
  });

  it("outputs only on succeeded", async () => {
    const result = await wfr.getResult(invoiceIntake, "run_1");
    expectTypeOf(result).toEqualTypeOf<WithRequestId<RunResult<InvoiceOutputs>>>();
    // @ts-expect-error outputs may be absent until status is narrowed to succeeded
    result.outputs.total;
    if (result.status === "succeeded") expectTypeOf(result.outputs).toEqualTypeOf<InvoiceOutputs>();
    if (result.status === "failed") expectTypeOf(result.outputs).toEqualTypeOf<undefined>();
    const waited = await wfr.waitForResult(invoiceIntake, "run_1");
    if (waited.status === "succeeded") expectTypeOf(waited.outputs.total).toEqualTypeOf<number>();
  });
});

describe("launch ergonomics types", () => {
  it("getResult and waitForResult take a plain run id (outputs unchecked)", async () => {
    const plain = await wfr.waitForResult("run_1", { timeoutMs: 1000 });
    expectTypeOf(plain).toEqualTypeOf<WithRequestId<RunResult<Record<string, unknown>>>>();
    expectTypeOf(await wfr.getResult("run_1", { timeoutMs: 5 })).toEqualTypeOf<
      WithRequestId<RunResult<Record<string, unknown>>>
    >();
  });

  it("one per-request options shape on every method; no positional signal", () => {
    const options: RequestOptions = { signal: new AbortController().signal, maxRetries: 0 };
    wfr.getRun("run_1", options);
    wfr.getEvents("run_1", options);
    wfr.answerHumanInput("run_1", { checkpointId: "cp", response: 1 }, options);
    wfr.downloadRecording("run_1", { ...options, maxAttempts: 1 });
    // @ts-expect-error a bare AbortSignal is not the options object
    wfr.getRun("run_1", new AbortController().signal);
  });

  it("every method's result carries the request id; withResponse exists for every method", async () => {
    expectTypeOf((await wfr.getRun("run_1"))._requestId).toEqualTypeOf<string | undefined>();
    expectTypeOf((await wfr.getEvents("run_1"))._requestId).toEqualTypeOf<string | undefined>();
    expectTypeOf((await wfr.waitForRun("run_1"))._requestId).toEqualTypeOf<string | undefined>();
    expectTypeOf((await wfr.downloadRecording("run_1"))._requestId).toEqualTypeOf<
      string | undefined
    >();
    expectTypeOf(
      (await wfr.answerHumanInput("run_1", { checkpointId: "cp", response: 1 }))._requestId,
    ).toEqualTypeOf<string | undefined>();
    const recording = await wfr.downloadRecording("run_1", { maxAttempts: 1 }).withResponse();
    expectTypeOf(recording.response).toEqualTypeOf<Response>();
    expectTypeOf(recording.data.stream).toEqualTypeOf<ReadableStream<Uint8Array>>();
    expectTypeOf(recording.requestId).toEqualTypeOf<string | undefined>();
    const result = await wfr.getResult(invoiceIntake, "run_1").withResponse();
    expectTypeOf(result.data).toEqualTypeOf<WithRequestId<RunResult<InvoiceOutputs>>>();
    // The deprecated parallel methods keep their types.
    const old = await wfr.withResponse.getRun("run_1");
    expectTypeOf(old.response).toEqualTypeOf<Response>();
  });
});

describe("RunStatus: closed, so a typo in a comparison is a type error", () => {
  it("every known status and 'unrecognized' compile in a comparison", async () => {
    const run = await wfr.getRun("run_1");
    const known: RunStatus[] = [
      "queued",
      "starting",
      "running",
      "waiting_for_human_live",
      "succeeded",
      "failed",
      "error",
      "cancelled",
      "terminated",
      "dead_letter",
      "human_wait_expired",
      "unrecognized",
    ];
    expectTypeOf(known).toEqualTypeOf<RunStatus[]>();
    if (run.status === "succeeded" || run.status === "waiting_for_human_live") return;
    if (run.status === "unrecognized") expectTypeOf(run.serverStatus).toEqualTypeOf<string>();
  });

  it("a misspelt status is an error (TS2367) on an envelope, a result and a launched run", async () => {
    const run = await wfr.getRun("run_1");
    // @ts-expect-error TS2367: "suceeded" is not a RunStatus, so the comparison can never be true
    if (run.status === "suceeded") return;
    const result = await wfr.getResult(invoiceIntake, "run_1");
    // @ts-expect-error TS2367: misspelt terminal status on a result
    if (result.status === "cancled") return;
    const launched = await wfr.launch(invoiceIntake, { inputs });
    // @ts-expect-error TS2367: a status no server sends is not silently false
    if (launched.status === "waiting_for_human") return;
    // @ts-expect-error an arbitrary string is not assignable to RunStatus
    const unknownStatus: RunStatus = "some_future_status";
    expectTypeOf<"some_future_status">().not.toExtend<RunStatus>();
    expectTypeOf<string>().not.toExtend<RunStatus>();
    void unknownStatus;
  });

  it("why not `string & {}`: an open union accepts the same typo without an error", () => {
    type OpenStatus = "succeeded" | "failed" | (string & {});
    const open = "failed" as OpenStatus;
    // No @ts-expect-error here: this compiles, which is the defect a closed union removes.
    expectTypeOf(open === "suceeded").toEqualTypeOf<boolean>();
    expectTypeOf<"suceeded">().toExtend<OpenStatus>();
  });

  it("a switch over RunStatus can be checked for exhaustiveness", async () => {
    const describeStatus = (status: RunStatus): string => {
      switch (status) {
        case "queued":
        case "starting":
        case "running":
          return "active";
        case "waiting_for_human_live":
          return "person";
        case "succeeded":
          return "done";
        case "failed":
        case "error":
        case "cancelled":
        case "terminated":
        case "dead_letter":
        case "human_wait_expired":
          return "failed";
        case "unrecognized":
          return "ask the result endpoint";
        default: {
          const unreachable: never = status;
          return unreachable;
        }
      }
    };
    const missingUnrecognized = (status: RunStatus): string => {
      switch (status) {
        case "queued":
        case "starting":
        case "running":
        case "waiting_for_human_live":
        case "succeeded":
        case "failed":
        case "error":
        case "cancelled":
        case "terminated":
        case "dead_letter":
        case "human_wait_expired":
          return "known";
        default: {
          // @ts-expect-error "unrecognized" is not handled, so status is not never here
          const unreachable: never = status;
          return unreachable;
        }
      }
    };
    expectTypeOf(describeStatus).returns.toEqualTypeOf<string>();
    expectTypeOf(missingUnrecognized).returns.toEqualTypeOf<string>();
  });
});

describe("the pipeline's routes come from the API file", () => {
  it("a route must exist for its method", () => {
    expectTypeOf<"/runs/{runId}">().toMatchTypeOf<WireRoute<"GET">>();
    expectTypeOf<"/automations/{workflowId}/runs">().toMatchTypeOf<WireRoute<"POST">>();
    expectTypeOf<"/browser-access-grants/{grantId}">().toMatchTypeOf<WireRoute<"DELETE">>();
    // @ts-expect-error a route with a typo
    expectTypeOf<"/run/{runId}">().toMatchTypeOf<WireRoute<"GET">>();
    // @ts-expect-error a route without that method (no POST on a run)
    expectTypeOf<"/runs/{runId}">().toMatchTypeOf<WireRoute<"POST">>();
  });
});
