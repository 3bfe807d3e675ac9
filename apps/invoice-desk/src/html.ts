// Server-rendered HTML with every interpolated value escaped unless it is
// already markup built by `html`.
const RAW = Symbol("raw html");
export interface Html {
  readonly [RAW]: string;
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return "";
  if (Array.isArray(value)) return value.map(render).join("");
  if (typeof value === "object" && RAW in value) return (value as Html)[RAW];
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? "";
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? "");
  });
  return { [RAW]: out };
}

export const renderHtml = (markup: Html) => markup[RAW];

/** Markup written in this code base (a style sheet), never user data. */
export const trustedMarkup = (text: string): Html => ({ [RAW]: text });
