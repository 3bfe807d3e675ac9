// Just enough HTTP/1.1 framing for the fault proxy (fault-proxy.ts): where a request's head
// ends, how long its body is, which idempotency key it carries, the head rewritten so that each
// connection carries one exchange, and the gateway's own 502 page. Pure: bytes in, bytes out.

const HEAD_END = Buffer.from("\r\n\r\n");

/** The length of the head, its blank line included, or -1 while it is incomplete. */
export function headLength(bytes: Buffer): number {
  const at = bytes.indexOf(HEAD_END);
  return at < 0 ? -1 : at + HEAD_END.length;
}

export interface RequestHead {
  /** The request line, e.g. `POST /production/api/v1/automations/wf_1/runs HTTP/1.1`. */
  readonly requestLine: string;
  /** Header names in lower case, values trimmed; a repeated header keeps its last value. */
  readonly headers: ReadonlyMap<string, string>;
  /** The body's length from Content-Length; 0 without one. */
  readonly contentLength: number;
  /** A chunked body: the proxy cannot tell where it ends and passes it through untouched. */
  readonly chunked: boolean;
}

/** Parses a head as `headLength` found it (its blank line included or not). */
export function parseRequestHead(head: Buffer): RequestHead {
  const lines = head.toString("latin1").split("\r\n");
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const length = Number(headers.get("content-length") ?? "0");
  return {
    requestLine: lines[0] ?? "",
    headers,
    contentLength: Number.isSafeInteger(length) && length >= 0 ? length : 0,
    chunked: /chunked/i.test(headers.get("transfer-encoding") ?? ""),
  };
}

/**
 * The head with `Connection: close` in place of the client's connection headers: the server
 * then answers one request and closes, so the proxy's unit, a connection, is one exchange, and
 * the client (told `close` in the answer too) opens a new connection for its next request.
 */
export function headWithConnectionClose(head: Buffer): Buffer {
  const lines = head.toString("latin1").split("\r\n");
  const kept = lines.filter(
    (line, index) => index === 0 || (line !== "" && !/^(connection|keep-alive)\s*:/i.test(line)),
  );
  return Buffer.from(`${kept.join("\r\n")}\r\nconnection: close\r\n\r\n`, "latin1");
}

/**
 * What a gateway answers when its upstream failed it: 502 with an HTML page, no JSON and no
 * error code (the case the runtime must treat as a retryable answer, not as the API's error).
 */
export function gatewayPage(): Buffer {
  const body =
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n" +
    "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
  return Buffer.from(
    "HTTP/1.1 502 Bad Gateway\r\nserver: nginx\r\ncontent-type: text/html\r\n" +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    "latin1",
  );
}

/**
 * Where a truncated answer is cut: inside the body when there is one (the head promised more
 * bytes than come), else inside the head.
 */
export function truncationPoint(response: Buffer): number {
  const head = headLength(response);
  if (head < 0 || head >= response.length) return Math.max(1, Math.floor(response.length / 2));
  return head + Math.floor((response.length - head) / 2);
}
