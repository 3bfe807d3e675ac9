// The emulator set-up the demo runs against: a key for production and the
// invoice-intake scenario with two human checkpoints, so the demo shows the
// multi-checkpoint loop (docs/service-rules.md#human-checkpoints: a new checkpoint_id is a new wait).
export const ENVIRONMENT = "production";
const INVOICE_INTAKE_ID = "wf_P7Qd2Lx9";

const TWO_CHECKPOINT_SCENARIO = {
  steps: [
    { wait_ms: 150 },
    { event: { type: "step.completed", step: "open_erp_portal" } },
    {
      human: {
        kind: "approval",
        reason: "Amount is above the auto-approve limit",
        expires_in_ms: 60_000,
      },
    },
    { wait_ms: 150 },
    { event: { type: "step.completed", step: "match_purchase_order" } },
    {
      human: {
        kind: "approval",
        reason: "No purchase order matches this vendor: second sign-off",
        expires_in_ms: 60_000,
      },
    },
    { wait_ms: 150 },
    { succeed: {} },
  ],
  recording: { mode: "ready" },
};

async function admin(
  emulatorUrl: string,
  method: string,
  path: string,
  body: unknown,
): Promise<unknown> {
  const response = await fetch(`${emulatorUrl}/_emulator${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok)
    throw new Error(
      `emulator admin ${method} ${path}: HTTP ${response.status} ${await response.text()}`,
    );
  return response.json();
}

/** Creates a key for the environment and installs the two-checkpoint scenario; returns the key. */
export async function prepareEmulator(emulatorUrl: string): Promise<string> {
  const { token } = (await admin(emulatorUrl, "POST", "/keys", {
    environment: ENVIRONMENT,
    scopes: ["workflows:run", "runs:read"],
  })) as { token: string };
  await admin(
    emulatorUrl,
    "PUT",
    `/environments/${ENVIRONMENT}/workflows/${INVOICE_INTAKE_ID}/scenario`,
    TWO_CHECKPOINT_SCENARIO,
  );
  return token;
}
