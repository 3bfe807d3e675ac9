// Pure parsing and classification of the IP literals that a WHATWG URL
// hostname can hold (it has already normalised 127.1, 0x7f.1, 2130706433
// and IPv6 spellings into canonical form).

/** Four octets of a dotted-quad hostname, or undefined. */
export function parseIPv4(host: string): [number, number, number, number] | undefined {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!match) return undefined;
  const octets = match.slice(1).map(Number);
  if (octets.some((octet) => octet > 255)) return undefined;
  return octets as [number, number, number, number];
}

/** Eight 16-bit groups of an IPv6 literal (without brackets), or undefined. */
export function parseIPv6(host: string): number[] | undefined {
  let text = host;
  const tail: number[] = [];
  const embedded = /(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(text);
  if (embedded?.[1]) {
    const v4 = parseIPv4(embedded[1]);
    if (!v4) return undefined;
    tail.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
    text = text.slice(0, -embedded[1].length);
    if (text.endsWith(":") && !text.endsWith("::")) text = text.slice(0, -1);
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (part: string | undefined): number[] | undefined => {
    if (!part) return [];
    const groups = part.split(":");
    if (groups.some((group) => !/^[0-9a-f]{1,4}$/i.test(group))) return undefined;
    return groups.map((group) => Number.parseInt(group, 16));
  };
  const head = parse(halves[0]);
  const rest = parse(halves[1]);
  if (!head || !rest) return undefined;
  const known = head.length + rest.length + tail.length;
  if (halves.length === 1) return known === 8 ? [...head, ...tail] : undefined;
  if (known > 7) return undefined;
  return [...head, ...new Array<number>(8 - known).fill(0), ...rest, ...tail];
}

/** True for addresses that are not on the public internet (RFC 1918, 6598, 3927, loopback, ...). */
export function isNonPublicIPv4([a, b]: readonly number[]): boolean {
  if (a === undefined || b === undefined) return true;
  return (
    a === 0 || // 0.0.0.0/8 "this network"
    a === 10 || // 10/8 private
    a === 127 || // loopback
    (a === 100 && b >= 64 && b <= 127) || // 100.64/10 CGNAT
    (a === 169 && b === 254) || // link-local, incl. 169.254.169.254 metadata
    (a === 172 && b >= 16 && b <= 31) || // 172.16/12 private
    (a === 192 && b === 168) || // 192.168/16 private
    (a === 192 && b === 0) || // 192.0.0/24 protocol assignments
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    a >= 224 // multicast, reserved, broadcast
  );
}

/** True for IPv6 loopback, unspecified, unique-local, link-local, multicast, or an embedded non-public IPv4. */
export function isNonPublicIPv6(groups: readonly number[]): boolean {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  const embeddedV4 = [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff];
  const firstFiveZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (firstFiveZero && g5 === 0) return true; // ::, ::1, and deprecated IPv4-compatible ::a.b.c.d
  if (firstFiveZero && g5 === 0xffff) return isNonPublicIPv4(embeddedV4); // IPv4-mapped
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return isNonPublicIPv4(embeddedV4); // NAT64 64:ff9b::/96
  }
  return (
    (g0 & 0xfe00) === 0xfc00 || // fc00::/7 unique-local
    (g0 & 0xffc0) === 0xfe80 || // fe80::/10 link-local
    (g0 & 0xffc0) === 0xfec0 || // fec0::/10 deprecated site-local
    (g0 & 0xff00) === 0xff00 // multicast
  );
}
