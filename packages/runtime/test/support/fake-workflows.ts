// Hand-written WorkflowDefinition objects standing in for generated code.
import type { SleepOptions } from "../../src/backoff.js";
import { type FileInput, isFileInput } from "../../src/file-input.js";
import type {
  InputIssue,
  OutputIssue,
  SchemaLike,
  WorkflowDefinition,
  WorkflowState,
} from "../../src/workflow-definition.js";

export interface InvoiceInputs {
  vendor_name: string;
  amount: number;
  invoice_pdf?: FileInput;
  attachments?: FileInput[];
}
export interface InvoiceOutputs {
  total: number;
  summary: string;
}

const passThrough = <T>(): SchemaLike<T> => ({
  safeParse: (data) => ({ success: true, data: data as T }),
});

function validateInvoiceInputs(inputs: unknown): InputIssue[] {
  const issues: InputIssue[] = [];
  const record = (inputs ?? {}) as Record<string, unknown>;
  const declared = new Set(["vendor_name", "amount", "invoice_pdf", "attachments"]);
  for (const key of Object.keys(record)) {
    if (!declared.has(key))
      issues.push({ field: key, reason: "UNKNOWN_INPUT", message: `${key} is not declared` });
  }
  if (record.vendor_name === undefined)
    issues.push({ field: "vendor_name", reason: "REQUIRED", message: "required" });
  else if (typeof record.vendor_name !== "string")
    issues.push({ field: "vendor_name", reason: "INVALID_TYPE", message: "expected text" });
  if (record.amount === undefined)
    issues.push({ field: "amount", reason: "REQUIRED", message: "required" });
  else if (typeof record.amount !== "number")
    issues.push({ field: "amount", reason: "INVALID_TYPE", message: "expected number" });
  if (record.invoice_pdf !== undefined && !isFileInput(record.invoice_pdf)) {
    issues.push({ field: "invoice_pdf", reason: "INVALID_TYPE", message: "expected file()" });
  }
  return issues;
}

function checkInvoiceOutputs(outputs: unknown): OutputIssue[] {
  const record = (outputs ?? {}) as Record<string, unknown>;
  const issues: OutputIssue[] = [];
  if (typeof record.total !== "number") issues.push({ field: "total", message: "expected number" });
  if (typeof record.summary !== "string")
    issues.push({ field: "summary", message: "expected text" });
  return issues;
}

export function defineInvoiceWorkflow<
  Id extends string,
  State extends WorkflowState,
  Model extends boolean,
>(
  id: Id,
  state: State,
  modelExposed: Model,
): WorkflowDefinition<Id, InvoiceInputs, InvoiceOutputs, State, Model> {
  return {
    id,
    name: `Invoice intake ${id}`,
    environment: "test",
    state,
    revision: 1,
    modelExposed,
    models: modelExposed ? ["pro", "flash", "lite", "max"] : [],
    inputSchema: passThrough<InvoiceInputs>(),
    outputSchema: passThrough<InvoiceOutputs>(),
    validateInputs: validateInvoiceInputs,
    checkOutputs: checkInvoiceOutputs,
  };
}

export const invoiceIntake = defineInvoiceWorkflow("wf_invoice", "enabled", false);
export const invoiceIntakeWithModel = defineInvoiceWorkflow("wf_invoice_model", "enabled", true);
export const draftInvoice = defineInvoiceWorkflow("wf_draft", "draft", false);
export const disabledInvoice = defineInvoiceWorkflow("wf_disabled", "disabled", false);

/** A clock that never really waits: sleeps advance virtual time and are recorded. */
export function createVirtualClock(random = () => 0.5) {
  let time = 0;
  const sleeps: number[] = [];
  /** Each sleep's `pollingUntil` (undefined: a sleep to wake at its time). */
  const pollingUntil: (number | undefined)[] = [];
  /** Added to every sleep: a process suspended past its wake-up, a test clock that skipped on. */
  let oversleep = 0;
  return {
    sleeps,
    pollingUntil,
    oversleepBy: (ms: number) => {
      oversleep = ms;
    },
    now: () => time,
    random,
    sleep: async (ms: number, signal?: AbortSignal, options?: SleepOptions) => {
      if (signal?.aborted) throw signal.reason;
      sleeps.push(ms);
      pollingUntil.push(options?.pollingUntil);
      time += ms + oversleep;
    },
  };
}
