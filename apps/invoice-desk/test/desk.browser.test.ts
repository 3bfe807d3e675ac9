// The desk as an operator uses it, in headless Chromium, against the emulator:
// sign in, upload, see the run appear, answer the checkpoint, see the result,
// play the recording. Screenshots of every page go to docs/screenshots.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningEmulator, startEmulator } from "@wfr/emulator";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningDesk, startDesk } from "../src/desk.js";
import { launchChromium } from "./support/browser.js";
import { prepareEmulator } from "./support/emulator-setup.js";

// `pnpm --filter @wfr/invoice-desk screenshots` refreshes the README's pictures; a plain test run
// writes them to a temporary folder so that it changes no committed file.
const SCREENSHOTS = process.env.DESK_UPDATE_SCREENSHOTS
  ? fileURLToPath(new URL("../docs/screenshots/", import.meta.url))
  : mkdtempSync(join(tmpdir(), "desk-screenshots-"));
const PDF = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");

let emulator: RunningEmulator;
let desk: RunningDesk;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let dataDir: string;
let apiKey: string;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  ({ apiKey } = await prepareEmulator(emulator.url));
  dataDir = mkdtempSync(join(tmpdir(), "desk-test-"));
  desk = await startDesk({
    baseUrl: `${emulator.url}/production/api/v1`,
    apiKey,
    pgliteDir: dataDir,
    operator: { username: "ana", password: "correct horse battery" },
    pollIntervalMs: 300,
    log: () => undefined,
  });
  chromium = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
});

afterAll(async () => {
  await chromium?.close();
  await desk?.close();
  await emulator?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  if (!process.env.DESK_UPDATE_SCREENSHOTS) rmSync(SCREENSHOTS, { recursive: true, force: true });
});

