// The callback receiver against deliveries that misbehave: one test per defect once found on
// main (each fails on the old code), and Standard Webhooks verification of what the emulator
// signs. The client's defects against loopback servers: loopback-defects.test.ts.
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createCallbackHandler, type RunEnvelope, verifyStandardWebhook } from "../src/index.js";

const envelope = (status: string, humanAction: unknown = null) => ({
  run_id: "run_1",
  workflow_id: "wf_1",
  status,
  timestamps: {},
  error: null,
  metadata: {},
  human_action: humanAction,
});

const runEnvelope = (status: string) => envelope(status) as unknown as RunEnvelope;
const apiSaying = (status: string) => ({
  getRun: async () => runEnvelope(status),
  getResult: async () =>
    (status === "running"
      ? { state: "pending", status }
      : {
          state: "terminal",
          status,
          serverStatus: status,
          error: null,
          metadata: {},
          outputs: {},
        }) as never,
});
const delivery = (eventId: string, extra: RequestInit = {}) =>
  new Request("https://receiver.example.com/wfr", {
    method: "POST",
    body: JSON.stringify({
      event_id: eventId,
      type: "workflow.run.completed",
      run: envelope("succeeded"),
      result: { status: "succeeded" },
    }),
    ...extra,
  });

describe("defect 6: the callback receiver acts only on what the API confirms", () => {
  it("a completed callback for a run the API still reports running is acknowledged, not acted on", async () => {
    let acted = 0;
    const handler = createCallbackHandler({
      client: apiSaying("running"),
      onCompleted: () => {
        acted += 1;
      },
    });
    const response = await handler(delivery("evt_running"));
    expect(response.status).toBe(200);
    expect(acted).toBe(0);
  });

  it("a body over the limit is refused (413) before it is read whole", async () => {
    let pulled = 0;
    const chunk = new Uint8Array(64 * 1024);
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        if (pulled > 10_000) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const handler = createCallbackHandler({ client: apiSaying("succeeded") });
    const response = await handler(
      new Request("https://receiver.example.com/wfr", {
        method: "POST",
        body: endless,
        duplex: "half",
      } as RequestInit),
    );
    expect(response.status).toBe(413);
    expect(pulled).toBeLessThan(100);
  });

  it("a redelivery during a slow handler is told to retry, so a failure of the first attempt does not lose the event", async () => {
    let finishFirst: (ok: boolean) => void = () => {};
    let calls = 0;
    const handler = createCallbackHandler({
      client: apiSaying("succeeded"),
      respondWithinMs: 50,
      onCompleted: async () => {
        calls += 1;
        if (calls === 1) {
          const ok = await new Promise<boolean>((resolve) => {
            finishFirst = resolve;
          });
          if (!ok) throw new Error("downstream failed");
        }
      },
    });
    const first = await handler(delivery("evt_slow"));
    expect(first.status).toBe(503);
    const duringProcessing = await handler(delivery("evt_slow"));
    expect(duringProcessing.status).toBeGreaterThanOrEqual(500);
    finishFirst(false);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const redelivered = await handler(delivery("evt_slow"));
    expect(redelivered.status).toBe(200);
    expect(calls).toBe(2);
  });
});

/** The emulator's `--webhook-secret` signing (packages/emulator/src/engine/callbacks.ts, signWebhook). */
function emulatorSignature(secret: string, id: string, timestamp: number, body: string) {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

describe("Standard Webhooks verification", () => {
  const secret = `whsec_${Buffer.from("emulator-test-secret-0123456789").toString("base64")}`;
  const body = JSON.stringify({
    event_id: "evt_sig",
    type: "workflow.run.completed",
    run: envelope("succeeded"),
  });
  const now = Math.floor(Date.now() / 1000);
  const headers = (signature: string, timestamp = now) =>
    new Headers({
      "webhook-id": "evt_sig",
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signature,
    });
  const bytes = new TextEncoder().encode(body);

  it("accepts what the emulator signs, among several signatures (key rotation)", async () => {
    const good = emulatorSignature(secret, "evt_sig", now, body);
    const result = await verifyStandardWebhook({
      secret: ["whsec_b2xkLXNlY3JldA==", secret],
      headers: headers(`v1,AAAA ${good}`),
      body: bytes,
    });
    expect(result.ok).toBe(true);
  });

  it("refuses a changed body, a wrong secret and a timestamp outside 5 minutes", async () => {
    const good = emulatorSignature(secret, "evt_sig", now, body);
    const tampered = new TextEncoder().encode(body.replace("succeeded", "failed"));
    expect(
      (await verifyStandardWebhook({ secret, headers: headers(good), body: tampered })).ok,
    ).toBe(false);
    expect(
      (
        await verifyStandardWebhook({
          secret: "whsec_b3RoZXI=",
          headers: headers(good),
          body: bytes,
        })
      ).ok,
    ).toBe(false);
    const old = now - 301;
    const oldSignature = emulatorSignature(secret, "evt_sig", old, body);
    expect(
      (await verifyStandardWebhook({ secret, headers: headers(oldSignature, old), body: bytes }))
        .ok,
    ).toBe(false);
  });

  it("the receiver rejects unsigned deliveries when a secret is configured", async () => {
    const handler = createCallbackHandler({
      client: apiSaying("succeeded"),
      webhookSecret: secret,
    });
    expect((await handler(delivery("evt_unsigned"))).status).toBe(401);
    const signed = await handler(
      new Request("https://receiver.example.com/wfr", {
        method: "POST",
        body,
        headers: headers(emulatorSignature(secret, "evt_sig", now, body)),
      }),
    );
    expect(signed.status).toBe(200);
  });
});
