// The upload's form as the desk reads it (src/upload-form.ts): what `parseBody` gave the upload
// before (fields, the file and its browser-given name), the budget counted as the body streams,
// and nothing left in the temporary directory. Bodies are small: the limits are scaled down.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  readUploadForm,
  UploadBodyTooLargeError,
  UploadFormUnreadableError,
} from "../src/upload-form.js";

const temporaryDirectory = mkdtempSync(join(tmpdir(), "desk-upload-form-test-"));
afterAll(() => rmSync(temporaryDirectory, { recursive: true, force: true }));
const LIMITS = {
  maxBodyBytes: 4096,
  maxFileBytes: 1024,
  maxFieldBytes: 256,
  fileField: "pdf",
  temporaryDirectory,
};

/** A request carrying `form` as a browser (or `fetch`) serialises it. */
const post = (body: FormData | URLSearchParams | string, headers?: Record<string, string>) =>
  new Request("http://127.0.0.1/invoices", {
    method: "POST",
    body,
    ...(headers ? { headers } : {}),
  });

const pdfBytes = (size: number) => new Uint8Array(size).fill(0x25);

describe("readUploadForm", () => {
  it("gives the text fields (the last of each name) and the file with its name and bytes, then removes the file", async () => {
    const body = new FormData();
    body.set("csrf", "token");
    body.set("invoice_id", "INV-1");
    body.append("vendor_name", "first");
    body.append("vendor_name", "Rechnung 10€ GmbH");
    body.set("other", new Blob(["ignored"]), "other.txt");
    body.set("pdf", new Blob([pdfBytes(1000)], { type: "application/pdf" }), "日本語の請求書.pdf");
    const form = await readUploadForm(post(body), LIMITS);
    expect(Object.fromEntries(form.fields)).toEqual({
      csrf: "token",
      invoice_id: "INV-1",
      vendor_name: "Rechnung 10€ GmbH",
    });
    expect(form.file).toMatchObject({ name: "日本語の請求書.pdf", size: 1000, tooLarge: false });
    const bytes = await form.file?.read();
    expect(bytes?.length).toBe(1000);
    expect(bytes?.every((b) => b === 0x25)).toBe(true);
    await form.dispose();
    expect(readdirSync(temporaryDirectory)).toEqual([]);
  });

  it("marks a file past its limit as too large, keeping the form readable", async () => {
    const body = new FormData();
    body.set("pdf", new Blob([pdfBytes(1025)]), "big.pdf");
    body.set("csrf", "after the file");
    const form = await readUploadForm(post(body), LIMITS);
    expect(form.file).toMatchObject({ tooLarge: true });
    expect(form.fields.get("csrf")).toBe("after the file");
    await form.dispose();
  });

  it("reads an empty file part and a file sent as text as what they are: no file", async () => {
    // What a browser sends for a file input left empty.
    const empty = post(
      '--b\r\ncontent-disposition: form-data; name="pdf"; filename=""\r\ncontent-type: application/octet-stream\r\n\r\n\r\n--b--\r\n',
      { "content-type": "multipart/form-data; boundary=b" },
    );
    const emptyForm = await readUploadForm(empty, LIMITS);
    expect(emptyForm.file).toMatchObject({ size: 0 });
    await emptyForm.dispose();
    const text = new FormData();
    text.set("pdf", "not a file");
    const textForm = await readUploadForm(post(text), LIMITS);
    expect(textForm.file).toBeUndefined();
    expect(textForm.fields.get("pdf")).toBe("not a file");
    await textForm.dispose();
  });

  it("reads a URL-encoded form, and a body of another type as an empty form", async () => {
    const encoded = await readUploadForm(
      post(new URLSearchParams({ csrf: "t", amount: "1" })),
      LIMITS,
    );
    expect(Object.fromEntries(encoded.fields)).toEqual({ csrf: "t", amount: "1" });
    await encoded.dispose();
    const json = await readUploadForm(
      post('{"csrf":"t"}', { "content-type": "application/json" }),
      LIMITS,
    );
    expect(json.fields.size).toBe(0);
    expect(json.file).toBeUndefined();
    await json.dispose();
  });

  it("refuses a body past its budget while it streams (the rest unread) and one field past its size, naming it", async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(1024).fill(0x78));
      },
    });
    const refused = readUploadForm(
      new Request("http://127.0.0.1/invoices", {
        method: "POST",
        body: endless,
        headers: { "content-type": "multipart/form-data; boundary=b" },
        duplex: "half",
      } as RequestInit),
      LIMITS,
    );
    await expect(refused).rejects.toThrow(UploadBodyTooLargeError);
    await expect(refused).rejects.toThrow("request body exceeds 4096 bytes");
    expect(pulled).toBeLessThan(16);
    expect(readdirSync(temporaryDirectory)).toEqual([]);

    const long = new FormData();
    long.set("vendor_name", "v".repeat(257));
    await expect(readUploadForm(post(long), LIMITS)).rejects.toThrow(
      new UploadFormUnreadableError('form field "vendor_name" exceeds 256 bytes'),
    );
  });

  it("refuses a broken multipart body as unreadable, leaving no temporary file", async () => {
    const broken = post(
      '--b\r\ncontent-disposition: form-data; name="pdf"; filename="a.pdf"\r\n\r\n%PDF',
      {
        "content-type": "multipart/form-data; boundary=b",
      },
    );
    const error = await readUploadForm(broken, LIMITS).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UploadFormUnreadableError);
    expect(readdirSync(temporaryDirectory)).toEqual([]);
  });
});
