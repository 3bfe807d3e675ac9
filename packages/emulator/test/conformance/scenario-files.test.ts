// File outputs given by a scenario (`{"$file": {filename, mime_type, base64?}}`): the result holds
// a download reference served by the emulator with exactly those bytes, also after a restart;
// without bytes a placeholder is served; a malformed marker is refused naming its place.
import { mkdtemp, rm } from "node:fs/promises";
import { get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Harness, INVOICE, invoiceBody, type Json } from "./support.js";

const pdf = Buffer.from("%PDF-1.4\nrecorded receipt\n%%EOF\n");
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "wfr-scenario-files-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const outputs = (receipt: Json) => ({
  invoice_id: "INV-7",
  total: 7,
  status: "booked",
  receipt,
});

/** A GET on a connection of its own (a pooled one may still point at the server before the restart). */
function download(url: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers["content-type"] ?? null,
          bytes: Buffer.concat(chunks),
        }),
      );
    }).on("error", reject);
  });
}

describe("file outputs given by a scenario", () => {
  it("are served with the given bytes and MIME type, before and after a restart", async () => {
    const data = join(dir, "journal.jsonl");
    let h = await Harness.start({ data });
    let url: string;
    try {
      const c = await h.client();
      await h.scenario("production", INVOICE, {
        steps: [
          {
            succeed: {
              outputs: outputs({
                $file: {
                  filename: "Rechnung 7.pdf",
                  mime_type: "application/pdf",
                  base64: pdf.toString("base64"),
                },
              }),
            },
          },
        ],
      });
      const run = await c.start(INVOICE, invoiceBody());
      await c.untilTerminal(run.run_id);
      const result = await c.api("GET", `/runs/${run.run_id}/result`);
      const receipt = result.body.outputs.receipt;
      expect(receipt).toMatchObject({
        filename: "Rechnung 7.pdf",
        mime_type: "application/pdf",
        size_bytes: pdf.length,
      });
      url = receipt.download_url;
      expect(url).toMatch(/\/_files\/run_[^/]+\/1\/Rechnung_7\.pdf$/);
      expect(await download(url)).toEqual({ status: 200, type: "application/pdf", bytes: pdf });
    } finally {
      await h.close();
    }
    // The same port: download references name the emulator's own address.
    h = await Harness.start({ data, port: Number(new URL(url).port) });
    try {
      const after = await download(url);
      expect(after).toEqual({ status: 200, type: "application/pdf", bytes: pdf });
    } finally {
      await h.close();
    }
  });

  it("are sent with nosniff, and no longer after the expires_at their reference announced", async () => {
    const h = await Harness.start();
    try {
      const c = await h.client();
      await h.scenario("production", INVOICE, {
        steps: [
          {
            succeed: {
              outputs: outputs({ $file: { filename: "r.pdf", mime_type: "application/pdf" } }),
            },
          },
        ],
      });
      const run = await c.start(INVOICE, invoiceBody());
      await c.untilTerminal(run.run_id);
      const result = await c.api("GET", `/runs/${run.run_id}/result`);
      const { download_url: url, expires_at: expiresAt } = result.body.outputs.receipt;
      expect(typeof expiresAt).toBe("string");
      const headers = await fetch(url).then((r) => ({
        status: r.status,
        nosniff: r.headers.get("x-content-type-options"),
      }));
      expect(headers).toEqual({ status: 200, nosniff: "nosniff" });
      const clock = (await h.admin("GET", "/clock")).body as { now: string };
      await h.advance(Date.parse(expiresAt) - Date.parse(clock.now) + 1000);
      const expired = await fetch(url);
      expect(expired.status).toBe(404);
      expect(((await expired.json()) as { error: string }).error).toContain("expired");
    } finally {
      await h.close();
    }
  });

  it("without bytes, a placeholder naming the recorded file is served", async () => {
    const h = await Harness.start();
    try {
      const c = await h.client();
      await h.scenario("production", INVOICE, {
        steps: [
          {
            succeed: {
              outputs: outputs({ $file: { filename: "r.pdf", mime_type: "application/pdf" } }),
            },
          },
        ],
      });
      const run = await c.start(INVOICE, invoiceBody());
      await c.untilTerminal(run.run_id);
      const result = await c.api("GET", `/runs/${run.run_id}/result`);
      const got = await download(result.body.outputs.receipt.download_url);
      expect(got.status).toBe(200);
      expect(got.bytes.toString()).toContain("r.pdf (application/pdf): recorded without its bytes");
    } finally {
      await h.close();
    }
  });

  it("refuses a malformed marker, naming where it is", async () => {
    const h = await Harness.start();
    try {
      for (const [marker, words] of [
        [{ $file: { filename: "", mime_type: "application/pdf" } }, "receipt.$file.filename"],
        [{ $file: { filename: "a.pdf", mime_type: "pdf" } }, "receipt.$file.mime_type"],
        [
          { $file: { filename: "a.pdf", mime_type: "application/pdf", base64: "%%%" } },
          "receipt.$file.base64",
        ],
        [
          { $file: { filename: "a.pdf", mime_type: "application/pdf", url: "x" } },
          "receipt.$file has an unknown field",
        ],
      ] as const) {
        const r = await h.admin("PUT", `/environments/production/workflows/${INVOICE}/scenario`, {
          steps: [{ succeed: { outputs: outputs(marker as unknown as Json) } }],
        });
        expect(r.status, r.text).toBe(400);
        expect(r.body.code).toBe("INVALID_SCENARIO");
        expect(r.text).toContain(words);
      }
    } finally {
      await h.close();
    }
  });
});
