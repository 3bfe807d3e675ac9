// The launch body (src/launch-body.ts): one plan, rendered as bytes or as a stream that encodes
// as it is read; both give the same bytes.
import { describe, expect, it } from "vitest";
import { base64EncodedLength, SLICE_BYTES } from "../src/base64.js";
import {
  AttachmentTooLargeError,
  BodyTooLargeError,
  file,
  MAX_ATTACHMENT_BYTES,
  MAX_LAUNCH_BODY_BYTES,
} from "../src/index.js";
import {
  extractAttachments,
  launchBodyBytes,
  launchBodyStream,
  planLaunchBody,
  serializeLaunchBody,
} from "../src/launch-body.js";

function bytesOf(n: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i += 1) bytes[i] = (i * 31 + seed) & 255;
  return bytes;
}

const pdf = (n: number, seed: number) =>
  file(bytesOf(n, seed), { filename: `f${seed}.pdf`, mimeType: "application/pdf" });

async function chunksOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
  }
}

describe("launch body plan", () => {
  it("the stream and the buffer are the same bytes, of the planned length, and valid JSON", async () => {
    const plan = await planLaunchBody({
      inputs: { a: pdf(2 * SLICE_BYTES + 7, 1), b: [pdf(1, 2), pdf(0, 3)], note: "x" },
      metadata: { order: "o-1" },
    });
    const bytes = await launchBodyBytes(plan);
    const streamed = Buffer.concat(await chunksOf(launchBodyStream(plan)));
    expect(bytes.byteLength).toBe(plan.byteLength);
    expect(streamed.byteLength).toBe(plan.byteLength);
    expect(streamed.equals(Buffer.from(bytes))).toBe(true);
    const body = JSON.parse(streamed.toString("utf8"));
    expect(body.input_context.attachments[0].base64).toBe(
      Buffer.from(bytesOf(2 * SLICE_BYTES + 7, 1)).toString("base64"),
    );
    expect(body.inputs.b).toEqual([{ attachment_id: "att_2" }, { attachment_id: "att_3" }]);
  });

  it("the stream encodes as it is read: no chunk is more than one slice of base64", async () => {
    const plan = await planLaunchBody({ inputs: { a: pdf(5 * SLICE_BYTES, 4) } });
    const chunks = await chunksOf(launchBodyStream(plan));
    expect(chunks.length).toBeGreaterThanOrEqual(5);
    for (const chunk of chunks)
      expect(chunk.byteLength).toBeLessThanOrEqual(base64EncodedLength(SLICE_BYTES));
  });

  it("each stream starts over: a retry re-encodes the same bytes", async () => {
    const plan = await planLaunchBody({ inputs: { a: pdf(SLICE_BYTES + 1, 5) } });
    const first = Buffer.concat(await chunksOf(launchBodyStream(plan)));
    const second = Buffer.concat(await chunksOf(launchBodyStream(plan)));
    expect(second.equals(first)).toBe(true);
  });

  it("without files the plan is one segment, and the buffer is that segment", async () => {
    const plan = await planLaunchBody({ inputs: { a: 1 } });
    expect(plan.files).toHaveLength(0);
    expect(await launchBodyBytes(plan)).toBe(plan.segments[0]);
    expect(new TextDecoder().decode(await launchBodyBytes(plan))).toBe('{"inputs":{"a":1}}');
  });

  it("small files are encoded into the one JSON segment; the same files past the inline size are split out, to the same text", async () => {
    const inputs = (extra: number) => ({ a: pdf(100, 6), b: pdf(extra, 7), note: "x" });
    const small = await planLaunchBody({ inputs: inputs(1000), metadata: { m: 1 } });
    expect(small.files).toHaveLength(0);
    expect(small.segments).toHaveLength(1);
    const body = JSON.parse(new TextDecoder().decode(await launchBodyBytes(small)));
    expect(body.input_context.attachments.map((a: { base64: string }) => a.base64)).toEqual([
      Buffer.from(bytesOf(100, 6)).toString("base64"),
      Buffer.from(bytesOf(1000, 7)).toString("base64"),
    ]);
    const large = await planLaunchBody({ inputs: inputs(64 * 1024), metadata: { m: 1 } });
    expect(large.files).toHaveLength(2);
    const largeText = new TextDecoder().decode(await launchBodyBytes(large));
    const largeBody = JSON.parse(largeText);
    expect(largeText.length).toBe(large.byteLength);
    largeBody.input_context.attachments[1].base64 = body.input_context.attachments[1].base64;
    expect(largeBody).toEqual(body);
  });

  it("a field named __proto__ is copied as a field, files inside it included", async () => {
    const inputs = JSON.parse('{"__proto__":{"x":1},"a":2}') as Record<string, unknown>;
    (Object.getOwnPropertyDescriptor(inputs, "__proto__")?.value as Record<string, unknown>).doc =
      pdf(3, 8);
    const plan = await planLaunchBody({ inputs });
    const body = JSON.parse(new TextDecoder().decode(await launchBodyBytes(plan)));
    expect(Object.keys(body.inputs)).toEqual(["__proto__", "a"]);
    expect(Object.getOwnPropertyDescriptor(body.inputs, "__proto__")?.value).toEqual({
      x: 1,
      doc: { attachment_id: "att_1" },
    });
  });
});

