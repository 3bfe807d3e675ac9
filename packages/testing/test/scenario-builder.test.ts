// Typed scenarios: the JSON the emulator receives, and (checked by `tsc` in
// `pnpm typecheck`, which covers this file) the type errors a test gets for
// outputs that do not match the workflow's generated `Outputs`.
import { workflows } from "@wfr/generated/sample";
import { describe, expect, it } from "vitest";
import { scenario } from "../src/index.js";

const booked = { invoice_id: "INV-1", total: 12, status: "booked" } as const;

describe("scenario(workflow)", () => {
  it("writes the emulator's scenario format, step by step, without sharing state between builders", () => {
    const base = scenario(workflows.invoiceIntake).event("step.started", { name: "log in" });
    const built = base
      .wait(200)
      .checkpoint({
        kind: "approval",
        reason: "Amount above limit",
        instructions: "Approve?",
        stopCondition: "approved or rejected",
        expiresInMs: 600_000,
      })
      .succeed(booked)
      .recording({ mode: "processing", processingMs: 5_000 })
      .session("browser")
      .timing({ queueMs: 10, startMs: 20 })
      .toJSON();
    expect(built).toEqual({
      steps: [
        { event: { name: "log in", type: "step.started" } },
        { wait_ms: 200 },
        {
          human: {
            kind: "approval",
            reason: "Amount above limit",
            instructions: "Approve?",
            stop_condition: "approved or rejected",
            expires_in_ms: 600_000,
          },
        },
        { succeed: { outputs: booked } },
      ],
      recording: { mode: "processing", processing_ms: 5_000 },
      session: "browser",
      queue_ms: 10,
      start_ms: 20,
    });
    expect(base.toJSON().steps).toHaveLength(1);
    expect(
      scenario(workflows.invoiceIntake)
        .fail("failed", { code: "PORTAL_DOWN", message: "down" })
        .toJSON(),
    ).toEqual({
      steps: [{ fail: { status: "failed", error: { code: "PORTAL_DOWN", message: "down" } } }],
    });
  });

  it("outputs are typed by the workflow (the @ts-expect-error lines fail `tsc` if they stop being errors)", () => {
    const s = scenario(workflows.invoiceIntake);
    // @ts-expect-error `totl` is not an output of Invoice intake (misspelt `total`)
    s.succeed({ invoice_id: "INV-1", totl: 12, status: "booked" });
    // @ts-expect-error `total` is missing
    s.succeed({ invoice_id: "INV-1", status: "booked" });
    // @ts-expect-error `total` is a number, not text
    s.succeed({ invoice_id: "INV-1", total: "12", status: "booked" });
    // @ts-expect-error `status` is one of booked | needs_review | rejected
    s.succeed({ invoice_id: "INV-1", total: 12, status: "done" });
    // @ts-expect-error a scenario of one workflow cannot succeed with another's outputs
    s.succeed({ contact_id: "c-1" });
    expect(s.toJSON().steps).toHaveLength(0);
  });
});
