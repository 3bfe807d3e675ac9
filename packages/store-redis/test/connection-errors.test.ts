// A Redis that is not there (restarting, the network gone): the client this package creates
// reports its connection errors to `onConnectionError`, never as ioredis's "Unhandled error
// event" on the process's stderr; the command itself fails with its own error.
import { createServer } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openRedisStores } from "../src/index.js";

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === "object" && address ? address.port : 0;
}

afterEach(() => vi.restoreAllMocks());

describe("connection errors of the client made from url", () => {
  it("go to onConnectionError (none printed as unhandled); a command fails with its own error", async () => {
    const printed = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const seen: Error[] = [];
    const stores = openRedisStores({
      url: `redis://127.0.0.1:${await closedPort()}`,
      redisOptions: { maxRetriesPerRequest: 1, retryStrategy: (times) => (times > 3 ? null : 10) },
      onConnectionError: (error) => seen.push(error),
    });
    try {
      await expect(stores.callbackEvents.claim("evt_1", 60_000)).rejects.toThrow();
      expect(seen.length).toBeGreaterThan(0);
      expect(seen[0]?.message).toMatch(/ECONNREFUSED/);
      expect(printed.mock.calls.flat().join(" ")).not.toMatch(/Unhandled error event/);
    } finally {
      await stores.close().catch(() => undefined);
    }
  });
});
