// examples/embedded-live-view.ts in a real browser (Debian's Chromium through playwright-core):
// the page shows the run's live view through a browser-access grant bound to its origin, never
// holds the workspace key, and the same token is refused from any other origin.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type EmbeddedLiveViewExample,
  startEmbeddedLiveViewExample,
} from "../examples/embedded-live-view.js";
import { createClient, file, type WorkflowRunClient } from "../src/index.js";
import { INVOICE_WORKFLOW_ID, startTestEmulator, type TestEmulator } from "./support/emulator.js";

let emu: TestEmulator;
let wfr: WorkflowRunClient;
let example: EmbeddedLiveViewExample;
let browser: Browser;
let elsewhere: Server;

beforeAll(async () => {
  emu = await startTestEmulator();
  wfr = createClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey });
  await emu.setScenario(INVOICE_WORKFLOW_ID, {
    steps: [{ wait_ms: 120_000 }, { succeed: {} }],
    queue_ms: 10,
    start_ms: 10,
  });
  example = await startEmbeddedLiveViewExample(wfr);
  // Another site, on another loopback port: a different origin.
  elsewhere = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "text/html" }).end("<p>elsewhere</p>"),
  );
  await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await example?.close();
  await new Promise<void>((resolve) => (elsewhere ? elsewhere.close(() => resolve()) : resolve()));
  await emu?.close();
});

async function liveRun(): Promise<string> {
  const run = await wfr.launch(INVOICE_WORKFLOW_ID, {
    inputs: {
      vendor_name: "Northwind",
      amount: 5,
      invoice_pdf: file(new TextEncoder().encode("%PDF-1.4\n"), {
        filename: "inv.pdf",
        mimeType: "application/pdf",
      }),
    },
  });
  for (;;) {
    if ((await wfr.getRun(run.run_id)).session_id) return run.run_id;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("embedding the live view with a browser-access grant", { timeout: 120_000 }, () => {
  it("shows the run's live view in the page, with no workspace key in it", async () => {
    const runId = await liveRun();
    const page = await browser.newPage();
    await page.goto(`${example.origin}/runs/${runId}/watch`);
    await page.locator("#state", { hasText: "live" }).waitFor();
    const frame = page.frameLocator("#live");
    await expect(frame.locator("h1").textContent()).resolves.toBe(`Run ${runId}`);
    expect(await page.content()).not.toContain(emu.apiKey);
    await page.close();
    expect((await wfr.getRun(runId)).status).toBe("running");
  });

  it("the same token opens nothing from another origin (the grant is bound to the page's)", async () => {
    const runId = await liveRun();
    const page = await browser.newPage();
    await page.goto(`${example.origin}/runs/${runId}/watch`);
    await page.locator("#state", { hasText: "live" }).waitFor();
    const { liveViewUrl, token } = JSON.parse(
      (await page.locator("#config").textContent()) ?? "{}",
    ) as { liveViewUrl: string; token: string };
    const other = await browser.newPage();
    await other.goto(`http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/`);
    const outcome = await other.evaluate(
      async ([url, bearer]) => {
        try {
          const answer = await fetch(url as string, {
            headers: { authorization: `Bearer ${bearer}` },
          });
          return `status ${answer.status}`;
        } catch {
          return "blocked";
        }
      },
      [liveViewUrl, token],
    );
    // The emulator answers 403 ORIGIN_NOT_PERMITTED without CORS headers; Chromium hides it as a network error.
    expect(outcome).toBe("blocked");
    await page.close();
    await other.close();
  });
});