async function signIn(page: Page, password = "correct horse battery") {
  await page.goto(`${desk.url}/`);
  await page.getByLabel("Name").fill("ana");
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

async function upload(page: Page, invoiceId: string, screenshot?: string) {
  await page.getByRole("link", { name: "Upload", exact: true }).click();
  await page.getByLabel("Invoice number").fill(invoiceId);
  await page.getByLabel("Vendor").fill("Northwind Traders");
  await page.getByLabel("Amount").fill("1280.50");
  await page
    .getByLabel("Invoice PDF")
    .setInputFiles({ name: `${invoiceId}.pdf`, mimeType: "application/pdf", buffer: PDF });
  if (screenshot) await page.screenshot({ path: join(SCREENSHOTS, screenshot) });
  await page.getByRole("button", { name: "Upload and launch" }).click();
}

describe("invoice desk in a browser", () => {
  it("a wrong password is refused; the right one signs in", async () => {
    const page = await chromium.browser.newPage();
    await page.goto(`${desk.url}/`);
    await page.screenshot({ path: join(SCREENSHOTS, "sign-in.png") });
    await signIn(page, "wrong");
    await expect(page.getByRole("alert").textContent()).resolves.toContain(
      "Wrong name or password",
    );
    await signIn(page);
    await expect(page.getByRole("heading", { name: "Invoices" }).isVisible()).resolves.toBe(true);
    await page.close();
  });

  it("upload -> run appears -> answer the checkpoint -> typed result -> recording plays", async () => {
    const page = await chromium.browser.newPage();
    await signIn(page);
    await upload(page, "INV-1042", "upload.png");
    await page.waitForURL(/\/invoices\/INV-1042$/);

    // The list shows it with a live status.
    await page.goto(`${desk.url}/`);
    await page.locator('tr[data-invoice="INV-1042"]').waitFor();
    await page
      .locator('tr[data-invoice="INV-1042"] .status-waiting_for_human_live')
      .waitFor({ timeout: 60_000 });
    await page.screenshot({ path: join(SCREENSHOTS, "invoices.png") });

    await page.getByRole("link", { name: "INV-1042" }).click();
    await expect(
      page.getByRole("heading", { name: "A person is needed" }).isVisible(),
    ).resolves.toBe(true);
    await expect(
      page.getByText("Amount is above the auto-approval limit").isVisible(),
    ).resolves.toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, "checkpoint.png") });
    // The API key stays on the server: not in any page the operator is sent.
    expect(await page.content()).not.toContain(apiKey);
    await page.getByLabel("Approve").check();
    await page.getByLabel("Note").fill("Matches the PO");
    await page.getByRole("button", { name: "Send answer" }).click();
    await expect(page.getByRole("status").textContent()).resolves.toContain("Answer sent");

    // The polling fallback brings the terminal result.
    for (let i = 0; i < 200; i++) {
      await page.goto(`${desk.url}/invoices/INV-1042`);
      if (await page.getByRole("heading", { name: "Result" }).isVisible()) break;
      await page.waitForTimeout(300);
    }
    await expect(page.locator(".status-succeeded").first().isVisible()).resolves.toBe(true);
    const outputNames = await page.locator("section:has(h2:text('Result')) dt").allTextContents();
    expect(outputNames).toEqual(expect.arrayContaining(["invoice_id", "total", "status"]));

    // A file output downloads through the reference the result gave, via the desk.
    const receipt = await page.request.get(`${desk.url}/invoices/INV-1042/files/receipt`);
    expect(receipt.status()).toBe(200);
    expect(receipt.headers()["content-disposition"]).toMatch(/^attachment; filename=/);

    await page.getByRole("button", { name: "Fetch the recording" }).click();
    const video = page.locator("video");
    await video.waitFor();
    const duration = await video.evaluate(
      (element: HTMLVideoElement) =>
        new Promise<number>((resolve, reject) => {
          if (element.readyState >= 1) resolve(element.duration);
          element.addEventListener("loadedmetadata", () => resolve(element.duration));
          element.addEventListener("error", () =>
            reject(new Error(`video error ${element.error?.code}`)),
          );
        }),
    );
    expect(duration).toBeGreaterThan(0);
    await page.screenshot({ path: join(SCREENSHOTS, "result.png"), fullPage: true });
    expect(await page.content()).not.toContain(apiKey);
    await page.close();
  });

  it("a second operator answering the same checkpoint differently gets the conflict explained", async () => {
    const first = await chromium.browser.newContext();
    const second = await chromium.browser.newContext();
    const a = await first.newPage();
    const b = await second.newPage();
    await signIn(a);
    await signIn(b);
    await upload(a, "INV-2001");
    await a.waitForURL(/INV-2001$/);
    for (let i = 0; i < 200; i++) {
      await a.goto(`${desk.url}/invoices/INV-2001`);
      if (await a.getByRole("heading", { name: "A person is needed" }).isVisible()) break;
      await a.waitForTimeout(300);
    }
    await b.goto(`${desk.url}/invoices/INV-2001`);
    await a.getByLabel("Approve").check();
    await b.getByLabel("Reject").check();
    await a.getByRole("button", { name: "Send answer" }).click();
    await expect(a.getByRole("status").textContent()).resolves.toContain("Answer sent");
    await b.getByRole("button", { name: "Send answer" }).click();
    const message = await b.getByRole("status").textContent();
    expect(message).toMatch(/already accepted|no longer waiting/);
    await b.screenshot({ path: join(SCREENSHOTS, "answer-conflict.png") });
    await first.close();
    await second.close();
  });

  it("a form posted without the session's CSRF token is refused", async () => {
    const context = await chromium.browser.newContext();
    const page = await context.newPage();
    await signIn(page);
    const status = await page.evaluate(async () => {
      const body = new FormData();
      body.set("invoice_id", "INV-CSRF");
      return (await fetch("/invoices", { method: "POST", body })).status;
    });
    expect(status).toBe(403);
    await context.close();
  });
});
