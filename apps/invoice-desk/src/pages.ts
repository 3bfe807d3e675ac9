// The desk's pages: small, server-rendered, usable with a keyboard.
import type { Session } from "./auth.js";
import type { InvoiceRow } from "./db.js";
import { type Html, html, trustedMarkup } from "./html.js";

const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:.6rem 1.2rem;display:flex;gap:1rem;align-items:center}
header a{color:#fff}header form{margin-left:auto}
main{max-width:60rem;margin:1.2rem auto;padding:0 1.2rem}
table{border-collapse:collapse;width:100%;background:#fff}th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid #e3e6eb}
.status{font-weight:600}.status-succeeded{color:#17803d}.status-waiting_for_human_live{color:#b45309}
.status-failed,.status-error,.status-dead_letter,.status-human_wait_expired,.status-launch_failed{color:#b91c1c}
section{background:#fff;border:1px solid #e3e6eb;border-radius:6px;padding:1rem;margin:1rem 0}
label{display:block;margin:.5rem 0 .2rem}input,textarea{font:inherit;padding:.35rem;width:100%;box-sizing:border-box}
button{font:inherit;padding:.4rem .9rem;margin-top:.6rem;cursor:pointer}
.note{color:#555;font-size:.9em}.error{background:#fde8e8;border-color:#f5b5b5}.draft{background:#fffbe6;border:1px dashed #d6b656;padding:.5rem}
dt{font-weight:600}dd{margin:0 0 .5rem 0}
`;

function layout(title: string, session: Session | undefined, body: Html): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} · Invoice desk</title><style>${trustedMarkup(STYLE)}</style></head>
<body><header><strong>Invoice desk</strong>${
    session
      ? html`<a href="/">Invoices</a><a href="/invoices/new">Upload</a>
<form method="post" action="/logout"><input type="hidden" name="csrf" value="${session.csrfToken}">
<span>${session.username}</span> <button type="submit">Sign out</button></form>`
      : ""
  }</header><main>${body}</main></body></html>`;
}

export function loginPage(error?: string): Html {
  return layout(
    "Sign in",
    undefined,
    html`<h1>Sign in</h1>
${error ? html`<section class="error" role="alert">${error}</section>` : ""}
<form method="post" action="/login">
<label for="username">Name</label><input id="username" name="username" autocomplete="username" required autofocus>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>`,
  );
}

function statusCell(row: InvoiceRow): Html {
  return html`<span class="status status-${row.status}">${row.status.replaceAll("_", " ")}</span>`;
}

export function invoiceRows(rows: InvoiceRow[]): Html {
  if (rows.length === 0)
    return html`<tr><td colspan="5">No invoices yet. <a href="/invoices/new">Upload one</a>.</td></tr>`;
  return html`${rows.map(
    (
      row,
    ) => html`<tr data-invoice="${row.id}"><td><a href="/invoices/${row.id}">${row.id}</a></td><td>${row.vendor_name}</td>
<td>${row.amount.toFixed(2)}</td><td>${statusCell(row)}</td><td>${row.run_id ?? "—"}</td></tr>`,
  )}`;
}

export function invoiceListPage(session: Session, rows: InvoiceRow[]): Html {
  return layout(
    "Invoices",
    session,
    html`<h1>Invoices</h1>
<table><thead><tr><th>Invoice</th><th>Vendor</th><th>Amount</th><th>Status</th><th>Run</th></tr></thead>
<tbody id="invoice-rows">${invoiceRows(rows)}</tbody></table>
<p class="note">Statuses update live: from callbacks, and by polling for runs whose callbacks do not come.</p>
<script>
setInterval(async () => {
  const response = await fetch("/invoices/rows", { headers: { accept: "text/html" } });
  if (response.ok) document.getElementById("invoice-rows").innerHTML = await response.text();
}, 1500);
</script>`,
  );
}

export function uploadPage(session: Session, error?: string): Html {
  return layout(
    "Upload",
    session,
    html`<h1>Upload an invoice</h1>
${error ? html`<section class="error" role="alert">${error}</section>` : ""}
<form method="post" action="/invoices" enctype="multipart/form-data">
<input type="hidden" name="csrf" value="${session.csrfToken}">
<label for="invoice_id">Invoice number</label><input id="invoice_id" name="invoice_id" required pattern="[A-Za-z0-9._-]{1,64}">
<label for="vendor_name">Vendor</label><input id="vendor_name" name="vendor_name" required>
<label for="amount">Amount</label><input id="amount" name="amount" inputmode="decimal" required pattern="[0-9]+(\\.[0-9]{1,2})?">
<label for="pdf">Invoice PDF</label><input id="pdf" name="pdf" type="file" accept="application/pdf" required>
<button type="submit">Upload and launch</button></form>`,
  );
}

export interface HumanActionView {
  checkpoint_id?: string | null;
  kind?: string | null;
  reason?: string | null;
  instructions?: string | null;
  stop_condition?: string | null;
  expires_at?: string | null;
  response_accepted?: boolean | null;
}

export interface InvoiceDetail {
  row: InvoiceRow;
  humanAction: HumanActionView | undefined;
  outputs: Record<string, unknown> | undefined;
  error: unknown;
  hasRecording: boolean;
  message?: string | undefined;
  messageIsError?: boolean;
}

function describeValue(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function outputList(id: string, outputs: Record<string, unknown>): Html {
  return html`<dl>${Object.entries(outputs).map(([name, value]) => {
    const isFile =
      value !== null && typeof value === "object" && "download_url" in (value as object);
    if (isFile) {
      return html`<dt>${name}</dt><dd><a href="/invoices/${id}/files/${name}">Download ${name}</a>
<span class="note">(fetched through the reference the result gave)</span></dd>`;
    }
    if (typeof value === "string" && /message|draft|reply|email/i.test(name)) {
      return html`<dt>${name}</dt><dd><div class="draft">${value}</div>
<span class="note">A draft returned by the workflow: it does not show that anything was sent.</span></dd>`;
    }
    return html`<dt>${name}</dt><dd>${describeValue(value)}</dd>`;
  })}</dl>`;
}

export function invoiceDetailPage(session: Session, detail: InvoiceDetail): Html {
  const { row, humanAction } = detail;
  const waiting = row.status === "waiting_for_human_live" && humanAction?.checkpoint_id;
  return layout(
    row.id,
    session,
    html`<h1>Invoice ${row.id}</h1>
${detail.message ? html`<section class="${detail.messageIsError ? "error" : ""}" role="status">${detail.message}</section>` : ""}
<section><dl><dt>Vendor</dt><dd>${row.vendor_name}</dd><dt>Amount</dt><dd>${row.amount.toFixed(2)}</dd>
<dt>Status</dt><dd>${statusCell(row)}</dd><dt>Run</dt><dd>${row.run_id ?? "not launched yet"}</dd>
${row.launch_error ? html`<dt>Launch error</dt><dd>${row.launch_error}</dd>` : ""}</dl>
<form method="post" action="/invoices/${row.id}/refresh"><input type="hidden" name="csrf" value="${session.csrfToken}"><button>Refresh now</button></form></section>
${
  waiting
    ? html`<section aria-labelledby="checkpoint"><h2 id="checkpoint">A person is needed</h2><dl>
<dt>Reason</dt><dd>${humanAction?.reason ?? "—"}</dd><dt>Instructions</dt><dd>${humanAction?.instructions ?? "—"}</dd>
<dt>Stop condition</dt><dd>${humanAction?.stop_condition ?? "—"}</dd><dt>Expires</dt><dd>${humanAction?.expires_at ?? "—"}</dd></dl>
${
  humanAction?.response_accepted
    ? html`<p>An answer was accepted; the run resumes shortly.</p>`
    : html`<form method="post" action="/invoices/${row.id}/answer">
<input type="hidden" name="csrf" value="${session.csrfToken}"><input type="hidden" name="checkpoint_id" value="${humanAction?.checkpoint_id}">
<fieldset><legend>Decision</legend>
<label><input type="radio" name="decision" value="approve" required> Approve</label>
<label><input type="radio" name="decision" value="reject"> Reject</label></fieldset>
<label for="note">Note</label><textarea id="note" name="note" rows="2"></textarea>
<button type="submit">Send answer</button></form>`
}</section>`
    : ""
}
${detail.outputs ? html`<section><h2>Result</h2>${outputList(row.id, detail.outputs)}</section>` : ""}
${
  detail.error && row.result
    ? html`<section class="error"><h2>The run did not succeed</h2><p>${describeValue(detail.error)}</p></section>`
    : ""
}
${
  row.result
    ? html`<section><h2>Recording</h2>${
        detail.hasRecording
          ? html`<video controls preload="metadata" src="/invoices/${row.id}/recording.mp4" width="480"></video>`
          : html`<form method="post" action="/invoices/${row.id}/recording"><input type="hidden" name="csrf" value="${session.csrfToken}">
<button>Fetch the recording</button> <span class="note">Fetched once and stored: downloads count against the workspace's hourly limit.</span></form>`
      }</section>`
    : ""
}`,
  );
}
