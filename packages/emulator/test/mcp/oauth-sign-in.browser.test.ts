// The person's step of a connector's sign-in in headless Chromium: signed in to the web
// application with the one-time link, the person opens the link the MCP SDK's OAuth client
// produced, chooses the environment and allows; the browser follows the form's redirect to the
// connector's own redirect URI (the page's Content-Security-Policy must let the form's answer
// go there: browsers check form-action on the redirect too). The code it carries signs the
// connector in.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../src/index.js";
import { http } from "../conformance/support.js";
import { launchChromium } from "../web-app/browser.js";
import { ConnectorStore, REDIRECT } from "./oauth-connector.js";

let emu: RunningEmulator;
let base: string;
let browser: Browser;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  base = String(emu.url).replace(/\/$/, "");
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await emu?.close();
});

const connector = (store: ConnectorStore) => ({
  client: new Client({ name: "connector", version: "1.0.0" }),
  transport: new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: store }),
});

describe("a connector's sign-in, the person's step in Chromium", () => {
  it("sign in, choose the environment, allow: the browser lands on the connector's redirect URI with a code that works", async () => {
    const store = new ConnectorStore();
    const first = connector(store);
    await expect(first.client.connect(first.transport)).rejects.toThrow(/Unauthorized/);
    const authorizationUrl = String(store.authorizationUrl);

    const page = await browser.newPage();
    const signInLink = (await http("POST", `${base}/_emulator/sign-in-links`, {})).body
      .url as string;
    await page.goto(signInLink);
    await page.goto(authorizationUrl);
    await expect(
      page.getByRole("heading", { name: "Connect an agent" }).textContent(),
    ).resolves.toBe("Connect an agent");
    await page.getByLabel("Environment").selectOption("production");
    const landed = page.waitForRequest((request) => request.url().startsWith(REDIRECT), {
      timeout: 60_000,
    });
    await page.getByRole("button", { name: "Allow" }).click();
    const back = new URL((await landed).url());
    expect(back.searchParams.get("iss")).toBe(base);
    await page.close();

    await first.transport.finishAuth(back.searchParams.get("code") ?? "");
    const signedIn = connector(store);
    await signedIn.client.connect(signedIn.transport);
    const tools = await signedIn.client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain("wait_for_run");
    await signedIn.client.close();
  });
});
