// The desk's HTTP surface: Web-standard handlers on Hono. Every page but the
// sign-in needs a session; every form POST needs the session's CSRF token
// and a same-origin Origin header. The API key stays on the server.
import { getConnInfo } from "@hono/node-server/conninfo";
import { type CallbackEventStore, FileOutputDownloadRefusedError } from "@wfr/runtime";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { type authQueries, csrfTokenMatches, SESSION_COOKIE, type Session } from "./auth.js";
import { crashPoint } from "./crash.js";
import type { InvoiceQueries } from "./db.js";
import { type Html, renderHtml } from "./html.js";
import { invoiceDetailPage, invoiceListPage, invoiceRows, loginPage, uploadPage } from "./pages.js";
import { contentDisposition, hostAllowList, LoginThrottle, sameOriginPosts } from "./security.js";
import {
  readUploadForm,
  UploadBodyTooLargeError,
  UploadFormUnreadableError,
} from "./upload-form.js";
import type { WorkflowService } from "./workflow-service.js";

export interface DeskServerOptions {
  readonly auth: ReturnType<typeof authQueries>;
  readonly invoices: InvoiceQueries;
  readonly service: WorkflowService;
  readonly callbackStore: CallbackEventStore;
  /** Host names (with port) the desk answers to; anything else is 421 (DNS rebinding). */
  readonly allowedHosts: () => readonly string[];
  /**
   * How browsers reach the desk: "https" sets the session cookie's Secure flag and is the origin
   * forms must come from. Behind a TLS-terminating proxy, set it (or `trustProxy`).
   */
  readonly publicProtocol?: "http" | "https";
  /** Believe the proxy's X-Forwarded-Proto and X-Forwarded-For (only behind a proxy you run). */
  readonly trustProxy?: boolean;
  /** Failed sign-ins per account and per address, with backoff. */
  readonly loginThrottle?: LoginThrottle;
  readonly log?: (line: string) => void;
}

type Env = { Variables: { session: Session; sessionToken: string } };
const MAX_PDF_BYTES = 25 * 1024 * 1024; // the API's per-attachment limit
/** Bodies above these are refused (413) before anything is parsed. */
const BODY_LIMITS = {
  login: 16 * 1024,
  form: 64 * 1024,
  upload: MAX_PDF_BYTES + 64 * 1024,
  callback: 1024 * 1024,
} as const;

const tooLargeText = (limit: number) => `request body exceeds ${limit} bytes`;
const tooLarge = (limit: number) =>
  bodyLimit({ maxSize: limit, onError: (c) => c.text(tooLargeText(limit), 413) });

/**
 * The upload's declared length checked before anything is read, as `bodyLimit` does; a body without
 * one is counted as it streams (`readUploadForm`), never collected whole.
 */
const declaredTooLarge =
  (limit: number) =>
  async (c: Context, next: () => Promise<void>): Promise<Response | undefined> => {
    const declared = c.req.header("content-length");
    if (declared !== undefined && !c.req.header("transfer-encoding") && Number(declared) > limit)
      return c.text(tooLargeText(limit), 413);
    await next();
  };

const page = (c: Context, markup: Html, status = 200) =>
  c.html(renderHtml(markup), status as 200, {
    "cache-control": "no-store",
    "x-frame-options": "DENY",
  });

