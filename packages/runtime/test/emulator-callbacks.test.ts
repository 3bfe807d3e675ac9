// The receiver against the real emulator: deliveries signed with
// --webhook-secret (Standard Webhooks) are verified, confirmed with the API
// and handled once; unsigned ones are refused.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type CallbackContext, createCallbackHandler, createClient } from "../src/index.js";
import { toNodeHandler } from "../src/node.js";
import { INVOICE_WORKFLOW_ID, startTestEmulator, type TestEmulator } from "./support/emulator.js";

const SECRET = `whsec_${Buffer.from("runtime-callback-test-secret-32b").toString("base64")}`;
let emu: TestEmulator;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  emu = await startTestEmulator({ allowLocalCallbacks: true, webhookSecret: SECRET });
});
afterAll(async () => {
  for (const close of closers.splice(0)) await close();
  await emu.close();
});

it("a signed workflow.run.completed from the emulator is verified, confirmed with the API and handled once", async () => {
  await emu.setScenario(INVOICE_WORKFLOW_ID, {
    steps: [{ succeed: {} }],
    queue_ms: 10,
    start_ms: 10,
  });
  const wfr = createClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey });
  const handled: CallbackContext[] = [];
  let resolveHandled: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    resolveHandled = resolve;
  });
  const statuses: number[] = [];
  const handler = createCallbackHandler({
    client: wfr,
    webhookSecret: SECRET,
    onCompleted: (context) => {
      handled.push(context);
    },
  });
  const server = createServer(
    toNodeHandler(async (request) => {
      const response = await handler(request);
      statuses.push(response.status);
      if (response.status === 200) resolveHandled();
      return response;
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;

  // Raw launch: the runtime itself refuses a loopback callback_url (spec: a
  // private or localhost address is not a public receiver); the emulator
  // accepts it with allowLocalCallbacks.
  const launch = await fetch(`${emu.baseUrl}/automations/${INVOICE_WORKFLOW_ID}/runs`, {
    method: "POST",
    headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({
      inputs: { vendor_name: "Cb", amount: 1, invoice_pdf: { attachment_id: "a1" } },
      input_context: {
        attachments: [
          { id: "a1", filename: "a.pdf", mimeType: "application/pdf", base64: "JVBERg==" },
        ],
      },
      callback_url: `http://127.0.0.1:${port}/wfr`,
    }),
  });
  expect(launch.status).toBe(202);
  const { run_id } = (await launch.json()) as { run_id: string };
  await Promise.race([
    done,
    new Promise((_, reject) =>
      setTimeout(() => reject(new Error("no callback handled in 60 s")), 60_000),
    ),
  ]);
  expect(handled).toHaveLength(1);
  expect(handled[0]?.run.run_id).toBe(run_id);
  expect(handled[0]?.run.status).toBe("succeeded");
  expect(handled[0]?.result).toMatchObject({ state: "terminal", status: "succeeded" });
  expect(statuses).toContain(200);
  expect(statuses).not.toContain(401);

  // The same body without the emulator's signature headers is refused.
  const unsigned = await fetch(`http://127.0.0.1:${port}/wfr`, {
    method: "POST",
    body: JSON.stringify({
      event_id: "evt_forged",
      type: "workflow.run.completed",
      run: { run_id },
    }),
  });
  expect(unsigned.status).toBe(401);
}, 120_000);
