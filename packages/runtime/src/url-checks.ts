import { isNonPublicIPv4, isNonPublicIPv6, parseIPv4, parseIPv6 } from "./ip-address.js";

export type UrlCheck =
  | { readonly ok: true; readonly url: URL }
  | { readonly ok: false; readonly reason: string };

const NON_PUBLIC_HOSTNAMES = new Set(["localhost", "metadata.google.internal", "metadata"]);

function hostWithoutBrackets(url: URL): string {
  return url.hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
}

/**
 * Checks that a callback_url is a public HTTPS receiver (spec, Launch body:
 * "A private or localhost address is not a public receiver"). Rejects
 * non-https, credentials in the URL, localhost and *.localhost, cloud
 * metadata names, and IP literals that are loopback, private, CGNAT,
 * link-local, unique-local or IPv4-mapped forms of those. Pure: it does not
 * resolve DNS, so a public name pointing at a private address is the
 * receiver operator's concern.
 */
export function checkPublicCallbackUrl(value: string): UrlCheck {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, reason: "callback_url is not an absolute URL" };
  }
  if (url.protocol !== "https:") return { ok: false, reason: "callback_url must use https" };
  if (url.username || url.password)
    return { ok: false, reason: "callback_url must not carry credentials" };
  const host = hostWithoutBrackets(url);
  if (NON_PUBLIC_HOSTNAMES.has(host) || host.endsWith(".localhost")) {
    return { ok: false, reason: `callback_url host ${host} is not a public receiver` };
  }
  const v4 = parseIPv4(host);
  if (v4 && isNonPublicIPv4(v4))
    return { ok: false, reason: `callback_url address ${host} is not public` };
  if (host.includes(":")) {
    const v6 = parseIPv6(host);
    if (!v6 || isNonPublicIPv6(v6))
      return { ok: false, reason: `callback_url address ${host} is not public` };
  }
  return { ok: true, url };
}

/** True for localhost, 127.0.0.0/8 and ::1: the only hosts a base URL may reach over plain http. */
export function isLoopbackHost(url: URL): boolean {
  const host = hostWithoutBrackets(url);
  if (host === "localhost" || host === "::1") return true;
  const v4 = parseIPv4(host);
  return v4 !== undefined && v4[0] === 127;
}

/**
 * Checks an API base URL (docs/service-rules.md#addresses: "the API base is {base_url} (it ends in the
 * version prefix /api/v1)"): https, or http to a loopback host only; no
 * credentials, query or fragment. Returns it without a trailing slash.
 */
export function checkBaseUrl(
  value: string,
): { ok: true; baseUrl: string } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, reason: "baseUrl is not an absolute URL" };
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url))) {
    return { ok: false, reason: "baseUrl must use https (plain http only for loopback hosts)" };
  }
  if (url.username || url.password)
    return { ok: false, reason: "baseUrl must not carry credentials" };
  if (url.search || url.hash)
    return { ok: false, reason: "baseUrl must not have a query or fragment" };
  const path = url.pathname.replace(/\/+$/, "");
  if (!path.endsWith("/api/v1")) return { ok: false, reason: "baseUrl must end in /api/v1" };
  return { ok: true, baseUrl: `${url.origin}${path}` };
}
