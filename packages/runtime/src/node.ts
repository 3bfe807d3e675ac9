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

/** Adapts a Web `(Request) => Promise<Response>` handler (e.g. createCallbackHandler) to node:http. */
export function toNodeHandler(handler: (request: Request) => Promise<Response>) {
  return async (incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (Array.isArray(value)) for (const item of value) headers.append(name, item);
        else if (value !== undefined) headers.set(name, value);
      }
      const hasBody = incoming.method !== "GET" && incoming.method !== "HEAD";
      const request = new Request(
        `http://${incoming.headers.host ?? "localhost"}${incoming.url ?? "/"}`,
        {
          method: incoming.method ?? "GET",
          headers,
          body: hasBody ? Buffer.concat(chunks) : null,
        },
      );
      const response = await handler(request);
      outgoing.statusCode = response.status;
      for (const [name, value] of response.headers) outgoing.setHeader(name, value);
      outgoing.end(Buffer.from(await response.arrayBuffer()));
    } catch {
      outgoing.statusCode = 500;
      outgoing.end();
    }
  };
}
