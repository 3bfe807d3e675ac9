// For child processes in tests: opens the Redis stores from the env.
import { openRedisStores } from "../../dist/index.js";

export async function openStores() {
  return openRedisStores({ url: process.env.WFR_REDIS_URL, keyPrefix: process.env.WFR_KEY_PREFIX });
}
