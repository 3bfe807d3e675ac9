// The emulator as the desk's tests and `pnpm desk` use it: a key, and an
// Invoice intake scenario with a person in the loop.
export const INVOICE_INTAKE_ID = "wf_P7Qd2Lx9";

const CHECKPOINT_SCENARIO = {
  session: "browser",
  recording: { mode: "ready" },
  steps: [
    { event: { type: "step.started", name: "book invoice" } },
    { wait_ms: 100 },
    {
      human: {
        kind: "approval",
        reason: "Amount is above the auto-approval limit",
        instructions: "Approve or reject the booking",
        expires_in_ms: 600_000,
      },
    },
    { wait_ms: 100 },
    { succeed: {} },
  ],
};

export async function prepareEmulator(emulatorUrl: string): Promise<{ apiKey: string }> {
  const admin = (path: string, method: string, body: unknown) =>
    fetch(`${emulatorUrl}/_emulator${path}`, {
      method,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const keyResponse = await admin("/keys", "POST", {
    environment: "production",
    scopes: ["workflows:run", "runs:read"],
  });
  if (!keyResponse.ok) throw new Error(`creating a key: HTTP ${keyResponse.status}`);
  const scenario = await admin(
    `/environments/production/workflows/${INVOICE_INTAKE_ID}/scenario`,
    "PUT",
    CHECKPOINT_SCENARIO,
  );
  if (!scenario.ok)
    throw new Error(`setting the scenario: HTTP ${scenario.status} ${await scenario.text()}`);
  return { apiKey: ((await keyResponse.json()) as { token: string }).token };
}