describe("attachments and limits", () => {
  it("Attachment identifiers must be distinct within a request: nested files get att_1, att_2, ... and the caller's object is untouched", () => {
    const file1 = () => file(new Uint8Array([1]), { filename: "a", mimeType: "x/y" });
    const one = file1();
    const inputs = {
      doc: one,
      more: [file1(), file1()],
      nested: { deep: file1() },
      __proto__field: 1,
    };
    const { inputs: wire, attachments } = extractAttachments(inputs);
    expect(wire).toEqual({
      doc: { attachment_id: "att_1" },
      more: [{ attachment_id: "att_2" }, { attachment_id: "att_3" }],
      nested: { deep: { attachment_id: "att_4" } },
      __proto__field: 1,
    });
    expect(attachments.map((a) => a.field)).toEqual(["doc", "more[0]", "more[1]", "nested.deep"]);
    expect(inputs.doc).toBe(one);
  });

  it("the same file() value in several fields is one attachment, encoded once", async () => {
    const one = file(new Uint8Array([1, 2, 3]), { filename: "a", mimeType: "x/y" });
    const body = JSON.parse(
      await serializeLaunchBody({ inputs: { doc: one, more: [one, one], nested: { deep: one } } }),
    );
    expect(body.inputs).toEqual({
      doc: { attachment_id: "att_1" },
      more: [{ attachment_id: "att_1" }, { attachment_id: "att_1" }],
      nested: { deep: { attachment_id: "att_1" } },
    });
    expect(body.input_context.attachments).toEqual([
      { id: "att_1", filename: "a", mimeType: "x/y", base64: "AQID" },
    ]);
  });

  it("One attachment, after base64 decoding | 25 MiB (26,214,400 bytes): exactly the limit passes, one byte more is rejected without encoding", async () => {
    // An object that only reports its size: encoding it would throw, proving the check comes first.
    const huge = { byteLength: MAX_ATTACHMENT_BYTES + 1 } as unknown as Uint8Array;
    const error = await serializeLaunchBody({
      inputs: { invoice_pdf: file(huge, { filename: "big.pdf", mimeType: "application/pdf" }) },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AttachmentTooLargeError);
    expect(error).toMatchObject({ attachmentId: "att_1", field: "invoice_pdf", status: null });
    expect((error as Error).message).toContain("big.pdf");
    const exact = await serializeLaunchBody({
      inputs: {
        f: file(new Uint8Array(MAX_ATTACHMENT_BYTES), { filename: "ok.bin", mimeType: "x/y" }),
      },
    });
    expect(exact.length).toBeLessThanOrEqual(MAX_LAUNCH_BODY_BYTES);
  });

  it("Base64 adds about one third to file size; several files each under 25 MiB may together exceed the body limit", async () => {
    const twentyMiB = { byteLength: 20 * 1024 * 1024 } as unknown as Uint8Array;
    const error = await serializeLaunchBody({
      inputs: {
        a: file(twentyMiB, { filename: "a.bin", mimeType: "x/y" }),
        b: file(twentyMiB, { filename: "b.bin", mimeType: "x/y" }),
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BodyTooLargeError);
  });

  it("predicts the serialised size exactly, so the 37,748,736-byte check is precise", async () => {
    const bytes = new Uint8Array(1234);
    const body = await serializeLaunchBody({
      inputs: { "naïve ✓": file(bytes, { filename: "é.bin", mimeType: "x/y" }) },
      metadata: { a: "ü" },
    });
    const { predictBodyBytes } = await import("../src/launch-body.js");
    const { inputs, attachments } = extractAttachments({
      "naïve ✓": file(bytes, { filename: "é.bin", mimeType: "x/y" }),
    });
    const skeleton = {
      inputs,
      metadata: { a: "ü" },
      input_context: {
        attachments: [{ id: "att_1", filename: "é.bin", mimeType: "x/y", base64: "" }],
      },
    };
    expect(predictBodyBytes(skeleton, attachments)).toBe(new TextEncoder().encode(body).byteLength);
  });
});
