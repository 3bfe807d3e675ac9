// The web application's pages as pure functions of plain data (no I/O), so they can be tested
// without a server. web-app.ts gathers the data and sends the result.
import {
  FAIL_STATUSES,
  isKnownStatus,
  type KnownRunStatus,
  RUN_STATUS,
  RUN_STATUSES,
} from "@wfr/protocol";
import type { DeliveryAttempt } from "../engine/callbacks.js";
import { iso } from "../engine/clock.js";
import { humanAction, type Links } from "../engine/run-views.js";
import { MAX_FAILED_ATTEMPTS, MAX_LATE_MS } from "../faults/delivery-faults.js";
import {
  isTerminal,
  type RunListing,
  type RunRecord,
  type Scenario,
  type WorkflowDef,
} from "../model/types.js";
import { html, jsonBlock, type SafeHtml } from "./html.js";
import { jsonPrefix, SEARCHED_METADATA_CHARS } from "./search-text.js";

export interface RunFilter {
  status: string;
  workflow: string;
  environment: string;
  q: string;
}

export interface RunRow {
  /** A run in memory, or the listing of one on disk (journal/run-archive.ts). */
  run: RunListing;
  workflowName: string;
}

/**
 * Rows the run history shows at most, newest first: the list is polled every 1.5 s, and a page
 * of every run ever launched grew with the emulator's age (a filter finds older runs).
 */
export const RUN_LIST_ROWS = 500;

const STATUS_CHOICES = RUN_STATUSES;

/** The badge tone of each status: a Record, so a new status needs a decided tone to compile. */
const STATUS_TONE: Record<KnownRunStatus, "ok" | "attention" | "bad" | "live"> = {
  queued: "live",
  starting: "live",
  running: "live",
  waiting_for_human_live: "attention",
  succeeded: "ok",
  failed: "bad",
  error: "bad",
  cancelled: "bad",
  terminated: "bad",
  dead_letter: "bad",
  human_wait_expired: "bad",
};

function runHref(run: RunListing): string {
  return `/_app/runs/${encodeURIComponent(run.environment)}/${encodeURIComponent(run.run_id)}`;
}

