// The desk's HTTP surface: Web-standard handlers on Hono. Every page but the
// sign-in needs a session; every form POST needs the session's CSRF token
// and a same-origin Origin header. The API key stays on the server.
import type { CallbackEventStore } from "@wfr/runtime";
import { type Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { type authQueries, csrfTokenMatches, SESSION_COOKIE, type Session } from "./auth.js";
import { crashPoint } from "./crash.js";
import type { InvoiceQueries } from "./db.js";
import { type Html, renderHtml } from "./html.js";
import { invoiceDetailPage, invoiceListPage, invoiceRows, loginPage, uploadPage } from "./pages.js";
import type { WorkflowService } from "./workflow-service.js";

export interface DeskServerOptions {
  readonly auth: ReturnType<typeof authQueries>;
  readonly invoices: InvoiceQueries;
  readonly service: WorkflowService;
  readonly callbackStore: CallbackEventStore;
  /** Set the Secure flag on the session cookie (when served over HTTPS). */
  readonly secureCookies?: boolean;
}

type Env = { Variables: { session: Session; sessionToken: string } };
const MAX_PDF_BYTES = 25 * 1024 * 1024; // the API's per-attachment limit

const page = (c: Context, markup: Html, status = 200) =>
  c.html(renderHtml(markup), status as 200, {
    "cache-control": "no-store",
    "x-frame-options": "DENY",
  });

export function createDeskApp(options: DeskServerOptions) {
  const { auth, invoices, service } = options;
  const app = new Hono<Env>();
  const callbackHandler = service.callbackHandler(options.callbackStore);

  // The service's deliveries: no session, no CSRF; deduplicated and confirmed with the API.
  app.post("/callbacks/wfr", (c) => callbackHandler(c.req.raw));

  // Same-origin POSTs only: a cross-site form cannot act for a signed-in operator.
  app.use("*", async (c, next) => {
    if (c.req.method === "POST") {
      const origin = c.req.header("origin");
      const host = c.req.header("host");
      if (origin && host && new URL(origin).host !== host)
        return c.text("cross-site request refused", 403);
      if (c.req.header("sec-fetch-site") === "cross-site")
        return c.text("cross-site request refused", 403);
    }
    await next();
  });

  app.get("/login", (c) => page(c, loginPage()));
  app.post("/login", async (c) => {
    const form = await c.req.parseBody();
    const token = await auth.signIn(String(form.username ?? ""), String(form.password ?? ""));
    if (!token) return page(c, loginPage("Wrong name or password."), 401);
    setCookie(c, SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: "Lax",
      path: "/",
      secure: options.secureCookies ?? false,
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
    if (c.req.method === "POST") {
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
    const form = await c.req.parseBody();
    const id = String(form.invoice_id ?? "").trim();
    const vendorName = String(form.vendor_name ?? "").trim();
    const amount = Number(form.amount);
    const pdf = form.pdf;
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(id))
      return page(c, uploadPage(session, "Invoice number: letters, digits, . _ - only."), 400);
    if (!vendorName) return page(c, uploadPage(session, "Vendor: required."), 400);
    if (!Number.isFinite(amount) || amount < 0)
      return page(c, uploadPage(session, "Amount: a number, like 1280.50."), 400);
    if (!(pdf instanceof File) || pdf.size === 0)
      return page(c, uploadPage(session, "Invoice PDF: choose a file."), 400);
    if (pdf.size > MAX_PDF_BYTES)
      return page(c, uploadPage(session, "Invoice PDF: at most 25 MiB."), 400);
    const existing = await invoices.get(id);
    if (existing) return c.redirect(`/invoices/${encodeURIComponent(id)}`, 303);
    await invoices.insert({
      id,
      vendorName,
      amount,
      filename: pdf.name || `${id}.pdf`,
      pdf: new Uint8Array(await pdf.arrayBuffer()),
    });
    crashPoint("after-store");
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
    const response = await service.downloadOutputFile(reference as never);
    return new Response(response.body, {
      headers: {
        "content-type": response.headers.get("content-type") ?? "application/octet-stream",
        "content-disposition": `attachment; filename="${String((reference as { filename?: string }).filename ?? "file").replace(/["\\\r\n]/g, "_")}"`,
      },
    });
  });

  return app;
}
