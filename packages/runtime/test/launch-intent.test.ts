// `launch` with a launch journal, against the real emulator: the intent is
// recorded before sending; a relaunch of the same intent (after a crash, from
// any instance) gets the same run; a changed request for it is refused.
import {
  createClient,
  createMemoryLaunchJournal,
  fingerprintLaunchRequest,
  LaunchIntentConflictError,
} from "@wfr/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEmulator, type TestEmulator } from "./support/emulator.js";

const DRAFT_REPLY = "wf_P0ZrTt55";
let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu?.close();
});

describe("launch({ intent })", () => {
  it("records the intent, launches once, and a relaunch of the same intent returns the same run", async () => {
    const journal = createMemoryLaunchJournal();
    const wfr = createClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey });
    const options = {
      inputs: { ticket_url: "https://help.example.com/t/1" },
      metadata: { ticket: "t-1" },
      intent: { journal, id: "ticket-1" },
    };
    const first = await wfr.launch(DRAFT_REPLY, options);
    expect(await journal.get("ticket-1")).toMatchObject({
      state: "acknowledged",
      runId: first.run_id,
    });
    const second = await wfr.launch(DRAFT_REPLY, options);
    expect(second.run_id).toBe(first.run_id);
    expect(second.idempotencyKey).toBe(first.idempotencyKey);
  });

  it("after a crash between sending and acknowledging, the next instance resends the recorded key: same run", async () => {
    const journal = createMemoryLaunchJournal();
    const inputs = { ticket_url: "https://help.example.com/t/2" };
    // The crashed instance: it recorded, sent (the service accepted it), and died before acknowledging.
    const crashed = createClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey });
    const recorded = await journal.record({
      intentId: "ticket-2",
      idempotencyKey: "key-of-the-crashed-instance",
      bodyFingerprint: await fingerprintLaunchRequest({ workflowId: DRAFT_REPLY, inputs }),
    });
    await journal.markSent("ticket-2");
    const accepted = await crashed.launch(DRAFT_REPLY, {
      inputs,
      idempotencyKey: recorded.idempotencyKey,
    });
    // Another instance takes over.
    const survivor = createClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey });
    const resumed = await survivor.launch(DRAFT_REPLY, {
      inputs,
      intent: { journal, id: "ticket-2" },
    });
    expect(resumed.run_id).toBe(accepted.run_id);
    expect(await journal.listUnacknowledged()).toEqual([]);
  });

  it("a different request for a recorded intent is refused before anything is sent", async () => {
    const journal = createMemoryLaunchJournal();
    const wfr = createClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey });
    await wfr.launch(DRAFT_REPLY, {
      inputs: { ticket_url: "https://help.example.com/t/3" },
      intent: { journal, id: "ticket-3" },
    });
    await expect(
      wfr.launch(DRAFT_REPLY, {
        inputs: { ticket_url: "https://help.example.com/t/OTHER" },
        intent: { journal, id: "ticket-3" },
      }),
    ).rejects.toBeInstanceOf(LaunchIntentConflictError);
  });
});
