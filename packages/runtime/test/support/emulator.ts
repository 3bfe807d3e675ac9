// The real emulator in-process (packages/emulator, startEmulator on port 0)
// with a fresh key for the production environment.
import { type EmulatorOptions, type RunningEmulator, startEmulator } from "@wfr/emulator";

export interface TestEmulator {
  readonly emulator: RunningEmulator;
  readonly baseUrl: string;
  readonly apiKey: string;
  setScenario(workflowId: string, scenario: unknown): Promise<void>;
  close(): Promise<void>;
}

export const INVOICE_WORKFLOW_ID = "wf_P7Qd2Lx9";

export async function startTestEmulator(options: EmulatorOptions = {}): Promise<TestEmulator> {
  const emulator = await startEmulator({ port: 0, ...options });
  const keyResponse = await fetch(`${emulator.url}/_emulator/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ environment: "production", scopes: ["workflows:run", "runs:read"] }),
  });
  const { token } = (await keyResponse.json()) as { token: string };
  return {
    emulator,
    baseUrl: `${emulator.url}/production/api/v1`,
    apiKey: token,
    async setScenario(workflowId, scenario) {
      const response = await fetch(
        `${emulator.url}/_emulator/environments/production/workflows/${workflowId}/scenario`,
        {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(scenario),
        },
      );
      if (!response.ok) throw new Error(`scenario refused: ${await response.text()}`);
    },
    close: () => emulator.close(),
  };
}

/** Two checkpoints, then success with outputs both the emulator and the test definition accept. */
export const TWO_CHECKPOINTS = {
  steps: [
    { human: { kind: "approval", reason: "Amount above limit", instructions: "Approve?" } },
    { wait_ms: 20 },
    { human: { kind: "approval", reason: "Second sign-off", instructions: "Approve again?" } },
    {
      succeed: {
        outputs: { invoice_id: "INV-1", total: 1280.5, status: "booked", summary: "booked" },
      },
    },
  ],
  queue_ms: 10,
  start_ms: 10,
};