export function createDeskApp(options: DeskServerOptions) {
  const { auth, invoices, service } = options;
  const app = new Hono<Env>();
  const callbackHandler = service.callbackHandler(options.callbackStore);
  const throttle = options.loginThrottle ?? new LoginThrottle();
  const protocolOf = (c: Context): "http" | "https" =>
    options.publicProtocol ??
    (options.trustProxy && c.req.header("x-forwarded-proto") === "https" ? "https" : "http");
  const addressOf = (c: Context): string => {
    const forwarded = options.trustProxy
      ? c.req.header("x-forwarded-for")?.split(",")[0]?.trim()
      : undefined;
    return forwarded || (getConnInfo(c).remote.address ?? "unknown");
  };

  // Every request: only to this desk's own host names (DNS rebinding), bodies bounded per route.
  app.use("*", hostAllowList(options.allowedHosts));
  // Every answer, downloads above all (a file output's or a recording's bytes come from the
  // service): the browser takes the declared type and never sniffs HTML out of it.
  app.use("*", async (c, next) => {
    await next();
    c.res.headers.set("X-Content-Type-Options", "nosniff");
  });
  app.use("/callbacks/*", tooLarge(BODY_LIMITS.callback));
  app.use("/login", tooLarge(BODY_LIMITS.login));
  app.post("/invoices", declaredTooLarge(BODY_LIMITS.upload));
  app.use("*", async (c, next) => {
    if (
      c.req.method === "POST" &&
      c.req.path !== "/invoices" &&
      !c.req.path.startsWith("/callbacks/")
    )
      return tooLarge(BODY_LIMITS.form)(c, next);
    await next();
  });

  // The service's deliveries: no session, no CSRF; signature checked when a secret is set,
  // deduplicated and confirmed with the API.
  app.post("/callbacks/wfr", (c) => callbackHandler(c.req.raw));

  // Same-origin POSTs only: a cross-site form cannot act for a signed-in operator.
  app.use("*", async (c, next) => sameOriginPosts(() => protocolOf(c))(c, next));

  app.get("/login", (c) => page(c, loginPage()));
  app.post("/login", async (c) => {
    const form = await c.req.parseBody();
    const username = String(form.username ?? "");
    const address = addressOf(c);
    const wait = throttle.retryAfterMs(username, address);
    if (wait > 0) {
      c.header("retry-after", String(Math.ceil(wait / 1000)));
      return page(c, loginPage("Too many failed sign-ins: wait a moment and try again."), 429);
    }
    const token = await auth.signIn(username, String(form.password ?? ""));
    if (!token) {
      throttle.failed(username, address);
      return page(c, loginPage("Wrong name or password."), 401);
    }
    throttle.succeeded(username, address);
    setCookie(c, SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: "Lax",
      path: "/",
      secure: protocolOf(c) === "https",
    });
    return c.redirect("/", 303);
  });

  // Everything below needs a session; POSTs also the CSRF token.
  app.use("*", async (c, next) => {
    const token = getCookie(c, SESSION_COOKIE);
    const session = await auth.session(token);
    if (!session || !token) return c.redirect("/login", 303);
    c.set("session", session);
    c.set("sessionToken", token);
    // The upload's form streams to a temporary file: its CSRF token is checked where it is read.
    if (c.req.method === "POST" && c.req.path !== "/invoices") {
      const form = await c.req.parseBody();
      if (!csrfTokenMatches(session, form.csrf)) return c.text("missing or wrong CSRF token", 403);
    }
    await next();
  });

  app.post("/logout", async (c) => {
    await auth.signOut(c.get("sessionToken"));
    deleteCookie(c, SESSION_COOKIE, { path: "/" });
    return c.redirect("/login", 303);
  });

  app.get("/", async (c) => page(c, invoiceListPage(c.get("session"), await invoices.list())));
  app.get("/invoices/rows", async (c) => page(c, invoiceRows(await invoices.list())));
  app.get("/invoices/new", (c) => page(c, uploadPage(c.get("session"))));

  app.post("/invoices", async (c) => {
    const session = c.get("session");
    let form: Awaited<ReturnType<typeof readUploadForm>>;
    try {
      form = await readUploadForm(c.req.raw, {
        maxBodyBytes: BODY_LIMITS.upload,
        maxFileBytes: MAX_PDF_BYTES,
        maxFieldBytes: BODY_LIMITS.form,
        fileField: "pdf",
      });
    } catch (error) {
      if (error instanceof UploadBodyTooLargeError) return c.text(error.message, 413);
      if (error instanceof UploadFormUnreadableError) return c.text(error.message, 400);
      throw error;
    }
    const id = (form.fields.get("invoice_id") ?? "").trim();
    const vendorName = (form.fields.get("vendor_name") ?? "").trim();
    const amount = Number(form.fields.get("amount"));
    const pdf = form.file;
    try {
      if (!csrfTokenMatches(session, form.fields.get("csrf")))
        return c.text("missing or wrong CSRF token", 403);
      if (!/^[A-Za-z0-9._-]{1,64}$/.test(id))
        return page(c, uploadPage(session, "Invoice number: letters, digits, . _ - only."), 400);
      if (!vendorName) return page(c, uploadPage(session, "Vendor: required."), 400);
      if (!Number.isFinite(amount) || amount < 0)
        return page(c, uploadPage(session, "Amount: a number, like 1280.50."), 400);
      if (!pdf || pdf.size === 0)
        return page(c, uploadPage(session, "Invoice PDF: choose a file."), 400);
      if (pdf.tooLarge) return page(c, uploadPage(session, "Invoice PDF: at most 25 MiB."), 400);
      const existing = await invoices.get(id);
      if (existing) return c.redirect(`/invoices/${encodeURIComponent(id)}`, 303);
      await invoices.insert({
        id,
        vendorName,
        amount,
        filename: pdf.name || `${id}.pdf`,
        pdf: await pdf.read(),
      });
    } finally {
      await form.dispose();
    }
    crashPoint("after-store", id);
    await service.launch(id).catch(() => undefined); // the error is stored on the invoice and shown
    return c.redirect(`/invoices/${encodeURIComponent(id)}`, 303);
  });

  const detail = async (c: Context<Env>, message?: string, messageIsError = false) => {
    const row = await invoices.get(c.req.param("id") ?? "");
    if (!row) return c.text("no such invoice", 404);
    const run = row.run as { human_action?: Record<string, unknown> } | null;
    const result = row.result as {
      outputs?: Record<string, unknown> | null;
      error?: unknown;
    } | null;
    return page(
      c,
      invoiceDetailPage(c.get("session"), {
        row,
        humanAction: run?.human_action ?? undefined,
        outputs: result?.outputs ?? undefined,
        error: result?.error ?? undefined,
        hasRecording: Boolean(await invoices.recording(row.id)),
        message,
        messageIsError,
      }),
      messageIsError ? 409 : 200,
    );
  };

  app.get("/invoices/:id", (c) => detail(c));

  app.post("/invoices/:id/refresh", async (c) => {
    const row = await invoices.get(c.req.param("id"));
    if (row?.run_id) await service.refresh(row.id, row.run_id);
    else if (row) await service.launch(row.id).catch(() => undefined);
    return c.redirect(`/invoices/${encodeURIComponent(c.req.param("id"))}`, 303);
  });

  app.post("/invoices/:id/answer", async (c) => {
    const row = await invoices.get(c.req.param("id"));
    if (!row) return c.text("no such invoice", 404);
    const form = await c.req.parseBody();
    const decision =
      form.decision === "approve" ? "approve" : form.decision === "reject" ? "reject" : undefined;
    if (!decision) return detail(c, "Choose approve or reject.", true);
    const outcome = await service.answer(row, String(form.checkpoint_id ?? ""), {
      approved: decision === "approve",
      note: String(form.note ?? ""),
      operator: c.get("session").username,
    });
    return detail(c, outcome.message, !outcome.ok);
  });

  app.post("/invoices/:id/recording", async (c) => {
    const row = await invoices.get(c.req.param("id"));
    if (!row) return c.text("no such invoice", 404);
    try {
      await service.fetchRecording(row);
    } catch (error) {
      return detail(
        c,
        `The recording could not be fetched yet: ${error instanceof Error ? error.message : error}`,
        true,
      );
    }
    return c.redirect(`/invoices/${encodeURIComponent(row.id)}`, 303);
  });

  app.get("/invoices/:id/recording.mp4", async (c) => {
    const recording = await invoices.recording(c.req.param("id"));
    if (!recording) return c.text("no recording stored", 404);
    return new Response(recording.bytes as Uint8Array<ArrayBuffer>, {
      headers: { "content-type": recording.mime_type, "cache-control": "private, max-age=3600" },
    });
  });

  app.get("/invoices/:id/files/:name", async (c) => {
    const row = await invoices.get(c.req.param("id"));
    const outputs = (row?.result as { outputs?: Record<string, unknown> } | null)?.outputs;
    const reference = outputs?.[c.req.param("name")];
    if (!reference || typeof reference !== "object" || !("download_url" in reference)) {
      return c.text("no such file output", 404);
    }
    let response: Response;
    try {
      response = await service.downloadOutputFile(reference as never);
    } catch (error) {
      // Refused by the download policy, or the storage failed: said without internals.
      const refused = error instanceof FileOutputDownloadRefusedError;
      return c.text(
        refused
          ? "this file output points outside the environment; it was not downloaded"
          : "the file output could not be downloaded",
        502,
      );
    }
    return new Response(response.body, {
      headers: {
        "content-type": response.headers.get("content-type") ?? "application/octet-stream",
        "content-disposition": contentDisposition(
          String((reference as { filename?: string }).filename ?? "file"),
        ),
      },
    });
  });

  // Whatever else goes wrong: a plain 500, the details only in the log, never to the browser.
  app.onError((error, c) => {
    options.log?.(`invoice-desk: ${c.req.method} ${c.req.path} failed: ${error.name}`);
    return c.text("internal error", 500);
  });

  // Shutdown waits for the completions written behind answered deliveries, before the store closes.
  return Object.assign(app, { drainCallbacks: () => callbackHandler.drain() });
}
