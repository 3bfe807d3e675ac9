// What a Redis restart does to the stores, with and without persistence.
import { type RedisServer, startRedisServer } from "@wfr/test-servers";
import { afterEach, describe, expect, it } from "vitest";
import { openRedisStores } from "../src/index.js";

describe("a Redis restart", () => {
  let server: RedisServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  const finishOneEventAndOneIntent = async (stores: ReturnType<typeof openRedisStores>) => {
    const claim = await stores.callbackEvents.claim("evt_1", 60_000);
    if (claim.outcome !== "claimed") throw new Error("expected a claim");
    await stores.callbackEvents.complete("evt_1", claim.token);
    await stores.launchJournal.record({
      intentId: "inv-1",
      idempotencyKey: "key-1",
      bodyFingerprint: "f",
    });
    await stores.launchJournal.markSent("inv-1");
  };

  it("without persistence loses everything: a finished event can be claimed again, a sent intent is forgotten", async () => {
    server = await startRedisServer();
    const stores = openRedisStores({ url: server.url });
    try {
      await finishOneEventAndOneIntent(stores);
      await server.restart();
      // The client reconnects by itself; the data is gone.
      expect((await stores.callbackEvents.claim("evt_1", 60_000)).outcome).toBe("claimed");
      expect(await stores.launchJournal.get("inv-1")).toBeUndefined();
    } finally {
      await stores.close();
    }
  });

  it("with appendonly and fsync always keeps finished events and intents", async () => {
    server = await startRedisServer({ appendOnly: true });
    const stores = openRedisStores({ url: server.url });
    try {
      await finishOneEventAndOneIntent(stores);
      await server.restart();
      expect((await stores.callbackEvents.claim("evt_1", 60_000)).outcome).toBe("done");
      expect(await stores.launchJournal.get("inv-1")).toMatchObject({
        state: "sent",
        idempotencyKey: "key-1",
      });
      expect((await stores.launchJournal.listUnacknowledged()).map((i) => i.intentId)).toEqual([
        "inv-1",
      ]);
    } finally {
      await stores.close();
    }
  });
});
