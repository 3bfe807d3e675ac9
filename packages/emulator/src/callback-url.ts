// Spec "Launch body": callback_url must be a public HTTPS URL; a private or localhost address
// is not a public receiver. `allowLocal` (--allow-local-callbacks) lifts this for local testing.
import { isIP } from "node:net";

export type CallbackUrlCheck = { ok: true; url: string } | { ok: false; reason: string };

function ipv4Private(ip: string): boolean {
  const p = ip.split(".").map(Number);
  const [a = 0, b = 0] = p;
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
}

function ipv6Private(ip: string): boolean {
  const v = ip.toLowerCase();
  if (v === "::" || v === "::1") return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v);
  if (mapped?.[1]) return ipv4Private(mapped[1]);
  if (/^::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}$/.test(v)) return true;
  return /^(fc|fd|fe8|fe9|fea|feb|ff)/.test(v);
}

export function isPrivateHost(hostname: string): boolean {
  let h = hostname.toLowerCase().replace(/\.$/, "");
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  if (h === "" || h === "localhost" || h.endsWith(".localhost")) return true;
  if (h.endsWith(".local") || h.endsWith(".internal") || h.endsWith(".lan")) return true;
  if (h.endsWith(".home.arpa")) return true;
  const kind = isIP(h);
  if (kind === 4) return ipv4Private(h);
  if (kind === 6) return ipv6Private(h);
  // Bare numeric forms such as 2130706433 or 0x7f.1 are how loopback hides; reject them.
  if (/^[0-9.]+$/.test(h) || /^0x/i.test(h)) return true;
  if (!h.includes(".")) return true; // single-label names are not public
  return false;
}

export function checkCallbackUrl(value: unknown, allowLocal: boolean): CallbackUrlCheck {
  if (typeof value !== "string" || value.length === 0) {
    return { ok: false, reason: "callback_url must be a non-empty string" };
  }
  if (value.length > 2048) return { ok: false, reason: "callback_url is longer than 2048" };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, reason: "callback_url is not a valid absolute URL" };
  }
  if (url.username || url.password) {
    return { ok: false, reason: "callback_url must not carry credentials" };
  }
  if (allowLocal) {
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      return { ok: false, reason: "callback_url must be http(s)" };
    }
    return { ok: true, url: url.toString() };
  }
  if (url.protocol !== "https:") return { ok: false, reason: "callback_url must use HTTPS" };
  if (isPrivateHost(url.hostname)) {
    return { ok: false, reason: "callback_url must be a public address, not private or localhost" };
  }
  return { ok: true, url: url.toString() };
}
