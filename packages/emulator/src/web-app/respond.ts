// How the web application answers: HTML and text with its security headers, pages in the
// layout, and redirects after a form.

import type { ServerResponse } from "node:http";
import { layout, type SafeHtml } from "./html.js";

export function send(
  res: ServerResponse,
  status: number,
  body: string,
  type: string,
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, {
    "Content-Type": type,
    "Content-Length": Buffer.byteLength(body),
    "Cache-Control": "no-store",
    // No external CDN, no inline script: everything the pages load comes from here.
    "Content-Security-Policy":
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    ...extra,
  });
  res.end(body);
}

export function page(
  res: ServerResponse,
  status: number,
  title: string,
  body: SafeHtml,
  current?: Parameters<typeof layout>[0]["current"],
): void {
  send(
    res,
    status,
    layout({ title, body, signedIn: status !== 401, ...(current ? { current } : {}) }),
    "text/html; charset=utf-8",
  );
}

export function redirect(
  res: ServerResponse,
  to: string,
  extra: Record<string, string> = {},
): void {
  res.writeHead(303, {
    Location: to,
    "Content-Length": "0",
    "Cache-Control": "no-store",
    ...extra,
  });
  res.end();
}
