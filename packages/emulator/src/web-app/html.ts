// Server-rendered HTML for the web application: every interpolated value is escaped unless it
// is a fragment made by `html` itself, so no page can carry markup from a run, an input or a name.

/** A piece of HTML that is already safe to embed. */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

type Interpolation = SafeHtml | string | number | boolean | null | undefined | Interpolation[];

function render(v: Interpolation): string {
  if (v === null || v === undefined || v === false) return "";
  if (v instanceof SafeHtml) return v.text;
  if (Array.isArray(v)) return v.map(render).join("");
  return escapeHtml(String(v));
}

/** `html\`<p>${value}</p>\`` escapes `value`; nested `html` fragments and arrays of them are kept. */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0] ?? "";
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? "");
  return new SafeHtml(out);
}

/** JSON shown in a <pre>: indented, escaped. */
export function jsonBlock(value: unknown): SafeHtml {
  return html`<pre class="json">${JSON.stringify(value, null, 2) ?? "null"}</pre>`;
}

interface LayoutOptions {
  title: string;
  /** Which navigation entry is current. */
  current?: "runs" | "docs" | "keys" | "vault" | "workflows" | "tokens" | "faults" | "sign-out";
  body: SafeHtml;
  signedIn: boolean;
}

const NAV: [NonNullable<LayoutOptions["current"]>, string, string][] = [
  ["runs", "/", "Runs"],
  ["workflows", "/_app/workflows", "Workflows"],
  ["docs", "/_app/docs", "API docs"],
  ["keys", "/_app/keys", "API keys"],
  ["vault", "/_app/vault", "Vault"],
  ["tokens", "/_app/tokens", "Personal access tokens"],
  ["faults", "/_app/api-faults", "API faults"],
  ["sign-out", "/_app/sign-out", "Sign out"],
];

export function layout(o: LayoutOptions): string {
  const nav = o.signedIn
    ? html`<nav aria-label="Main"><ul>${NAV.map(
        ([id, href, label]) =>
          html`<li><a href="${href}"${id === o.current ? new SafeHtml(' aria-current="page"') : ""}>${label}</a></li>`,
      )}</ul></nav>`
    : "";
  return `<!doctype html>${html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${o.title} · wfr emulator</title><link rel="stylesheet" href="/_app/assets/app.css"><script src="/_app/assets/app.js" defer></script></head><body><a class="skip" href="#main">Skip to content</a><header><span class="brand">wfr emulator</span>${nav}</header><main id="main" tabindex="-1">${o.body}</main></body></html>`}`;
}
