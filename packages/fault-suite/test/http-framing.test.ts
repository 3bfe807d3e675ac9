import { describe, expect, it } from "vitest";
import {
  gatewayPage,
  headLength,
  headWithConnectionClose,
  parseRequestHead,
  truncationPoint,
} from "../src/http-framing.js";

const request = Buffer.from(
  "POST /production/api/v1/automations/wf_1/runs HTTP/1.1\r\nhost: 127.0.0.1\r\n" +
    "connection: keep-alive\r\nKeep-Alive: timeout=5\r\nIdempotency-Key: launch-7\r\n" +
    "content-length: 2\r\n\r\n{}",
);

describe("request framing", () => {
  it("finds the end of the head, and -1 while it is incomplete", () => {
    expect(headLength(request)).toBe(request.length - 2);
    expect(headLength(request.subarray(0, 20))).toBe(-1);
  });

  it("reads the length, the idempotency key and chunking", () => {
    const head = parseRequestHead(request.subarray(0, headLength(request)));
    expect(head.requestLine).toBe("POST /production/api/v1/automations/wf_1/runs HTTP/1.1");
    expect(head.contentLength).toBe(2);
    expect(head.headers.get("idempotency-key")).toBe("launch-7");
    expect(head.chunked).toBe(false);
    const chunked = parseRequestHead(
      Buffer.from("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"),
    );
    expect(chunked).toMatchObject({ chunked: true, contentLength: 0 });
  });

  it("rewrites the head to one exchange per connection", () => {
    const head = headWithConnectionClose(request.subarray(0, headLength(request))).toString();
    expect(head).not.toMatch(/keep-alive/i);
    expect(head.match(/connection:/gi)).toHaveLength(1);
    expect(head).toMatch(/\r\nconnection: close\r\n\r\n$/);
    expect(head).toContain("Idempotency-Key: launch-7\r\n");
  });
});

describe("answers", () => {
  it("the gateway's 502 is HTML, complete, with no error code", () => {
    const page = gatewayPage().toString();
    const bodyAt = headLength(gatewayPage());
    expect(page.startsWith("HTTP/1.1 502 Bad Gateway\r\n")).toBe(true);
    expect(page).toMatch(/content-type: text\/html/);
    expect(Number(/content-length: (\d+)/.exec(page)?.[1])).toBe(gatewayPage().length - bodyAt);
    expect(page).not.toMatch(/"code"/);
  });

  it("cuts a truncated answer inside its body, or inside its head when it has none", () => {
    const response = Buffer.from('HTTP/1.1 202 Accepted\r\ncontent-length: 10\r\n\r\n{"a":"bc"}');
    const head = headLength(response);
    const cut = truncationPoint(response);
    expect(cut).toBeGreaterThanOrEqual(head);
    expect(cut).toBeLessThan(response.length);
    const bare = Buffer.from("HTTP/1.1 204 No Content\r\n\r\n");
    expect(truncationPoint(bare)).toBeLessThan(bare.length);
  });
});
