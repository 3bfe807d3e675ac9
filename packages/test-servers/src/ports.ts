import { createServer } from "node:net";

/** A port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address
          ? resolve(address.port)
          : reject(new Error("no port was given")),
      );
    });
  });
}

/** Polls `ready` until it says yes; generous, since a loaded CI machine starts servers slowly. */
export async function waitUntil(
  ready: () => Promise<boolean> | boolean,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`not ready within ${timeoutMs} ms`);
}
