// Copied into every generated package as `_shared/formats` (see support.ts):
// the `format` checks of the value rules (value-rules.ts).

// The asserted formats (date, date-time, email, uri; RFC 3339 / 5321 / 3986)
// are the emulator's own checks (its src/formats.ts), line for line: the
// JSON-Schema-Test-Suite judges both, and codegen's differential test holds
// them together. Every other `format` is an annotation.
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

// RFC 5321 mailbox: a dot-atom or quoted local part; a host name or an address literal.
const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const LOCAL = `(?:${ATOM}(?:\\.${ATOM})*|"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\[\\x20-\\x7e])*")`;
const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
const EMAIL = new RegExp(
  `^${LOCAL}@(?:(${LABEL}(?:\\.${LABEL})*)|\\[(?:IPv6:([^\\]]*)|([0-9.]+))\\])$`,
);

// RFC 3986 absolute URI.
const UNRESERVED = "A-Za-z0-9\\-._~";
const SUB_DELIMS = "!$&'()*+,;=";
const PCT = "%[0-9A-Fa-f]{2}";
const PCHAR = `(?:[${UNRESERVED}${SUB_DELIMS}:@]|${PCT})`;
const URI = new RegExp(
  `^[A-Za-z][A-Za-z0-9+.-]*:(?://((?:[${UNRESERVED}${SUB_DELIMS}:]|${PCT})*@)?(\\[[^\\]]*\\]|(?:[${UNRESERVED}${SUB_DELIMS}]|${PCT})*)(?::\\d*)?(?:/${PCHAR}*)*|/(?:${PCHAR}+(?:/${PCHAR}*)*)?|${PCHAR}+(?:/${PCHAR}*)*|)(?:\\?(?:${PCHAR}|[/?])*)?(?:#(?:${PCHAR}|[/?])*)?$`,
);

function isLeapYear(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

/** A calendar date (any year 0000-9999: no Date arithmetic, which maps 0-99 to 19xx). */
function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = [31, isLeapYear(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][
    m - 1
  ] as number;
  return d <= days;
}

function validDateTime(v: string): boolean {
  const m = DATE_TIME.exec(v);
  if (m === null || !validDate(Number(m[1]), Number(m[2]), Number(m[3]))) return false;
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6])];
  const [offsetHour, offsetMinute] = [Number(m[8] ?? 0), Number(m[9] ?? 0)];
  if (hour > 23 || minute > 59 || second > 60 || offsetHour > 23 || offsetMinute > 59) return false;
  if (second < 60) return true;
  // A leap second is the last second of a UTC day: 23:59:60 once the offset is taken off.
  const sign = m[7] === "-" ? -1 : 1;
  const utcMinutes = (hour * 60 + minute - sign * (offsetHour * 60 + offsetMinute) + 1440) % 1440;
  return utcMinutes === 23 * 60 + 59;
}

function validIpv4(v: string): boolean {
  const parts = v.split(".");
  return (
    parts.length === 4 && parts.every((p) => /^(?:0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255)
  );
}

function validIpv6(v: string): boolean {
  let text = v;
  let groups = 8;
  const lastColon = text.lastIndexOf(":");
  if (text.slice(lastColon + 1).includes(".")) {
    if (!validIpv4(text.slice(lastColon + 1))) return false;
    text = `${text.slice(0, lastColon + 1)}0`;
    groups = 7;
  }
  const halves = text.split("::");
  if (halves.length > 2) return false;
  const hex = (part: string) => (part === "" ? [] : part.split(":"));
  const head = hex(halves[0] as string);
  const tail = halves.length === 2 ? hex(halves[1] as string) : [];
  const all = [...head, ...tail];
  if (!all.every((g) => /^[0-9A-Fa-f]{1,4}$/.test(g))) return false;
  if (groups === 7) all.pop();
  return halves.length === 2 ? all.length < groups : all.length === groups;
}

function validEmail(v: string): boolean {
  const m = EMAIL.exec(v);
  if (m === null) return false;
  if (m[2] !== undefined) return validIpv6(m[2]);
  if (m[3] !== undefined) return validIpv4(m[3]);
  return true;
}

function validUri(v: string): boolean {
  const m = URI.exec(v);
  if (m === null) return false;
  const host = m[2];
  if (host?.startsWith("[")) {
    const literal = host.slice(1, -1);
    return /^v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+$/.test(literal) || validIpv6(literal);
  }
  return true;
}

/** The formats asserted; any other `format` is an annotation and accepts every string. */
const ASSERTED_FORMATS = {
  date: (v: string) => {
    const m = DATE.exec(v);
    return m !== null && validDate(Number(m[1]), Number(m[2]), Number(m[3]));
  },
  "date-time": validDateTime,
  email: validEmail,
  uri: validUri,
} as const satisfies Record<string, (v: string) => boolean>;

export function checkFormat(format: string, v: string): boolean {
  if (!Object.hasOwn(ASSERTED_FORMATS, format)) return true;
  return (ASSERTED_FORMATS as Record<string, (v: string) => boolean>)[format]?.(v) === true;
}
