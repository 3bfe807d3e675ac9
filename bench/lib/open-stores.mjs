import { openPostgresStores } from "@wfr/store-postgres";
import { openRedisStores } from "@wfr/store-redis";

/** { engine: "postgres" | "redis" | "pglite", url?, schema?, dir? } -> the stores. */
export async function openStoresFor(env) {
  if (env.engine === "postgres")
    return openPostgresStores({ databaseUrl: env.url, schema: env.schema, maxConnections: 4 });
  if (env.engine === "redis") return openRedisStores({ url: env.url, keyPrefix: `${env.schema}:` });
  return openPostgresStores({ databaseUrl: `pglite:${env.dir}` });
}
