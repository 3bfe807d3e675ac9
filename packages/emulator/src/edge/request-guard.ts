// Who may talk to the emulator at all (browsers and other hosts cannot drive it):
// - the Host header must name an address the server listens on (DNS rebinding: a page on
//   attacker.example resolving to 127.0.0.1 sends Host: attacker.example);
// - the admin API refuses cross-site browser requests (Origin / Sec-Fetch-Site) and bodies that
//   are not JSON (a cross-site form or text/plain POST needs no preflight);
// - with an admin token, the admin API needs it as a bearer token.

import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { networkInterfaces } from "node:os";
import { CODE } from "@wfr/protocol";

interface GuardProblem {
  status: number;
  code: string;
  message: string;
}

const bracket = (h: string): string => (h.includes(":") && !h.startsWith("[") ? `[${h}]` : h);

/** Host names a request may carry for a server listening on `host` (plus `extra`). */
export function allowedHostNames(host: string, extra: readonly string[] = []): Set<string> {
  const names = new Set(["localhost", "127.0.0.1", "[::1]", bracket(host).toLowerCase()]);
  if (host === "0.0.0.0" || host === "::" || host === "[::]") {
    // Listening everywhere: every address of this machine is a legitimate Host.
    for (const list of Object.values(networkInterfaces()))
      for (const a of list ?? []) names.add(bracket(a.address.split("%")[0] ?? a.address));
  }
  for (const e of extra) names.add(bracket(e).toLowerCase());
  return names;
}

/** The host name of a Host header, without its port; null when it is not a host[:port]. */
function hostNameOf(header: string): string | null {
  const h = header.trim().toLowerCase();
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/.exec(h);
  return m?.[1] ?? null;
}

export function checkHost(
  headers: IncomingHttpHeaders,
  allowed: ReadonlySet<string>,
  rawHeaders: readonly string[] = [],
): GuardProblem | null {
  // Node keeps the first of several Host headers; a proxy in front may keep the last. RFC 9112
  // 3.2: a request with more than one Host field is answered 400, never served.
  let hosts = 0;
  for (let i = 0; i < rawHeaders.length; i += 2)
    if (rawHeaders[i]?.toLowerCase() === "host") hosts++;
  if (hosts > 1)
    return {
      status: 400,
      code: CODE.HOST_NOT_ALLOWED,
      message: "the request has more than one Host header",
    };
  const host = headers.host;
  if (host === undefined) return null; // HTTP/1.0 clients: nothing to rebind
  const name = hostNameOf(host);
  if (name !== null && allowed.has(name)) return null;
  return {
    status: 421,
    code: CODE.HOST_NOT_ALLOWED,
    message:
      "the Host header names no address this emulator listens on (start it with --host or --allowed-host to accept another)",
  };
}

const hash = (s: string) => createHash("sha256").update(s, "utf8").digest();

export function checkAdminRequest(
  method: string,
  headers: IncomingHttpHeaders,
  sameOrigins: ReadonlySet<string>,
  adminToken: string | undefined,
): GuardProblem | null {
  const site = headers["sec-fetch-site"];
  if (typeof site === "string" && site !== "same-origin" && site !== "none") {
    return {
      status: 403,
      code: CODE.CROSS_SITE_ADMIN_REQUEST,
      message: `the admin API refuses ${site} browser requests`,
    };
  }
  const origin = headers.origin;
  if (typeof origin === "string" && !sameOrigins.has(origin.toLowerCase())) {
    return {
      status: 403,
      code: CODE.CROSS_SITE_ADMIN_REQUEST,
      message: "the admin API refuses requests from another origin",
    };
  }
  if (adminToken !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? "");
    if (!m?.[1] || !timingSafeEqual(hash(m[1]), hash(adminToken))) {
      return {
        status: 401,
        code: CODE.ADMIN_TOKEN_REQUIRED,
        message: "this emulator was started with --admin-token: send Authorization: Bearer <token>",
      };
    }
  }
  const hasBody =
    (headers["content-length"] !== undefined && headers["content-length"] !== "0") ||
    headers["transfer-encoding"] !== undefined;
  if ((method === "POST" || method === "PUT" || method === "PATCH") && hasBody) {
    const type = (headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
    if (type !== "application/json") {
      return {
        status: 415,
        code: CODE.UNSUPPORTED_MEDIA_TYPE,
        message: "the admin API accepts only Content-Type: application/json",
      };
    }
  }
  return null;
}
