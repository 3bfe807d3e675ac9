// Type-level rules: checked by `vitest --typecheck` and by `tsc --noEmit` (typecheck script).
import { describe, expectTypeOf, it } from "vitest";
import {
  createClient,
  type LaunchedRun,
  type RequestOptions,
  type RunResult,
  type RunStatus,
} from "../src/index.js";
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
    expectTypeOf(wfr.launch(invoiceIntake, { inputs })).resolves.toEqualTypeOf<LaunchedRun>();
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
    expectTypeOf(result).toEqualTypeOf<RunResult<InvoiceOutputs>>();
    // @ts-expect-error outputs may be absent until status is narrowed to succeeded
    result.outputs.total;
    if (result.status === "succeeded") expectTypeOf(result.outputs).toEqualTypeOf<InvoiceOutputs>();
    if (result.status === "failed") expectTypeOf(result.outputs).toEqualTypeOf<undefined>();
    const waited = await wfr.waitForResult(invoiceIntake, "run_1");
    if (waited.status === "succeeded") expectTypeOf(waited.outputs.total).toEqualTypeOf<number>();
  });
});

describe("issue 8 ergonomics types", () => {
  it("getResult and waitForResult take a plain run id (outputs unchecked)", async () => {
    const plain = await wfr.waitForResult("run_1", { timeoutMs: 1000 });
    expectTypeOf(plain).toEqualTypeOf<RunResult<Record<string, unknown>>>();
    expectTypeOf(await wfr.getResult("run_1", { timeoutMs: 5 })).toEqualTypeOf<
      RunResult<Record<string, unknown>>
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

  it("RunStatus names the known statuses and stays open to new ones", () => {
    expectTypeOf<"succeeded">().toExtend<RunStatus>();
    expectTypeOf<"waiting_for_human_live">().toExtend<RunStatus>();
    expectTypeOf<"some_future_status">().toExtend<RunStatus>();
  });
});
