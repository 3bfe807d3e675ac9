// SSRF, and callbacks never leave the machine unless asked. Nothing here sends
// traffic off the machine: public destinations are IP literals that are held, never resolved.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkCallbackUrl } from "../../src/engine/callback-url.js";
import { deliveryTarget } from "../../src/engine/callbacks.js";
import { Receiver } from "./receiver.js";
import { Harness, type Json, PORTAL, portalBody, sleep } from "./support.js";

describe("callback_url in every IPv6 spelling of a private address", () => {
  it.each([
    "https://[::127.0.0.1]/cb",
    "https://[64:ff9b::7f00:1]/cb",
    "https://[64:ff9b::a00:1]/cb",
    "https://[2002:7f00:1::]/cb",
    "https://[2002:c0a8:101::]/cb",
    "https://[fec0::1]/cb",
    "https://[fd00::1]/cb",
    "https://[fc12:3456::1]/cb",
    "https://[::ffff:10.0.0.1]/cb",
    "https://[::ffff:192.168.1.1]/cb",
    "https://[::ffff:7f00:1]/cb",
    "https://[::]/cb",
    "https://[::1]/cb",
    "https://[fe80::1]/cb",
    "https://[2001::1]/cb",
  ])("refuses %s at launch", (url) => {
    expect(checkCallbackUrl(url, false).ok).toBe(false);
  });
  it.each([
    "https://[2606:4700:4700::1111]/cb",
    "https://[64:ff9b::808:808]/cb",
    "https://93.184.216.34/cb",
  ])("accepts the public %s", (url) => {
    expect(checkCallbackUrl(url, false).ok).toBe(true);
  });
});

describe("delivery targets", () => {
  it("checks names at delivery time: a name resolving to loopback is refused without local callbacks", async () => {
    const t = await deliveryTarget("https://localhost/cb", {
      allowLocal: false,
      deliverPublic: true,
    });
    expect(t.kind).toBe("refused");
  });
  it("holds public destinations by default and sends them only with deliverPublic", async () => {
    const held = await deliveryTarget("https://93.184.216.34/cb", {
      allowLocal: true,
      deliverPublic: false,
    });
    expect(held.kind).toBe("held");
    const held2 = await deliveryTarget("https://example.com/cb", {
      allowLocal: false,
      deliverPublic: false,
    });
    expect(held2.kind).toBe("held");
    const sent = await deliveryTarget("https://93.184.216.34/cb", {
      allowLocal: false,
      deliverPublic: true,
    });
    expect(sent).toMatchObject({ kind: "send", address: "93.184.216.34" });
  });
});

describe("held, forwarded and redirected deliveries", { timeout: 60_000 }, () => {
  let rx: Receiver;
  let redirector: Server;
  let redirectorUrl = "";
  beforeAll(async () => {
    rx = await Receiver.start();
    redirector = createServer((_req, res) => {
      res.writeHead(307, { location: rx.url("/after-redirect") });
      res.end();
    });
    await new Promise<void>((r) => redirector.listen(0, "127.0.0.1", () => r()));
    redirectorUrl = `http://127.0.0.1:${(redirector.address() as { port: number }).port}/redir`;
  });
  afterAll(async () => {
    await rx.close();
    await new Promise((r) => redirector.close(r));
  });

  async function runWithCallback(h: Harness, callback_url: string) {
    await h.scenario("production", PORTAL, { steps: [{ succeed: { outputs: {} } }] });
    const c = await h.client();
    const run = await c.start(PORTAL, portalBody({ callback_url }));
    let deliveries: Json[] = [];
    for (let i = 0; i < 200 && deliveries.length === 0; i++) {
      await h.advance(1000);
      await sleep(10);
      deliveries = (await h.callbacks()).filter((d: Json) => d.run_id === run.run_id);
    }
    return deliveries;
  }

  it("a public callback is recorded as held, not sent", async () => {
    const h = await Harness.start({ allowLocalCallbacks: true });
    try {
      const d = await runWithCallback(h, "https://93.184.216.34/hook");
      expect(d).toHaveLength(1);
      expect(d[0]).toMatchObject({ held: true, status: null, url: "https://93.184.216.34/hook" });
      expect(d[0].error).toContain("--deliver-public");
    } finally {
      await h.close();
    }
  });

  it("--forward-callbacks sends every delivery to the local receiver with the original URL", async () => {
    const h = await Harness.start({ forwardCallbacks: rx.url("/forwarded") });
    try {
      const d = await runWithCallback(h, "https://hooks.example.com/wfr");
      expect(d[0]).toMatchObject({ status: 200, forwarded_to: rx.url("/forwarded") });
      const got = rx.to("/forwarded");
      expect(got).toHaveLength(1);
      expect(got[0]?.headers["x-wfr-callback-url"]).toBe("https://hooks.example.com/wfr");
    } finally {
      await h.close();
    }
  });

  it("never follows a redirect", async () => {
    const h = await Harness.start({ allowLocalCallbacks: true });
    try {
      const d = await runWithCallback(h, redirectorUrl);
      expect(d[0]).toMatchObject({ status: 307 });
      await sleep(200);
      expect(rx.to("/after-redirect")).toHaveLength(0);
    } finally {
      await h.close();
    }
  });
});
