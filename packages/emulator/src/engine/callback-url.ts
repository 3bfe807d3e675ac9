// docs/service-rules.md#launch-body: callback_url must be a public HTTPS URL; a private or localhost address
// is not a public receiver. `allowLocal` (--allow-local-callbacks) lifts this for local testing.
import { isIP } from "node:net";

type CallbackUrlCheck = { ok: true; url: string } | { ok: false; reason: string };

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

/** The 8 16-bit groups of an IPv6 address (dotted-quad tails included), or null. */
function ipv6Groups(ip: string): number[] | null {
  let v = ip.toLowerCase().split("%")[0] ?? "";
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(v);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    v = `${v.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = v.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  if (fill < 0 || (halves.length === 1 && head.length !== 8)) return null;
  const groups = [...head, ...Array(fill).fill("0"), ...tail].map((g) => Number.parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : null;
}

const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * Every IPv6 spelling of a non-public address: unspecified, loopback, IPv4-compatible
 * (::127.0.0.1), IPv4-mapped and NAT64 (64:ff9b::/96) of a private IPv4, 6to4 (2002::/16) of a
 * private IPv4, Teredo, ULA fc00::/7, link-local, site-local fec0::/10, multicast, discard and
 * documentation prefixes.
 */
function ipv6Private(ip: string): boolean {
  const g = ipv6Groups(ip);
  if (g === null) return true;
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroTo(6)) return true; // ::, ::1, ::a.b.c.d (deprecated IPv4-compatible)
  if (zeroTo(5) && g5 === 0xffff) return ipv4Private(v4(g6, g7)); // ::ffff:a.b.c.d
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return true; // ::ffff:0:a.b.c.d (SIIT)
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0)
    return ipv4Private(v4(g6, g7)); // NAT64 well-known prefix
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return true; // local-use NAT64
  if (g0 === 0x2002) return ipv4Private(v4(g1, g2)); // 6to4
  if (g0 === 0x2001 && g1 === 0) return true; // Teredo
  if (g0 === 0x2001 && g1 === 0xdb8) return true; // documentation
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return true; // discard
  if ((g0 & 0xfe00) === 0xfc00) return true; // ULA fc00::/7
  if ((g0 & 0xffc0) === 0xfe80 || (g0 & 0xffc0) === 0xfec0) return true; // link/site-local
  if ((g0 & 0xff00) === 0xff00) return true; // multicast
  return false;
}

/** Whether an IP address (v4 or v6 literal, without brackets) is not a public address. */
export function isPrivateAddress(ip: string): boolean {
  const kind = isIP(ip);
  if (kind === 4) return ipv4Private(ip);
  if (kind === 6) return ipv6Private(ip);
  return true;
}

function isPrivateHost(hostname: string): boolean {
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
