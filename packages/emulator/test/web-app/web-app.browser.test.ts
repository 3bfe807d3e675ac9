// The web application as a developer uses it, in headless Chromium against a real emulator:
// sign in with the printed link, launch through the API and watch the run appear, answer its
// checkpoint in the page, play the recording, resend a callback; keys, vault, workflows, docs.

import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../src/index.js";
import { Receiver } from "../conformance/receiver.js";
import { BOTH_SCOPES, http, PORTAL, portalBody } from "../conformance/support.js";
import { launchChromium } from "./browser.js";

// `WFR_UPDATE_SCREENSHOTS=1` refreshes the README's pictures; a plain run writes to a temp folder
// so that it changes no committed file.
const SCREENSHOTS = process.env.WFR_UPDATE_SCREENSHOTS
  ? fileURLToPath(new URL("../../docs/screenshots/", import.meta.url))
  : mkdtempSync(join(tmpdir(), "emulator-screenshots-"));
const VAULT_VALUE = "vault-value-never-shown-8c1f";
const WAIT = { timeout: 60_000 };

let emu: RunningEmulator;
let receiver: Receiver;
let browser: Browser;
let page: Page;
let key: string;

async function adminKey(scopes = BOTH_SCOPES): Promise<string> {
  const r = await http("POST", `${emu.url}/_emulator/keys`, { environment: "production", scopes });
  return r.body.token as string;
}

function api(method: string, path: string, body?: unknown, token = key) {
  return http(method, `${emu.url}/production/api/v1${path}`, body, {
    authorization: `Bearer ${token}`,
  });
}

/** Poll a condition on the test's side (no timing is asserted: only the generous bound). */
async function until(pred: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error("condition not reached");
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function shot(name: string): Promise<void> {
  // A key shown once is masked: no secret in a committed picture.
  await page.screenshot({
    path: join(SCREENSHOTS, `${name}.png`),
    fullPage: true,
    mask: [page.locator("#new-key")],
  });
}

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  receiver = await Receiver.start();
  emu = await startEmulator({
    allowLocalCallbacks: true,
    vault: { production: { erp_password: VAULT_VALUE } },
  });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  key = await adminKey();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await emu?.close();
  await receiver?.close();
  if (!process.env.WFR_UPDATE_SCREENSHOTS) rmSync(SCREENSHOTS, { recursive: true, force: true });
});