function duration(run: RunListing, now: number): string {
  const end = run.finished_at ?? now;
  const ms = Math.max(0, end - run.created_at);
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  if (s < 120) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

function statusBadge(status: string): SafeHtml {
  const tone = isKnownStatus(status) ? STATUS_TONE[status] : "live";
  return html`<span class="status ${tone}">${status}</span>`;
}

/**
 * A run's searchable text, lower-cased once: its ids, key and metadata never change after the
 * launch, and the run list re-runs its search every 1.5 s (serialising every run's metadata on
 * each search blocked other callers for seconds with 8 MiB of it).
 */
const searchText = new WeakMap<RunListing, string>();

/** A run on disk is listed without its metadata: the search covers its ids and key. */
function searchableText(r: RunListing): string {
  let text = searchText.get(r);
  if (text === undefined) {
    const metadata =
      "metadata" in r ? jsonPrefix((r as RunRecord).metadata, SEARCHED_METADATA_CHARS) : "";
    text = [r.run_id, r.workflow_id, r.idempotency_key ?? "", metadata].join("\n").toLowerCase();
    searchText.set(r, text);
  }
  return text;
}

/** Whether a run matches the filter; `q` searches ids, the idempotency key and metadata. */
export function runMatches(row: RunRow, f: RunFilter): boolean {
  const r = row.run;
  if (f.status && r.status !== f.status) return false;
  if (f.workflow && r.workflow_id !== f.workflow) return false;
  if (f.environment && r.environment !== f.environment) return false;
  if (f.q) {
    const needle = f.q.toLowerCase();
    if (!searchableText(r).includes(needle) && !row.workflowName.toLowerCase().includes(needle))
      return false;
  }
  return true;
}

/** The <tbody> of the run list; the page's script swaps it in place for live updates. */
export function runRows(rows: RunRow[], now: number): SafeHtml {
  if (rows.length === 0)
    return html`<tbody id="run-rows"><tr><td colspan="7">No runs match. Launch one through the API and it appears here.</td></tr></tbody>`;
  const older = rows.length - RUN_LIST_ROWS;
  const more =
    older > 0
      ? html`<tr><td colspan="7">${String(older)} older runs not shown: filter by status, workflow or search to find them.</td></tr>`
      : html``;
  return html`<tbody id="run-rows">${rows
    .slice(0, RUN_LIST_ROWS)
    .map(
      ({ run, workflowName }) =>
        html`<tr data-run-id="${run.run_id}" data-status="${run.status}"><td><a href="${runHref(run)}">${run.run_id}</a></td><td>${statusBadge(run.status)}</td><td>${workflowName} <span class="muted">${run.workflow_id}</span></td><td>${run.environment}</td><td>${run.source ?? "api"}</td><td><time datetime="${iso(run.created_at)}">${iso(run.created_at)}</time></td><td>${duration(run, now)}</td></tr>`,
    )}${more}</tbody>`;
}

export function runListPage(o: {
  rows: RunRow[];
  filter: RunFilter;
  workflows: { id: string; name: string; environment: string }[];
  environments: string[];
  now: number;
}): SafeHtml {
  const f = o.filter;
  const opt = (value: string, label: string, selected: string) =>
    html`<option value="${value}"${value === selected ? html` selected` : ""}>${label}</option>`;
  return html`<h1>Run history</h1>
<form class="filters" method="get" action="/" role="search">
<label>Status <select name="status">${opt("", "any", f.status)}${STATUS_CHOICES.map((s) => opt(s, s, f.status))}</select></label>
<label>Workflow <select name="workflow">${opt("", "any", f.workflow)}${o.workflows.map((w) => opt(w.id, `${w.name} (${w.environment})`, f.workflow))}</select></label>
<label>Environment <select name="environment">${opt("", "any", f.environment)}${o.environments.map((e) => opt(e, e, f.environment))}</select></label>
<label>Search <input type="search" name="q" value="${f.q}" placeholder="run id, key, metadata"></label>
<button type="submit">Filter</button>
</form>
<p class="muted" id="live-note">This list updates by itself.</p>
<table class="runs" data-live-rows="/_app/runs/rows"><caption class="visually-hidden">Runs, newest first</caption>
<thead><tr><th scope="col">Run</th><th scope="col">Status</th><th scope="col">Workflow</th><th scope="col">Environment</th><th scope="col">Started through</th><th scope="col">Started</th><th scope="col">Duration</th></tr></thead>
${runRows(o.rows, o.now)}
</table>`;
}

interface RunDetailData {
  run: RunRecord;
  workflow: WorkflowDef | undefined;
  links: Links;
  deliveries: DeliveryAttempt[];
  csrf: string;
  now: number;
  recordingState: string;
  /** The run's change marker when the page was rendered (see `runVersion`). */
  version: string;
  /** A message from the last form post (answer accepted, conflict explained, ...). */
  flash: string | null;
}

/** Whether `url` is an absolute http: or https: URL. */
function isWebUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

function fileLinks(outputs: unknown): SafeHtml[] {
  const found: SafeHtml[] = [];
  const walk = (v: unknown, path: string) => {
    if (v === null || typeof v !== "object") return;
    const o = v as Record<string, unknown>;
    if (typeof o.download_url === "string" && typeof o.filename === "string") {
      // Only an http(s) URL becomes a link: a `javascript:` or `data:` URL in a run's outputs
      // is shown as text (escaping stops markup, not a scheme; the CSP is the second layer).
      found.push(
        isWebUrl(o.download_url)
          ? html`<li><a href="${o.download_url}" download>${o.filename}</a> <span class="muted">(${path})</span></li>`
          : html`<li>${o.filename} <span class="muted">(${path}; not a web link: <code>${o.download_url}</code>)</span></li>`,
      );
      return;
    }
    for (const [k, x] of Object.entries(o)) walk(x, path ? `${path}.${k}` : k);
  };
  walk(outputs, "");
  return found;
}

export function runDetailPage(d: RunDetailData): SafeHtml {
  const r = d.run;
  const base = runHref(r);
  const action = humanAction(r, d.links);
  const cp = r.waiting === null ? undefined : r.checkpoints[r.waiting];
  const human = action
    ? html`<section aria-labelledby="human-h"><h2 id="human-h">A person is needed</h2>
<dl class="facts"><dt>Kind</dt><dd>${String(action.kind)}</dd><dt>Reason</dt><dd>${String(action.reason)}</dd>
<dt>Instructions</dt><dd>${String(action.instructions ?? "none")}</dd><dt>Stop condition</dt><dd>${String(action.stop_condition ?? "none")}</dd>
<dt>Expires</dt><dd>${String(action.expires_at)}</dd><dt>Checkpoint</dt><dd><code>${String(action.checkpoint_id)}</code></dd>
<dt>Answer accepted</dt><dd>${action.response_accepted ? "yes, waiting for the run to pick it up" : "no"}</dd></dl>
${
  cp && cp.answer === undefined
    ? html`<form method="post" action="${base}/answer" class="answer"><input type="hidden" name="csrf" value="${d.csrf}"><input type="hidden" name="checkpoint_id" value="${cp.checkpoint_id}">
<label for="answer-response">Your answer (JSON, or plain text)</label>
<textarea id="answer-response" name="response" rows="3" required>{"approved": true}</textarea>
<button type="submit">Send answer</button></form>`
    : ""
}</section>`
    : "";
  const recording =
    d.recordingState === "ready"
      ? html`<video controls preload="metadata" src="${base}/recording.mp4" width="320"></video><p class="muted">Played here without counting against the API's hourly recording budget.</p>`
      : html`<p>Recording: ${d.recordingState}.</p>`;
  const files = fileLinks(r.outputs);
  const sorted = [...d.deliveries].sort((a, b) => a.started_at.localeCompare(b.started_at));
  const eventIds = [...new Set(sorted.map((a) => a.event_id))];
  const deliveries =
    eventIds.length === 0
      ? html`<p>${r.callback_url ? "No callback was sent yet." : "This run has no callback_url."}</p>`
      : html`<table><thead><tr><th scope="col">Event</th><th scope="col">Type</th><th scope="col">Attempts</th><th scope="col"></th></tr></thead><tbody>${eventIds.map(
          (id) => {
            const attempts = sorted.filter((a) => a.event_id === id);
            return html`<tr data-event-id="${id}"><td><code>${id}</code></td><td>${attempts[0]?.type ?? ""}</td><td><ol class="attempts">${attempts.map(
              (a) =>
                html`<li>#${a.attempt} ${a.held ? "held (public address)" : a.status === null ? `failed: ${a.error ?? "no answer"}` : `HTTP ${a.status}`} at ${a.started_at} (${a.duration_ms} ms)${a.forwarded_to ? ` forwarded to ${a.forwarded_to}` : ""}${a.injected ? ` (injected: ${a.injected})` : ""}</li>`,
            )}</ol></td><td><form method="post" action="/_app/callbacks/${r.environment}/${id}/resend"><input type="hidden" name="csrf" value="${d.csrf}"><input type="hidden" name="back" value="${base}"><button type="submit" aria-label="Resend ${id}">Resend</button></form></td></tr>`;
          },
        )}</tbody></table>`;
  const faults = isTerminal(r.status)
    ? ""
    : html`<details><summary>Inject a fault</summary><div class="faults">
<form method="post" action="${base}/faults/checkpoint"><input type="hidden" name="csrf" value="${d.csrf}"><button type="submit">Reach a checkpoint now</button></form>
<form method="post" action="${base}/faults/expire"><input type="hidden" name="csrf" value="${d.csrf}"><button type="submit">Expire the wait now</button></form>
<form method="post" action="${base}/faults/fail"><input type="hidden" name="csrf" value="${d.csrf}"><label>Status <select name="status">${FAIL_STATUSES.map((s) => html`<option>${s}</option>`)}</select></label><button type="submit">Fail now</button></form>
<form method="post" action="${base}/faults/succeed"><input type="hidden" name="csrf" value="${d.csrf}"><label>Outputs (JSON, optional) <input name="outputs" value=""></label><button type="submit">Succeed now</button></form>
</div>${
        r.callback_url
          ? html`<div class="faults" aria-label="Callback delivery faults">
<form method="post" action="${base}/faults/callback-twice"><input type="hidden" name="csrf" value="${d.csrf}"><button type="submit">Deliver the next callback twice</button></form>
<form method="post" action="${base}/faults/callback-late"><input type="hidden" name="csrf" value="${d.csrf}"><label>Delay (ms) <input name="delay_ms" type="number" min="0" max="${MAX_LATE_MS}" value="5000" required></label><button type="submit">Deliver the next callback late</button></form>
<form method="post" action="${base}/faults/callback-fail"><input type="hidden" name="csrf" value="${d.csrf}"><label>Attempts <input name="attempts" type="number" min="1" max="${MAX_FAILED_ATTEMPTS}" value="1" required></label><label>Status <input name="status" type="number" min="500" max="599" value="503"></label><button type="submit">Fail the next attempts</button></form>
</div>`
          : html`<p class="muted">This run has no callback_url, so no callback faults.</p>`
      }</details>`;
  return html`<p><a href="/">← Run history</a></p>
<h1>Run <code>${r.run_id}</code></h1>
${d.flash ? html`<p class="flash" role="status">${d.flash}</p>` : ""}
<dl class="facts" data-live-version="${base}/version" data-version="${d.version}"><dt>Status</dt><dd id="run-status">${statusBadge(r.status)}</dd><dt>Workflow</dt><dd>${d.workflow?.name ?? r.workflow_id} <span class="muted">${r.workflow_id} revision ${r.revision}</span></dd>
<dt>Environment</dt><dd>${r.environment}</dd><dt>Started through</dt><dd>${r.source ?? "api"}</dd><dt>Started</dt><dd>${iso(r.created_at)}</dd><dt>Duration</dt><dd>${duration(r, d.now)}</dd>
<dt>Idempotency key</dt><dd>${r.idempotency_key ?? "none"}</dd><dt>Model</dt><dd>${r.model ?? "default"}</dd>${r.error ? html`<dt>Error</dt><dd>${r.error.code ?? ""} ${r.error.message}</dd>` : ""}</dl>
${faults}
${human}
<section aria-labelledby="inputs-h"><h2 id="inputs-h">Inputs (defaults applied)</h2>${jsonBlock(r.inputs)}
<details><summary>Launch again</summary><form method="post" action="${base}/relaunch" class="relaunch"><input type="hidden" name="csrf" value="${d.csrf}">
<label for="relaunch-inputs">Inputs of the new run (JSON; edit as you like)</label>
<textarea id="relaunch-inputs" name="inputs" rows="8" required>${JSON.stringify(r.inputs, null, 2)}</textarea>
<p class="muted">A new run of this workflow, with this run's metadata and model, checked like any launch. File inputs keep their recorded attachments (name and type; the emulator never keeps the bytes).</p>
<button type="submit">Launch again</button></form></details></section>
<section aria-labelledby="meta-h"><h2 id="meta-h">Metadata</h2>${jsonBlock(r.metadata)}</section>
<section aria-labelledby="events-h"><h2 id="events-h">Events</h2><ol class="timeline">${r.events.map(
    (e) =>
      html`<li><time>${e.at}</time> <strong>${e.type}</strong>${e.data ? html` <code>${JSON.stringify(e.data)}</code>` : ""}</li>`,
  )}</ol></section>
<section aria-labelledby="rec-h"><h2 id="rec-h">Session recording</h2>${recording}</section>
<section aria-labelledby="cb-h"><h2 id="cb-h">Callback deliveries</h2>${deliveries}</section>
<section aria-labelledby="out-h"><h2 id="out-h">Outputs</h2>${
    r.status === RUN_STATUS.succeeded
      ? html`${files.length > 0 ? html`<ul class="files">${files}</ul>` : ""}${jsonBlock(r.outputs)}`
      : html`<p>${isTerminal(r.status) ? "No outputs: the run did not succeed." : "Not finished yet."}</p>`
  }</section>`;
}

/** Changes whenever the run page would: status, events, answers, deliveries. */
export function runVersion(run: RunRecord, attempts: number): string {
  return `${run.updated_at}:${run.status}:${run.events.length}:${attempts}`;
}

interface DocsEnvironment {
  name: string;
  workspace: string;
  apiBase: string;
  envBase: string;
  workflows: WorkflowDef[];
}

function fieldRows(schema: unknown): SafeHtml[] {
  const s = schema as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  const required = new Set(s?.required ?? []);
  return Object.entries(s?.properties ?? {}).map(([name, f]) => {
    const ref = typeof f.$ref === "string" ? f.$ref.split("/").pop() : undefined;
    const type = ref ?? (Array.isArray(f.type) ? f.type.join(" | ") : String(f.type ?? "any"));
    return html`<tr><td><code>${name}</code></td><td>${type}${f.format ? ` (${String(f.format)})` : ""}</td><td>${required.has(name) ? "yes" : "no"}</td><td>${f.default === undefined ? "" : JSON.stringify(f.default)}</td><td>${typeof f.description === "string" ? f.description : ""}</td></tr>`;
  });
}

export function docsPage(envs: DocsEnvironment[], selected: string | null): SafeHtml {
  const shown = selected === null ? envs : envs.filter((e) => e.name === selected);
  return html`<h1>API docs</h1>
<p>Each environment has its own definition: download it and run <code>wfr schemas pull</code> / <code>pnpm generate</code> against it.</p>
<nav aria-label="Environments"><ul class="inline">${envs.map((e) => html`<li><a href="/_app/docs/${e.name}">${e.name}</a></li>`)}</ul></nav>
${shown.map(
  (e) => html`<section aria-labelledby="env-${e.name}"><h2 id="env-${e.name}">${e.name}</h2>
<dl class="facts"><dt>Base URL</dt><dd><code>${e.apiBase}</code></dd><dt>Workspace</dt><dd>${e.workspace}</dd></dl>
<p><a href="${e.envBase}/api-docs/openapi.json" download>Download openapi.json</a> · <a href="${e.envBase}/api-docs/openapi.yaml" download>Download openapi.yaml</a></p>
${e.workflows.map(
  (
    w,
  ) => html`<article><h3>${w.name} <span class="muted"><code>POST /workflows/${w.id}/runs</code> · ${w.state} · revision ${w.revision}</span></h3>${w.description ? html`<p>${w.description}</p>` : ""}
<table><caption>Inputs</caption><thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Required</th><th scope="col">Default</th><th scope="col">Description</th></tr></thead><tbody>${fieldRows(w.inputs)}</tbody></table>
<table><caption>Outputs</caption><thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Always</th><th scope="col">Default</th><th scope="col">Description</th></tr></thead><tbody>${fieldRows(w.outputs)}</tbody></table></article>`,
)}</section>`,
)}`;
}

interface KeyRow {
  id: string;
  environment: string;
  workspace: string;
  scopes: string[];
}

export function keysPage(o: {
  keys: KeyRow[];
  environments: string[];
  scopes: readonly string[];
  csrf: string;
  /** A key created by this request: shown once, never again. */
  created: { token: string; environment: string } | null;
}): SafeHtml {
  return html`<h1>API keys</h1>
${
  o.created
    ? html`<div class="flash" role="status"><p>New key for ${o.created.environment}. Copy it now: it is shown only once.</p><p><code id="new-key">${o.created.token}</code></p></div>`
    : ""
}
<form method="post" action="/_app/keys" class="card"><input type="hidden" name="csrf" value="${o.csrf}">
<h2>Create a key</h2>
<label>Environment <select name="environment">${o.environments.map((e) => html`<option>${e}</option>`)}</select></label>
<fieldset><legend>Scopes</legend>${o.scopes.map((s) => html`<label><input type="checkbox" name="scopes" value="${s}" checked> ${s}</label>`)}</fieldset>
<button type="submit">Create key</button></form>
<h2>Keys</h2>
<p class="muted">Only a hash of each key is stored, so a key cannot be shown again.</p>
<table><thead><tr><th scope="col">Key id</th><th scope="col">Environment</th><th scope="col">Workspace</th><th scope="col">Scopes</th><th scope="col"></th></tr></thead><tbody>${
    o.keys.length === 0
      ? html`<tr><td colspan="5">No keys yet.</td></tr>`
      : o.keys.map(
          (k) =>
            html`<tr><td><code>${k.id}</code></td><td>${k.environment}</td><td>${k.workspace}</td><td>${k.scopes.join(", ")}</td><td><form method="post" action="/_app/keys/${k.id}/revoke"><input type="hidden" name="csrf" value="${o.csrf}"><button type="submit" aria-label="Revoke key ${k.id}">Revoke</button></form></td></tr>`,
        )
  }</tbody></table>`;
}

export function tokensPage(o: {
  tokens: { id: string; environment: string; workspace: string; created_at: string }[];
  environments: string[];
  csrf: string;
  created: { token: string; environment: string } | null;
}): SafeHtml {
  return html`<h1>Personal access tokens</h1>
<p>A personal access token lets a coding agent use the MCP endpoint (<code>/mcp</code>) as you: it can author drafts, launch and watch runs, and explain human waits; a person still answers checkpoints and enables drafts. The REST API refuses these tokens, and <code>/mcp</code> refuses API keys.</p>
${
  o.created
    ? html`<div class="flash" role="status"><p>New token for ${o.created.environment}. Copy it now: it is shown only once.</p><p><code id="new-key">${o.created.token}</code></p></div>`
    : ""
}
<form method="post" action="/_app/tokens" class="card"><input type="hidden" name="csrf" value="${o.csrf}">
<h2>Create a token</h2>
<label>Environment <select name="environment">${o.environments.map((e) => html`<option>${e}</option>`)}</select></label>
<button type="submit">Create token</button></form>
<h2>Tokens</h2>
<table><thead><tr><th scope="col">Token id</th><th scope="col">Environment</th><th scope="col">Workspace</th><th scope="col">Created</th><th scope="col"></th></tr></thead><tbody>${
    o.tokens.length === 0
      ? html`<tr><td colspan="5">No tokens yet.</td></tr>`
      : o.tokens.map(
          (t) =>
            html`<tr><td><code>${t.id}</code></td><td>${t.environment}</td><td>${t.workspace}</td><td>${t.created_at}</td><td><form method="post" action="/_app/tokens/${t.id}/revoke"><input type="hidden" name="csrf" value="${o.csrf}"><button type="submit" aria-label="Revoke token ${t.id}">Revoke</button></form></td></tr>`,
        )
  }</tbody></table>`;
}

/** A fault on the API as the API-faults page lists it (api-faults.ts). */
export interface ApiFaultRow {
  id: string;
  route: string;
  environment: string | null;
  workspace: string | null;
  /** What it does: `status:503`, `stall:2000ms`, `delay:500ms`, `drop`. */
  what: string;
  remaining: number | null;
  probability: number;
  hits: number;
}

export function apiFaultsPage(o: {
  faults: ApiFaultRow[];
  environments: string[];
  csrf: string;
  flash: string | null;
}): SafeHtml {
  return html`<h1>API faults</h1>
<p>Faults on the API itself, to test a client's retries: matching requests answer 429 with Retry-After or a 5xx, have their body stalled, are delayed, or are handled and then lose their answer (the connection closes). Each answered request is marked <code>fault=</code> in the request log.</p>
${o.flash ? html`<div class="flash" role="status"><p>${o.flash}</p></div>` : ""}
<form method="post" action="/_app/api-faults" class="card"><input type="hidden" name="csrf" value="${o.csrf}">
<h2>Add a fault</h2>
<label>Route <input name="route" value="POST /automations/*/runs" required></label>
<label>Fault <select name="fault"><option value="status">status</option><option value="stall">stall the body</option><option value="delay">delay</option><option value="drop">drop the answer</option></select></label>
<label>Status <select name="status"><option>503</option><option>429</option><option>500</option><option>502</option></select></label>
<label>Milliseconds (stall, delay) <input name="ms" type="number" min="1" value="2000"></label>
<label>Count <input name="count" type="number" min="1" value="1"></label>
<label>Environment <select name="environment"><option value="">any</option>${o.environments.map((e) => html`<option>${e}</option>`)}</select></label>
<label>Workspace <input name="workspace" placeholder="any"></label>
<button type="submit">Add fault</button></form>
<h2>Faults</h2>
<table><thead><tr><th scope="col">Id</th><th scope="col">Route</th><th scope="col">Fault</th><th scope="col">Environment</th><th scope="col">Workspace</th><th scope="col">Left</th><th scope="col">Probability</th><th scope="col">Hits</th><th scope="col"></th></tr></thead><tbody>${
    o.faults.length === 0
      ? html`<tr><td colspan="9">No API faults.</td></tr>`
      : o.faults.map(
          (f) =>
            html`<tr data-fault-id="${f.id}"><td><code>${f.id}</code></td><td><code>${f.route}</code></td><td>${f.what}</td><td>${f.environment ?? "any"}</td><td>${f.workspace ?? "any"}</td><td>${f.remaining === null ? "no limit" : String(f.remaining)}</td><td>${String(f.probability)}</td><td>${String(f.hits)}</td><td><form method="post" action="/_app/api-faults/${f.id}/remove"><input type="hidden" name="csrf" value="${o.csrf}"><button type="submit" aria-label="Remove fault ${f.id}">Remove</button></form></td></tr>`,
        )
  }</tbody></table>`;
}

export function vaultPage(
  envs: { name: string; entries: { name: string; usedBy: string[] }[] }[],
): SafeHtml {
  return html`<h1>Vault</h1>
<p>Credentials are used by workflows at run time by name. Their values are never shown, returned or logged.</p>
${envs.map(
  (e) =>
    html`<section><h2>${e.name}</h2>${
      e.entries.length === 0
        ? html`<p>No credentials.</p>`
        : html`<table><thead><tr><th scope="col">Name</th><th scope="col">Used by</th></tr></thead><tbody>${e.entries.map(
            (v) =>
              html`<tr><td><code>${v.name}</code></td><td>${v.usedBy.length === 0 ? "no workflow yet" : v.usedBy.join(", ")}</td></tr>`,
          )}</tbody></table>`
    }</section>`,
)}`;
}

export function workflowsPage(o: {
  environments: {
    name: string;
    workflows: { def: WorkflowDef; scenario: Scenario | undefined; custom: boolean }[];
  }[];
  csrf: string;
}): SafeHtml {
  return html`<h1>Workflows</h1>
${o.environments.map(
  (e) =>
    html`<section><h2>${e.name}</h2><form method="post" action="/_app/environments/${e.name}/reset" class="reset"><input type="hidden" name="csrf" value="${o.csrf}"><button type="submit">Reset ${e.name}: forget its runs, deliveries and scenarios</button></form><table><thead><tr><th scope="col">Workflow</th><th scope="col">State</th><th scope="col">Revision</th><th scope="col">Scenario</th><th scope="col"></th></tr></thead><tbody>${e.workflows.map(
      ({ def, scenario, custom }) =>
        html`<tr data-workflow-id="${def.id}"><td>${def.name} <span class="muted"><code>${def.id}</code></span></td><td>${def.state}</td><td>${def.revision}</td><td><details><summary>${custom ? "set through the admin API" : "from the catalog"} (${scenario?.steps.length ?? 0} steps)</summary>${jsonBlock(scenario ?? null)}</details></td><td><form method="post" action="/_app/workflows/${e.name}/${def.id}/state"><input type="hidden" name="csrf" value="${o.csrf}"><input type="hidden" name="state" value="${def.state === "enabled" ? "disabled" : "enabled"}"><button type="submit" aria-label="${def.state === "enabled" ? "Disable" : "Enable"} ${def.name}">${def.state === "enabled" ? "Disable" : "Enable"}</button></form></td></tr>`,
    )}</tbody></table></section>`,
)}`;
}

/** Sign-out asks with a form (a POST with its CSRF token): a link could be followed by anyone's page. */
export function signOutPage(csrf: string): SafeHtml {
  return html`<h1>Sign out</h1>
<p>This browser's portal session ends now; a new one needs a new sign-in link.</p>
<form method="post" action="/_app/sign-out"><input type="hidden" name="csrf" value="${csrf}"><button type="submit">Sign out</button></form>`;
}

export function signedOutPage(): SafeHtml {
  return html`<h1>Signed out</h1>
<p>The session has ended. Open a new one-time sign-in link to come back.</p>`;
}

export function signInNeededPage(): SafeHtml {
  return html`<h1>Sign in</h1>
<p>Open the one-time sign-in link that <code>wfr-emulator</code> (or <code>wfr emulator</code>) printed when it started.</p>
<p>A new link: <code>curl -X POST -H 'content-type: application/json' -d '{}' http://&lt;emulator&gt;/_emulator/sign-in-links</code></p>`;
}
