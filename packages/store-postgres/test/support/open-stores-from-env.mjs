// For child processes in tests: opens the PostgreSQL stores from the env.
import { openPostgresStores } from "../../dist/index.js";

export function openStores() {
  return openPostgresStores({
    databaseUrl: process.env.WFR_DATABASE_URL,
    schema: process.env.WFR_SCHEMA,
  });
}