describe("web application in Chromium", () => {
  it("refuses pages without a session and signs in once with the printed link", async () => {
    const before = await page.goto(`${emu.url}/`);
    expect(before?.status()).toBe(401);
    await expect(page.locator("h1").textContent()).resolves.toBe("Sign in");
    await shot("sign-in");
    const signIn = await page.goto(emu.signInUrl);
    expect(signIn?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe("/");
    await expect(page.locator("h1").textContent()).resolves.toBe("Run history");
    // The link works once: a second browser cannot reuse it.
    const other = await browser.newPage();
    const reuse = await other.goto(emu.signInUrl);
    expect(reuse?.status()).toBe(401);
    await other.close();
  }, 120_000);

  it("shows a launched run live, takes the person's answer, plays the recording and resends a callback", async () => {
    await page.goto(`${emu.url}/`);
    const launched = await api(
      "POST",
      `/automations/${PORTAL}/runs`,
      portalBody({
        callback_url: receiver.url("/hook"),
        metadata: { note: "<script>window.__xss = 1</script>" },
      }),
    );
    expect(launched.status).toBe(202);
    const runId = launched.body.run_id as string;
    // Appears without a reload, then reaches its checkpoint.
    await page.waitForSelector(
      `tr[data-run-id="${runId}"][data-status="waiting_for_human_live"]`,
      WAIT,
    );
    await shot("runs");
    await page.click(`a[href$="/${runId}"]`);
    await page.waitForSelector("text=A person is needed", WAIT);
    // Markup from a caller's metadata is shown as text, never run.
    expect(
      await page.evaluate(() => (window as unknown as { __xss?: number }).__xss),
    ).toBeUndefined();
    expect(
      await page.locator("pre.json", { hasText: "<script>window.__xss = 1</script>" }).count(),
    ).toBe(1);
    await shot("run-waiting");
    // Keyboard only: focus the answer, type, Tab to the button, Enter.
    await page.focus("#answer-response");
    await page.keyboard.press("Control+A");
    await page.keyboard.type('"246810"');
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.waitForSelector("text=Answer accepted", WAIT);
    // The run finishes and the page refreshes itself.
    await page.waitForSelector("#run-status >> text=succeeded", WAIT);
    // The refresh keeps the message the person's own action produced.
    expect(await page.locator("text=Answer accepted").count()).toBe(1);
    const status = await api("GET", `/runs/${runId}`);
    expect(status.body.status).toBe("succeeded");
    const answered = (await api("GET", `/runs/${runId}/events`)).body.events.some(
      (e: { type: string }) => e.type === "human.answered",
    );
    expect(answered).toBe(true);

    // The recording plays in a <video> element.
    const video = await page.$eval(
      "video",
      (v: HTMLVideoElement) =>
        new Promise<{ readyState: number; duration: number; error: number | null }>((resolve) => {
          const done = () =>
            resolve({
              readyState: v.readyState,
              duration: v.duration,
              error: v.error?.code ?? null,
            });
          if (v.readyState >= 1) done();
          v.addEventListener("loadedmetadata", done);
          v.addEventListener("error", done);
          v.load();
        }),
    );
    expect(video.error).toBeNull();
    expect(video.readyState).toBeGreaterThanOrEqual(1);
    expect(video.duration).toBeGreaterThan(0);

    // The completion callback arrived; resend it from the page and see the second attempt.
    await until(() => receiver.deliveries.some((d) => d.body?.type === "workflow.run.completed"));
    await page.reload();
    const eventId = receiver.deliveries.find((d) => d.body?.type === "workflow.run.completed")?.body
      .event_id as string;
    await page.waitForSelector(`tr[data-event-id="${eventId}"]`, WAIT);
    await page.click(`tr[data-event-id="${eventId}"] button:has-text("Resend")`);
    await page.waitForSelector(`text=callback ${eventId} resent`, WAIT);
    await until(() => receiver.deliveries.filter((d) => d.body?.event_id === eventId).length === 2);
    await page.reload();
    await page.waitForSelector(`tr[data-event-id="${eventId}"] li:nth-child(2)`, WAIT);
    await shot("run-detail");

    // Playing and downloading the recording in the web app leaves the API's hourly budget whole.
    for (let i = 0; i < 3; i++) {
      const r = await page.request.get(`${emu.url}/_app/runs/production/${runId}/recording.mp4`);
      expect(r.status()).toBe(200);
    }
    for (let i = 0; i < 10; i++) {
      const r = await api("GET", `/runs/${runId}/recording`);
      expect(r.status).toBe(200);
    }
    expect((await api("GET", `/runs/${runId}/recording`)).status).toBe(429);
  }, 180_000);

  it("creates a key shown once, uses it, and revokes it", async () => {
    await page.goto(`${emu.url}/_app/keys`);
    await page.selectOption('select[name="environment"]', "production");
    await page.uncheck('input[name="scopes"][value="workflows:run"]');
    await page.click('button:has-text("Create key")');
    const token = (await page.locator("#new-key").textContent()) ?? "";
    expect(token).toMatch(/^wfr_test_/);
    await shot("keys");
    // Scopes are what the form said: read yes, launch no.
    expect((await api("GET", "/runs/run_missing", undefined, token)).status).toBe(404);
    expect((await api("POST", `/automations/${PORTAL}/runs`, portalBody(), token)).status).toBe(
      403,
    );
    // Shown once: the list has no key values.
    await page.goto(`${emu.url}/_app/keys`);
    expect(await page.content()).not.toContain(token);
    const rows = page.locator("tr", { has: page.locator('button:has-text("Revoke")') });
    const before = await rows.count();
    await rows.last().locator("button").click();
    await page.waitForURL(`${emu.url}/_app/keys`);
    expect(await rows.count()).toBe(before - 1);
    expect((await api("GET", "/runs/run_missing", undefined, token)).status).toBe(401);
  }, 120_000);

  it("disables and enables a workflow, lists vault names without values, offers the definition", async () => {
    await page.goto(`${emu.url}/_app/workflows`);
    await page.click(`tr[data-workflow-id="${PORTAL}"] button:has-text("Disable")`);
    await page.waitForSelector(`tr[data-workflow-id="${PORTAL}"] button:has-text("Enable")`, WAIT);
    expect((await api("POST", `/automations/${PORTAL}/runs`, portalBody())).body.code).toBe(
      "WORKFLOW_NOT_ENABLED",
    );
    await shot("workflows");
    await page.click(`tr[data-workflow-id="${PORTAL}"] button:has-text("Enable")`);
    await page.waitForSelector(`tr[data-workflow-id="${PORTAL}"] button:has-text("Disable")`, WAIT);
    expect((await api("POST", `/automations/${PORTAL}/runs`, portalBody())).status).toBe(202);

    await page.goto(`${emu.url}/_app/vault`);
    expect(await page.locator("code", { hasText: "erp_password" }).count()).toBeGreaterThan(0);
    await shot("vault");
    for (const path of ["/", "/_app/vault", "/_app/workflows", "/_app/docs", "/_app/keys"]) {
      await page.goto(`${emu.url}${path}`);
      expect(await page.content()).not.toContain(VAULT_VALUE);
    }

    await page.goto(`${emu.url}/_app/docs/production`);
    const json = await page.request.get(
      (await page.locator('a:has-text("openapi.json")').getAttribute("href")) ?? "",
    );
    expect(json.status()).toBe(200);
    expect((await json.json()).openapi).toMatch(/^3\./);
    const yaml = await page.request.get(
      (await page.locator('a:has-text("openapi.yaml")').getAttribute("href")) ?? "",
    );
    expect(await yaml.text()).toMatch(/^openapi: /m);
    await shot("api-docs");
  }, 120_000);

  it("a person makes an agent token, enables the agent's draft, and sees its run marked mcp", async () => {
    await page.goto(`${emu.url}/_app/tokens`);
    await page.selectOption('select[name="environment"]', "production");
    await page.click('button:has-text("Create token")');
    const token = (await page.locator("#new-key").textContent()) ?? "";
    expect(token).toMatch(/^wfr_pat_/);
    await shot("tokens");
    const transport = new StreamableHTTPClientTransport(new URL(`${emu.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    const agent = new Client({ name: "web-app-test", version: "1.0.0" });
    await agent.connect(transport);
    try {
      const call = async (name: string, args: Record<string, unknown>) =>
        (await agent.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as {
          isError?: boolean;
          structuredContent?: Record<string, unknown>;
        };
      const saved = await call("save_workflow", {
        name: "Agent drafted check",
        inputs: [{ name: "vendor", type: "text", required: true }],
        outputs: [{ name: "ok", type: "boolean" }],
      });
      expect(saved.isError).toBeFalsy();
      const draftId = saved.structuredContent?.id as string;
      const launch = {
        workflow_id: draftId,
        inputs: { vendor: "Acme" },
        idempotency_key: "agent-web-1",
      };
      expect((await call("launch_run", launch)).isError).toBe(true);
      // Enabling the draft is the person's action, in the page.
      await page.goto(`${emu.url}/_app/workflows`);
      const row = page.locator(`tr[data-workflow-id="${draftId}"]`);
      expect(await row.locator("td").nth(1).textContent()).toBe("draft");
      await row.locator('button:has-text("Enable")').click();
      await page.waitForSelector(
        `tr[data-workflow-id="${draftId}"] button:has-text("Disable")`,
        WAIT,
      );
      const started = await call("launch_run", launch);
      expect(started.isError).toBeFalsy();
      const runId = started.structuredContent?.run_id as string;
      await page.goto(`${emu.url}/?q=${runId}`);
      await page.waitForSelector(`tr[data-run-id="${runId}"]`, WAIT);
      expect(await page.locator(`tr[data-run-id="${runId}"] td`).nth(4).textContent()).toBe("mcp");
    } finally {
      await agent.close();
    }
    // Revoked in the page: the endpoint refuses the token.
    await page.goto(`${emu.url}/_app/tokens`);
    await page.locator('tr:has(button:has-text("Revoke"))').last().locator("button").click();
    await page.waitForURL(`${emu.url}/_app/tokens`);
    const refused = await fetch(`${emu.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
    });
    expect(refused.status).toBe(401);
  }, 180_000);

  it("refuses forms from another site or without the CSRF token", async () => {
    const cookies = await page.context().cookies();
    const cookie = cookies.map((c) => `${c.name}=${c.value}`).join("; ");
    const post = (headers: Record<string, string>, body: string) =>
      fetch(`${emu.url}/_app/keys`, {
        method: "POST",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded", ...headers },
        body,
        redirect: "manual",
      });
    expect((await post({}, "environment=production&scopes=runs:read")).status).toBe(403);
    expect(
      (
        await post(
          { origin: "https://attacker.example" },
          "environment=production&scopes=runs:read",
        )
      ).status,
    ).toBe(403);
    expect(
      (await post({ "sec-fetch-site": "cross-site" }, "environment=production&scopes=runs:read"))
        .status,
    ).toBe(403);
    // A rebinding page naming another Host never gets the run history.
    const rebound = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${emu.url}/`,
        { headers: { cookie, host: "attacker.example" } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(rebound).toBe(421);
  }, 60_000);
});
