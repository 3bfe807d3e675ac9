// Starting the desk: open the engine (PGlite or PostgreSQL), migrate, make
// sure an operator exists, serve, and run the polling fallback.
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { openPostgresStores } from "@wfr/store-postgres";
import { authQueries } from "./auth.js";
import { invoiceQueries, migrateDesk } from "./db.js";
import { createDeskApp } from "./server.js";
import { createWorkflowService } from "./workflow-service.js";

export interface DeskOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** postgres://... ; omitted: PGlite in `pgliteDir`. */
  readonly databaseUrl?: string | undefined;
  readonly pgliteDir?: string;
  readonly port?: number;
  readonly host?: string;
  readonly callbackUrl?: string | undefined;
  readonly webhookSecret?: string | undefined;
  /** This instance's name in notifications. Default "desk". */
  readonly instance?: string;
  /** Created if missing. When no password is given, one is made and printed once. */
  readonly operator?: { readonly username: string; readonly password?: string | undefined };
  readonly pollIntervalMs?: number;
  readonly log?: (line: string) => void;
}

export interface RunningDesk {
  readonly url: string;
  readonly operator: { readonly username: string; readonly password: string | undefined };
  close(): Promise<void>;
}

export async function startDesk(options: DeskOptions): Promise<RunningDesk> {
  const log = options.log ?? ((line: string) => console.log(line));
  const stores = await openPostgresStores({
    databaseUrl: options.databaseUrl,
    pgliteDataDir: options.pgliteDir ?? ".wfr/invoice-desk",
  });
  await migrateDesk(stores.sql);
  const auth = authQueries(stores.sql);
  const invoices = invoiceQueries(stores.sql);
  const username = options.operator?.username ?? "operator";
  const password =
    options.operator?.password ??
    (options.operator ? undefined : randomBytes(9).toString("base64url"));
  if (password) await auth.ensureOperator(username, password);

  const service = createWorkflowService({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    journal: stores.launchJournal,
    invoices,
    callbackUrl: options.callbackUrl,
    webhookSecret: options.webhookSecret,
    instance: options.instance ?? "desk",
    log,
  });
  const app = createDeskApp({
    auth,
    invoices,
    service,
    callbackStore: stores.callbackEvents,
  });
  const server = serve({
    fetch: app.fetch,
    port: options.port ?? 0,
    hostname: options.host ?? "127.0.0.1",
  });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const address = server.address() as AddressInfo;

  // After a crash: invoices stored but never launched are launched now (same key, same run).
  await service.resumeUnlaunched();
  const pollIntervalMs = options.pollIntervalMs ?? 5_000;
  let polling = false;
  const poller = setInterval(() => {
    if (polling) return;
    polling = true;
    service.pollStale(pollIntervalMs).finally(() => {
      polling = false;
    });
  }, pollIntervalMs);
  poller.unref();

  return {
    url: `http://${options.host ?? "127.0.0.1"}:${address.port}`,
    operator: { username, password },
    async close() {
      clearInterval(poller);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await stores.close();
    },
  };
}
