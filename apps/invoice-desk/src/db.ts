// The desk's own tables, on the same engine as the shared stores: PGlite by
// default, PostgreSQL when DATABASE_URL is set. The SQL is the same on both.
import type { SqlClient } from "@wfr/store-postgres";

const DESK_MIGRATIONS = [
  `CREATE TABLE IF NOT EXISTS desk_operators (
     id            serial PRIMARY KEY,
     username      text NOT NULL UNIQUE,
     password_hash text NOT NULL
   )`,
  `CREATE TABLE IF NOT EXISTS desk_sessions (
     token_hash   text PRIMARY KEY,
     operator_id  integer NOT NULL REFERENCES desk_operators(id),
     csrf_token   text NOT NULL,
     expires_at   timestamptz NOT NULL
   )`,
  `CREATE TABLE IF NOT EXISTS desk_invoices (
     id             text PRIMARY KEY,
     vendor_name    text NOT NULL,
     amount         double precision NOT NULL,
     filename       text NOT NULL,
     pdf            bytea NOT NULL,
     created_at     timestamptz NOT NULL DEFAULT now(),
     run_id         text,
     status         text NOT NULL DEFAULT 'new',
     run            jsonb,
     result         jsonb,
     checked_at     timestamptz,
     launch_error   text
   )`,
  // The desk's one non-repeatable downstream action: telling the accounts team
  // that an invoice finished (here a row; in a real desk an e-mail or a chat
  // message). The shared callback store makes it happen once per event.
  `CREATE TABLE IF NOT EXISTS desk_notifications (
     event_id    text NOT NULL,
     invoice_id  text NOT NULL REFERENCES desk_invoices(id),
     status      text NOT NULL,
     instance    text NOT NULL,
     sent_at     timestamptz NOT NULL DEFAULT now()
   )`,
  `CREATE TABLE IF NOT EXISTS desk_recordings (
     invoice_id  text PRIMARY KEY REFERENCES desk_invoices(id),
     mime_type   text NOT NULL,
     bytes       bytea NOT NULL
   )`,
];

export async function migrateDesk(sql: SqlClient): Promise<void> {
  await sql.transaction(async (tx) => {
    // Several instances may start together against one PostgreSQL.
    await tx.query("SELECT pg_advisory_xact_lock(7706)");
    for (const statement of DESK_MIGRATIONS) await tx.query(statement);
  });
}

export interface InvoiceRow {
  id: string;
  vendor_name: string;
  amount: number;
  filename: string;
  created_at: Date | string;
  run_id: string | null;
  status: string;
  run: Record<string, unknown> | null;
  result: Record<string, unknown> | null;
  checked_at: Date | string | null;
  launch_error: string | null;
}

const INVOICE_COLUMNS =
  "id, vendor_name, amount, filename, created_at, run_id, status, run, result, checked_at, launch_error";

export function invoiceQueries(sql: SqlClient) {
  return {
    async insert(invoice: {
      id: string;
      vendorName: string;
      amount: number;
      filename: string;
      pdf: Uint8Array;
    }) {
      await sql.query(
        "INSERT INTO desk_invoices (id, vendor_name, amount, filename, pdf) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING",
        [invoice.id, invoice.vendorName, invoice.amount, invoice.filename, invoice.pdf],
      );
    },
    async list(): Promise<InvoiceRow[]> {
      const { rows } = await sql.query<InvoiceRow>(
        `SELECT ${INVOICE_COLUMNS} FROM desk_invoices ORDER BY created_at DESC, id LIMIT 200`,
      );
      return rows;
    },
    async get(id: string): Promise<InvoiceRow | undefined> {
      const { rows } = await sql.query<InvoiceRow>(
        `SELECT ${INVOICE_COLUMNS} FROM desk_invoices WHERE id = $1`,
        [id],
      );
      return rows[0];
    },
    async pdf(id: string): Promise<{ filename: string; pdf: Uint8Array } | undefined> {
      const { rows } = await sql.query<{ filename: string; pdf: Uint8Array }>(
        "SELECT filename, pdf FROM desk_invoices WHERE id = $1",
        [id],
      );
      return rows[0];
    },
    async byRun(runId: string): Promise<InvoiceRow | undefined> {
      const { rows } = await sql.query<InvoiceRow>(
        `SELECT ${INVOICE_COLUMNS} FROM desk_invoices WHERE run_id = $1`,
        [runId],
      );
      return rows[0];
    },
    async setRun(id: string, runId: string, status: string, run: unknown) {
      await sql.query(
        "UPDATE desk_invoices SET run_id = $2, status = $3, run = $4, launch_error = NULL, checked_at = now() WHERE id = $1",
        [id, runId, status, JSON.stringify(run)],
      );
    },
    async setLaunchError(id: string, message: string) {
      await sql.query(
        "UPDATE desk_invoices SET launch_error = $2, status = 'launch_failed' WHERE id = $1",
        [id, message],
      );
    },
    async setResult(id: string, status: string, run: unknown, result: unknown) {
      await sql.query(
        "UPDATE desk_invoices SET status = $2, run = $3, result = $4, checked_at = now() WHERE id = $1",
        [id, status, JSON.stringify(run), result === undefined ? null : JSON.stringify(result)],
      );
    },
    /** Runs not yet terminal whose last check is older than `olderThanMs`: the polling fallback's work. */
    async stale(olderThanMs: number): Promise<InvoiceRow[]> {
      const { rows } = await sql.query<InvoiceRow>(
        `SELECT ${INVOICE_COLUMNS} FROM desk_invoices
          WHERE run_id IS NOT NULL AND result IS NULL
            AND (checked_at IS NULL OR checked_at < now() - $1 * interval '1 millisecond')
          ORDER BY checked_at NULLS FIRST LIMIT 50`,
        [olderThanMs],
      );
      return rows;
    },
    async unlaunched(): Promise<InvoiceRow[]> {
      const { rows } = await sql.query<InvoiceRow>(
        `SELECT ${INVOICE_COLUMNS} FROM desk_invoices WHERE run_id IS NULL AND status IN ('new', 'launch_failed') ORDER BY created_at`,
      );
      return rows;
    },
    async notify(eventId: string, invoiceId: string, status: string, instance: string) {
      await sql.query(
        "INSERT INTO desk_notifications (event_id, invoice_id, status, instance) VALUES ($1, $2, $3, $4)",
        [eventId, invoiceId, status, instance],
      );
    },
    async notifications(
      invoiceId: string,
    ): Promise<{ event_id: string; status: string; instance: string }[]> {
      const { rows } = await sql.query<{ event_id: string; status: string; instance: string }>(
        "SELECT event_id, status, instance FROM desk_notifications WHERE invoice_id = $1 ORDER BY sent_at",
        [invoiceId],
      );
      return rows;
    },
    async saveRecording(id: string, mimeType: string, bytes: Uint8Array) {
      await sql.query(
        "INSERT INTO desk_recordings (invoice_id, mime_type, bytes) VALUES ($1, $2, $3) ON CONFLICT (invoice_id) DO NOTHING",
        [id, mimeType, bytes],
      );
    },
    async recording(id: string): Promise<{ mime_type: string; bytes: Uint8Array } | undefined> {
      const { rows } = await sql.query<{ mime_type: string; bytes: Uint8Array }>(
        "SELECT mime_type, bytes FROM desk_recordings WHERE invoice_id = $1",
        [id],
      );
      return rows[0];
    },
  };
}
export type InvoiceQueries = ReturnType<typeof invoiceQueries>;
