// Starting the desk: open the engine (PGlite or PostgreSQL), migrate, make
// sure an operator exists, serve, and run the polling fallback.
import { randomBytes } from "node:crypto";
import { IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { type Http2Bindings, type HttpBindings, serve } from "@hono/node-server";
import { nodeRequestBody } from "@wfr/runtime/node";
import { openPostgresStores } from "@wfr/store-postgres";
import { authQueries } from "./auth.js";
import { invoiceQueries, migrateDesk } from "./db.js";
import { defaultAllowedHosts, type LoginThrottle } from "./security.js";
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
  /**
   * The URL browsers use (`https://desk.example.com`): its host is allowed, and with https the
   * session cookie is Secure. Default: the listening address, plain http.
   */
  readonly publicUrl?: string | undefined;
  /** More host names (with port) to answer to; any other Host is refused (421). */
  readonly allowedHosts?: readonly string[];
  /** Behind a proxy you run: believe X-Forwarded-Proto and X-Forwarded-For. */
  readonly trustProxy?: boolean;
  /** Login throttling (default: 5 failures per account, 20 per address, then backoff from 1 s). */
  readonly loginThrottle?: LoginThrottle;
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
  // Deliveries that anyone could forge: say so loudly unless this is the emulator on loopback.
  if (!options.webhookSecret && options.callbackUrl && !isLoopbackUrl(options.baseUrl))
    log(
      "invoice-desk: WARNING: callbacks are accepted unsigned (no WFR_WEBHOOK_SECRET); anyone who can reach /callbacks/wfr can make the desk refresh and notify. Set the secret the service signs with.",
    );
  const publicUrl = options.publicUrl ? new URL(options.publicUrl) : undefined;
  let allowed: readonly string[] = [];
  const app = createDeskApp({
    auth,
    invoices,
    service,
    callbackStore: stores.callbackEvents,
    allowedHosts: () => allowed,
    ...(publicUrl ? { publicProtocol: publicUrl.protocol === "https:" ? "https" : "http" } : {}),
    ...(options.trustProxy ? { trustProxy: true } : {}),
    ...(options.loginThrottle ? { loginThrottle: options.loginThrottle } : {}),
    log,
  });
  const server = serve({
    fetch: withReadableRefusals(app.fetch),
    // The body's end is ours (`withReadableRefusals`): with @hono/node-server's own clean-up (at
    // most 500 ms or 64 MiB of draining, then the socket destroyed), a client streaming past the
    // sign-in's or a form's budget lost the connection before it read the 413.
    autoCleanupIncoming: false,
    port: options.port ?? 0,
    hostname: options.host ?? "127.0.0.1",
  });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const address = server.address() as AddressInfo;
  allowed = defaultAllowedHosts(options.host ?? "127.0.0.1", address.port, [
    ...(publicUrl ? [publicUrl.host] : []),
    ...(options.allowedHosts ?? []),
  ]);

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
      await app.drainCallbacks();
      await stores.close();
    },
  };
}

/**
 * What a client may still send once the desk has answered without reading all of its body (a
 * 413, a redirect to the sign-in): read and discarded, so the client reads the answer rather than
 * a reset (RFC 9112 §9.6), which retry policies would meet by uploading again. Past it, the
 * connection is cut. Ten times the largest budget, the PDF upload's (see docs/limits.md).
 */
const DISCARD_AFTER_ANSWER_BYTES = 256 * 1024 * 1024;

/**
 * The desk's handler with each request body read from the socket only as the handler asks (its
 * body limits bound what is held), and what the handler left unread discarded once it answered,
 * as `toNodeHandler` does for a callback receiver (`@wfr/runtime/node`).
 */
function withReadableRefusals(
  fetch: (request: Request, env: HttpBindings | Http2Bindings) => Response | Promise<Response>,
) {
  return async (request: Request, env: HttpBindings | Http2Bindings): Promise<Response> => {
    const { incoming } = env;
    // The desk serves HTTP/1.1 (`serve` without `createServer`): an HTTP/2 request is not rewrapped.
    if (
      request.method === "GET" ||
      request.method === "HEAD" ||
      !(incoming instanceof IncomingMessage)
    )
      return fetch(request, env);
    const body = nodeRequestBody(incoming, DISCARD_AFTER_ANSWER_BYTES);
    try {
      return await fetch(
        new Request(request.url, {
          method: request.method,
          headers: request.headers,
          body: body.stream,
          signal: request.signal,
          // A streamed request body (Fetch standard): Node requires saying it is half-duplex.
          duplex: "half",
        } as RequestInit),
        env,
      );
    } finally {
      if (!incoming.complete) body.discard();
    }
  };
}

function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === "localhost" || host === "[::1]" || /^127\./.test(host);
  } catch {
    return false;
  }
}
