// How the web application answers: HTML and text with its security headers, pages in the
// layout, and redirects after a form.

import type { ServerResponse } from "node:http";
import { CLEARED_PORTAL_SESSION_COOKIE } from "../access/portal-sessions.js";
import { APP_PAGE_HEADERS } from "../http/page-headers.js";
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
    // No external CDN, no inline script: everything the pages load comes from here.
    ...APP_PAGE_HEADERS,
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
  extra: Record<string, string> = {},
): void {
  const signedIn = status !== 401 && extra["Set-Cookie"] !== CLEARED_PORTAL_SESSION_COOKIE;
  send(
    res,
    status,
    layout({ title, body, signedIn, ...(current ? { current } : {}) }),
    "text/html; charset=utf-8",
    extra,
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
