// A worker process of the store-claims case: opens the store named in argv,
// waits for "go", claims and completes fresh event ids for the given seconds
// with 4 in flight, and reports the count.
import { claimLoop } from "./claim-loop.mjs";
import { openStoresFor } from "./open-stores.mjs";

const env = JSON.parse(process.argv[2]);
const stores = await openStoresFor(env);
process.send({ ready: true });
process.once("message", async () => {
  const claims = await claimLoop(stores, env.seconds, 4);
  await stores.close();
  process.send({ claims });
  process.exit(0);
});
