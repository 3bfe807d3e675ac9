// Every local check of a launch, before anything is sent (src/launch-request.ts).
import { describe, expect, it } from "vitest";
import {
  createClient,
  InputValidationError,
  InvalidInputsError,
  InvalidMetadataError,
  WorkflowNotEnabledError,
  WorkflowNotLaunchableError,
} from "../src/index.js";
import { draftInvoice, invoiceIntake } from "./support/fake-workflows.js";

const API_KEY = "wfr_live_SECRET123";
/** A fetch that fails the test if anything is sent. */
const noNetwork: typeof fetch = async () => {
  throw new Error("nothing should have been sent");
};
const offlineClient = () =>
  createClient({ baseUrl: "https://api.example.com/api/v1", apiKey: API_KEY, fetch: noNetwork });

describe("launch checks before sending", () => {
  it("Only an enabled workflow can be launched; a draft or disabled one cannot", async () => {
    const wfr = offlineClient();
    // @ts-expect-error a draft definition is rejected by the types too
    const launching = wfr.launch(draftInvoice, { inputs: { vendor_name: "A", amount: 1 } });
    const error = await launching.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowNotLaunchableError);
    expect(error).toBeInstanceOf(WorkflowNotEnabledError);
    expect((error as WorkflowNotEnabledError).code).toBe("WORKFLOW_NOT_ENABLED");
    expect((error as WorkflowNotLaunchableError).idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("Undeclared keys are rejected; missing required values are rejected: reported per field with INVALID_TYPE, REQUIRED, UNKNOWN_INPUT", async () => {
    const wfr = offlineClient();
    const badInputs = { vendor_name: 5, extra: true } as never; // the types reject these too (launch-types.test-d.ts)
    const error = await wfr
      .launch(invoiceIntake, { inputs: badInputs, idempotencyKey: "k-1" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputValidationError);
    expect(error).toBeInstanceOf(InvalidInputsError);
    expect((error as InputValidationError).code).toBe("INVALID_INPUTS");
    expect((error as InputValidationError).idempotencyKey).toBe("k-1");
    expect((error as InputValidationError).details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: "extra", reason: "UNKNOWN_INPUT" }),
        expect.objectContaining({ field: "vendor_name", reason: "INVALID_TYPE" }),
        expect.objectContaining({ field: "amount", reason: "REQUIRED" }),
      ]),
    );
  });

  it("metadata must be a JSON object (null, array, string, number, boolean are invalid)", async () => {
    for (const metadata of [null, [], "x", 1, true, new Date()]) {
      const error = await offlineClient()
        .launch("wf_any", { inputs: {}, metadata: metadata as never })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidMetadataError);
    }
  });

  it("idempotency_key | string, max 200 chars", async () => {
    const error = await offlineClient()
      .launch("wf_any", { inputs: {}, idempotencyKey: "k".repeat(201) })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "INVALID_IDEMPOTENCY_KEY" });
  });

  it("callback_url: a private or localhost address is not a public receiver (rejected before sending)", async () => {
    const error = await offlineClient()
      .launch("wf_any", { inputs: {}, callbackUrl: "https://169.254.169.254/x" })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "INVALID_CALLBACK_URL" });
  });
});
