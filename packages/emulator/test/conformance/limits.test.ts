import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, Harness, INVOICE, invoiceBody, type Json, type Res } from "./support.js";

const BODY_LIMIT = 37_748_736; // 36 MiB
const ATTACHMENT_LIMIT = 26_214_400; // 25 MiB

let h: Harness;
let c: Client;

beforeAll(async () => {
  h = await Harness.start();
  c = await h.client();
  await h.scenario("production", INVOICE, { steps: [{ wait_ms: 60_000 }, { succeed: {} }] });
});
afterAll(() => h?.close());

/** A valid launch body padded (inside metadata) to exactly `size` bytes. */
function paddedBody(size: number): Buffer {
  const head = Buffer.from(`${JSON.stringify(invoiceBody()).slice(0, -1)},"metadata":{"pad":"`);
  const tail = Buffer.from(`"}}`);
  const padLen = size - head.length - tail.length;
  const buf = Buffer.allocUnsafe(size);
  head.copy(buf, 0);
  buf.fill(0x61, head.length, head.length + padLen);
  tail.copy(buf, head.length + padLen);
  return buf;
}

/** A launch body whose attachments decode to the given sizes (ids big0, big1, ...). */
function attachmentBody(sizes: number[]): Buffer {
  const body = invoiceBody();
  const parts: Buffer[] = [];
  const attachments = sizes.map((_n, i) => ({
    id: `big${i}`,
    filename: `big${i}.pdf`,
    mimeType: "application/pdf",
    base64: `@@B64_${i}@@`,
  }));
  body.inputs.supporting_docs = attachments.map((a) => ({ attachment_id: a.id }));
  body.input_context.attachments.push(...attachments);
  let text = JSON.stringify(body);
  sizes.forEach((n, i) => {
    const marker = `@@B64_${i}@@`;
    const at = text.indexOf(marker);
    parts.push(Buffer.from(text.slice(0, at)));
    parts.push(Buffer.from(Buffer.alloc(n, 0x25).toString("base64")));
    text = text.slice(at + marker.length);
  });
  parts.push(Buffer.from(text));
  return Buffer.concat(parts);
}

/**
 * POST with node:http so that an early 413 (the server may answer while the body is
 * still streaming and then close) is read rather than surfacing as a write error.
 */
function post(body: Buffer): Promise<Res> {
  const url = new URL(`${c.base}/automations/${INVOICE}/runs`);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(
      url,
      {
        method: "POST",
        headers: {
          authorization: `Bearer ${c.token}`,
          "content-type": "application/json",
          "content-length": String(body.length),
        },
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("error", reject);
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (typeof v === "string") headers.set(k, v);
          }
          resolve({ status: res.statusCode ?? 0, headers, text, body: parsed });
          // The server reads and discards what is still coming after an early 413: the answer
          // is here, so stop uploading (as postChunked does), rather than leave a socket writing
          // into a server the file's afterAll closes.
          req.destroy();
        });
      },
    );
    req.on("error", (err) => {
      if (!answered) setTimeout(() => (answered ? undefined : reject(err)), 500);
    });
    req.end(body);
  });
}

/** Stream `total` bytes with chunked transfer encoding (no Content-Length); stop on an answer. */
function postChunked(total: number): Promise<{ status: number; body: Json; sent: number }> {
  const url = new URL(`${c.base}/automations/${INVOICE}/runs`);
  return new Promise((resolve, reject) => {
    let answered = false;
    let sent = 0;
    const req = request(
      url,
      {
        method: "POST",
        headers: { authorization: `Bearer ${c.token}`, "content-type": "application/json" },
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("end", () => {
          let body: Json;
          try {
            body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body, sent });
          req.destroy();
        });
      },
    );
    req.on("error", (err) => {
      if (!answered) setTimeout(() => (answered ? undefined : reject(err)), 500);
    });
    const head = Buffer.from('{"inputs":{},"metadata":{"pad":"');
    const chunk = Buffer.alloc(1 << 20, 0x61);
    const pump = () => {
      if (answered) return;
      if (sent === 0) {
        req.write(head);
        sent += head.length;
      }
      while (sent < total && !answered) {
        const n = Math.min(chunk.length, total - sent);
        sent += n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
          req.once("drain", pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}

describe("Limits", { timeout: 60_000 }, () => {
  it("BODY_TOO_LARGE applies to a streamed (chunked) body without Content-Length, before parsing", async () => {
    const before = (await h.runs()).length;
    const r = await postChunked(BODY_LIMIT + 4 * (1 << 20));
    expect(r.status).toBe(413);
    expect(r.body?.code).toBe("BODY_TOO_LARGE");
    expect((await h.runs()).length).toBe(before);
  });

  it("Entire JSON request body incl. all encoded attachments: 36 MiB (37,748,736 bytes) -> 413 BODY_TOO_LARGE", async () => {
    const before = (await h.runs()).length;
    const body = paddedBody(BODY_LIMIT + 1);
    expect(body.length).toBe(37_748_737);
    const r = await post(body);
    expect(r.status).toBe(413);
    expect(r.body.code).toBe("BODY_TOO_LARGE");
    expect(r.body.attachment_id).toBeUndefined();
    expect((await h.runs()).length).toBe(before);
  });

  it("A body of exactly 36 MiB is within the limit", async () => {
    const body = paddedBody(BODY_LIMIT);
    expect(body.length).toBe(37_748_736);
    const r = await post(body);
    expect(r.status).toBe(202);
  });

  it("BODY_TOO_LARGE: body exceeds 36 MiB; rejected before parsing, so no attachment_id", async () => {
    const body = Buffer.alloc(BODY_LIMIT + 1024, 0x7b); // "{{{{..." is not JSON either
    const r = await post(body);
    expect(r.status).toBe(413);
    expect(r.body.code).toBe("BODY_TOO_LARGE");
    expect(r.body.attachment_id).toBeUndefined();
  });

  it("One attachment, after base64 decoding: 25 MiB (26,214,400 bytes) -> 413 ATTACHMENT_TOO_LARGE; body includes attachment_id", async () => {
    const before = (await h.runs()).length;
    const body = attachmentBody([ATTACHMENT_LIMIT + 1]);
    expect(body.length).toBeLessThan(BODY_LIMIT);
    const r = await post(body);
    expect(r.status).toBe(413);
    expect(r.body.code).toBe("ATTACHMENT_TOO_LARGE");
    expect(r.body.attachment_id).toBe("big0");
    expect((await h.runs()).length).toBe(before);
  });

  it("An attachment of exactly 25 MiB decoded is within the limit", async () => {
    const r = await post(attachmentBody([ATTACHMENT_LIMIT]));
    expect(r.status).toBe(202);
  });

  it("Several files each under 25 MiB may together exceed the body limit", async () => {
    const body = attachmentBody([15_000_000, 15_000_000]);
    expect(body.length).toBeGreaterThan(BODY_LIMIT);
    const r = await post(body);
    expect(r.status).toBe(413);
    expect(r.body.code).toBe("BODY_TOO_LARGE");
    expect(r.body.attachment_id).toBeUndefined();
  });
});
