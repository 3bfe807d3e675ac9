// The stores against a real Redis server started for this file.
import { randomUUID } from "node:crypto";
import { type RedisServer, startRedisServer } from "@wfr/test-servers";
import { verifyCallbackEventStore, verifyLaunchJournal } from "@wfr/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRedisStores } from "../src/index.js";

let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await server?.stop();
});
// Each test gets its own key prefix, so it starts from an empty store.
const open = () => openRedisStores({ url: server.url, keyPrefix: `t-${randomUUID()}:` });

it("launch journal conformance", async () => {
  await verifyLaunchJournal(async () => {
    const stores = open();
    return { journal: stores.launchJournal, close: () => stores.close() };
  });
});
it("callback event store conformance", async () => {
  const stores = open();
  try {
    expect(typeof stores.callbackEvents.extend).toBe("function");
    await verifyCallbackEventStore(() => stores.callbackEvents);
  } finally {
    await stores.close();
  }
});

describe("Redis specifics", () => {
  it("a finished event id expires after the retention (the key carries a TTL)", async () => {
    const stores = openRedisStores({
      url: server.url,
      keyPrefix: "ttl:",
      callbackRetentionMs: 90_000,
    });
    try {
      const claim = await stores.callbackEvents.claim("evt", 60_000);
      if (claim.outcome !== "claimed") throw new Error("expected a claim");
      await stores.callbackEvents.complete("evt", claim.token);
      const ttl = await stores.client.pttl("ttl:callback-event:evt");
      expect(ttl).toBeGreaterThan(60_000);
      expect(ttl).toBeLessThanOrEqual(90_000);
    } finally {
      await stores.close();
    }
  });

  it("refuses a URL it does not understand without echoing it", () => {
    expect(() => openRedisStores({ url: "http://user:secret@host" })).toThrow(/^url: expected/);
    expect(() => openRedisStores({ url: "http://user:secret@host" })).not.toThrow(/secret/);
  });
});
