import { randomUUID } from "node:crypto";

/** Claims and completes fresh event ids for `seconds` with `concurrency` in flight; returns the count. */
export async function claimLoop(stores, seconds, concurrency) {
  const until = Date.now() + seconds * 1000;
  let claims = 0;
  const prefix = randomUUID();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, lane) => {
      for (let i = 0; Date.now() < until; i++) {
        const id = `${prefix}-${lane}-${i}`;
        const claim = await stores.callbackEvents.claim(id, 60_000);
        if (claim.outcome !== "claimed") throw new Error(`fresh id ${id} was ${claim.outcome}`);
        if (!(await stores.callbackEvents.complete(id, claim.token))) throw new Error("fenced out");
        claims += 1;
      }
    }),
  );
  return claims;
}
