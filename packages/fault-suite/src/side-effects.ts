// Where the receivers' side effects are counted: a table of the PostgreSQL receivers' own (one
// row per handled event, no unique key, so a second run of a handler is a second row) and the
// Redis receivers' files (one line per handled event). Read by the suite with its own
// connection, never through the stores under test.
import { existsSync, readFileSync } from "node:fs";
import pg from "pg";
import { countLines } from "./tally.js";

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** A schema for a stage's stores, made before the processes that migrate it start. */
export async function createSchema(url: string, schema: string): Promise<void> {
  await withClient(url, (client) => client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`));
}

/** The schema of a burst's stores and its side-effect table. */
export async function createEffectsTable(url: string, schema: string): Promise<void> {
  await createSchema(url, schema);
  await withClient(url, async (client) => {
    await client.query(
      `CREATE TABLE ${schema}.fault_side_effects (event_id text NOT NULL, run_id text NOT NULL, receiver text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())`,
    );
  });
}

/** Side effects per event id, from the table. */
export async function tableEffects(url: string, schema: string): Promise<Map<string, number>> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ event_id: string; n: number }>(
      `SELECT event_id, count(*)::int AS n FROM ${schema}.fault_side_effects GROUP BY event_id`,
    );
    return new Map(rows.map((row) => [row.event_id, row.n]));
  });
}

/** Side effects per event id, from the files. */
export function fileEffects(files: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const file of files) if (existsSync(file)) countLines(readFileSync(file, "utf8"), counts);
  return counts;
}
