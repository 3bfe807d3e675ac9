// What a PostgreSQL restart (immediate shutdown, as a crash) does to the stores.
import { type PostgresServer, startPostgresServer } from "@wfr/test-servers";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openPostgresStores } from "../src/index.js";
import { freshSchema } from "./support/pg-fresh-schema.js";

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgresServer();
});
afterAll(async () => {
  await server?.stop();
});

it("keeps finished events and intents; the pool reconnects; an operation during the outage fails loudly", async () => {
  const stores = await openPostgresStores({ databaseUrl: server.url, schema: freshSchema() });
  try {
    const claim = await stores.callbackEvents.claim("evt_1", 60_000);
    if (claim.outcome !== "claimed") throw new Error("expected a claim");
    await stores.callbackEvents.complete("evt_1", claim.token);
    await stores.launchJournal.record({
      intentId: "inv-1",
      idempotencyKey: "key-1",
      bodyFingerprint: "f",
    });
    await stores.launchJournal.markSent("inv-1");

    await server.kill();
    // While the server is down an operation is an error, never a silent "claimed".
    await expect(stores.callbackEvents.claim("evt_2", 60_000)).rejects.toThrow();
    await server.restart();

    // The first query after a restart may meet a connection the server closed; a retry gets a new one.
    const claimAfter = async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await stores.callbackEvents.claim("evt_1", 60_000);
        } catch (error) {
          if (attempt >= 5) throw error;
        }
      }
    };
    expect((await claimAfter()).outcome).toBe("done");
    expect(await stores.launchJournal.get("inv-1")).toMatchObject({
      state: "sent",
      idempotencyKey: "key-1",
    });
  } finally {
    await stores.close();
  }
});
