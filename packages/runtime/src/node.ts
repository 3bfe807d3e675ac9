// Node-only helpers, exported as @wfr/runtime/node so the core stays free of
// Node built-ins.
import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { basename, dirname, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { DownloadRecordingOptions, RecordingDownload } from "./client.js";

/**
 * Downloads a run's recording into `path`: written to a temporary file in
 * the same directory, renamed into place only when complete, so a failure
 * never leaves a partial file behind.
 */
export async function saveRecording(
  client: {
    downloadRecording(
      runId: string,
      options?: DownloadRecordingOptions,
    ): Promise<RecordingDownload>;
  },
  runId: string,
  path: string,
  options: DownloadRecordingOptions = {},
): Promise<{ path: string; bytes: number }> {
  const download = await client.downloadRecording(runId, options);
  const temporary = join(dirname(path), `.${basename(path)}.${crypto.randomUUID()}.part`);
  let bytes = 0;
  try {
    const source = Readable.fromWeb(
      download.stream as import("node:stream/web").ReadableStream<Uint8Array>,
    );
    source.on("data", (chunk: Buffer) => {
      bytes += chunk.byteLength;
    });
    await pipeline(source, createWriteStream(temporary, { flags: "wx" }));
    await rename(temporary, path);
    return { path, bytes };
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * What a request may still send once the handler has answered without reading all of it (a
 * 413 or a 401 before the body): read and discarded, so the client, still uploading, reads the
 * answer instead of a reset (RFC 9112 §9.6). Past it, the connection is cut.
 */
const DISCARD_AFTER_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * The request body as a web stream that reads from the socket only as the handler asks (a
 * callback receiver is public: a body over the handler's limit must cost the limit, not its
 * size). Cancelling it stops the reading but keeps the connection: `discard()` then throws
 * the rest away, up to `allowance`, so a client still uploading reads the answer. Shared with
 * servers that hand node:http bodies to Web handlers themselves (the invoice desk on Hono).
 */
export function nodeRequestBody(
  incoming: IncomingMessage,
  allowance: number,
): { stream: ReadableStream<Uint8Array>; discard: () => void } {
  let discarding = false;
  let discarded = 0;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  incoming.pause();
  incoming.on("data", (chunk: Buffer) => {
    if (discarding) {
      discarded += chunk.byteLength;
      if (discarded > allowance) incoming.socket.destroy();
      return;
    }
    controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    if ((controller.desiredSize ?? 0) <= 0) incoming.pause();
  });
  incoming.on("end", () => {
    if (!discarding) controller.close();
  });
  incoming.on("error", (error) => {
    if (!discarding) controller.error(error);
  });
  const discard = () => {
    if (discarding) return;
    discarding = true;
    incoming.resume();
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      pull() {
        incoming.resume();
      },
      cancel() {
        discard();
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
  return { stream, discard };
}

/**
 * Adapts a Web `(Request) => Promise<Response>` handler (e.g. createCallbackHandler) to
 * node:http. The body reaches the handler as a stream, so the handler's own limit (the callback
 * handler's `maxBodyBytes`) bounds what is read and held; what it leaves unread is discarded.
 */
export function toNodeHandler(handler: (request: Request) => Promise<Response>) {
  return async (incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> => {
    const hasBody = incoming.method !== "GET" && incoming.method !== "HEAD";
    const body = hasBody ? nodeRequestBody(incoming, DISCARD_AFTER_ANSWER_BYTES) : undefined;
    try {
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (Array.isArray(value)) for (const item of value) headers.append(name, item);
        else if (value !== undefined) headers.set(name, value);
      }
      const request = new Request(
        `http://${incoming.headers.host ?? "localhost"}${incoming.url ?? "/"}`,
        {
          method: incoming.method ?? "GET",
          headers,
          body: body?.stream ?? null,
          // A streamed request body (Fetch standard): Node requires saying it is half-duplex.
          ...(body ? { duplex: "half" } : {}),
        } as RequestInit,
      );
      const response = await handler(request);
      outgoing.statusCode = response.status;
      for (const [name, value] of response.headers) outgoing.setHeader(name, value);
      outgoing.end(Buffer.from(await response.arrayBuffer()));
    } catch {
      outgoing.statusCode = 500;
      outgoing.end();
    } finally {
      if (body && !incoming.complete) body.discard();
    }
  };
}
