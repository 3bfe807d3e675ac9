// The PDF upload's form, read as it arrives: the byte budget is counted chunk by chunk and the
// file part goes to a temporary file as it streams, so no body-sized buffer is ever built.
// Collecting the 25 MiB the budget allows (Hono's `bodyLimit`, then `parseBody`) cost major
// garbage collections that kept other callers waiting past 100 ms (docs/limits.md).
import { createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeWebReadableStream } from "node:stream/web";
import { Busboy, type BusboyFileStream } from "@fastify/busboy";

/** The body went past its budget: answered 413 naming it, as `bodyLimit` does on the other routes. */
export class UploadBodyTooLargeError extends Error {
  constructor(readonly budget: number) {
    super(`request body exceeds ${budget} bytes`);
    this.name = "UploadBodyTooLargeError";
  }
}

/** The body is not a form the desk can read (a broken multipart body, a field past its size). */
export class UploadFormUnreadableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UploadFormUnreadableError";
  }
}

export interface UploadedFile {
  /** The name the browser gave, without any path. */
  readonly name: string;
  /** Bytes kept; past `maxFileBytes` the rest of the part is skipped and `tooLarge` is set. */
  readonly size: number;
  readonly tooLarge: boolean;
  read(): Promise<Uint8Array>;
}

export interface UploadForm {
  /** Text fields, the last value of each name (as Hono's `parseBody` keeps it). */
  readonly fields: ReadonlyMap<string, string>;
  /** The file sent under `fileField` (the last one), if any. */
  readonly file: UploadedFile | undefined;
  /** Removes the temporary file: call once the file was read or refused. */
  dispose(): Promise<void>;
}

export interface UploadFormLimits {
  /** The whole body's budget, counted as it arrives. */
  readonly maxBodyBytes: number;
  /** The file's own limit (kept up to it, the rest skipped). */
  readonly maxFileBytes: number;
  /** Each text field's limit: the form's budget beside the file. */
  readonly maxFieldBytes: number;
  /** The one file field kept; other files are read through and dropped. */
  readonly fileField: string;
  /** Where the file's temporary directory is made: the system's by default. */
  readonly temporaryDirectory?: string;
}

/** Form fields and files past these are a malformed or hostile form: a browser's has a handful. */
const MAX_FIELDS = 64;
const MAX_FILES = 8;

/**
 * Reads a multipart (or URL-encoded) form from `request`. A body of another type reads as an
 * empty form, as `parseBody` has it. Rejects with `UploadBodyTooLargeError` past the budget
 * (the rest of the body is left unread) and `UploadFormUnreadableError` for a broken form.
 */
export async function readUploadForm(
  request: Request,
  limits: UploadFormLimits,
): Promise<UploadForm> {
  const fields = new Map<string, string>();
  const contentType = request.headers.get("content-type") ?? "";
  let parser: ReturnType<typeof Busboy>;
  try {
    parser = Busboy({
      headers: { "content-type": contentType },
      // As the Fetch standard's FormData (what `parseBody` used): a part is a file when it has a filename.
      isPartAFile: (_name, _type, filename) => filename !== undefined,
      limits: {
        fieldSize: limits.maxFieldBytes,
        fields: MAX_FIELDS,
        files: MAX_FILES,
        fileSize: limits.maxFileBytes,
      },
    });
  } catch {
    await request.body?.cancel();
    return { fields, file: undefined, dispose: async () => {} };
  }
  if (!request.body) return { fields, file: undefined, dispose: async () => {} };

  const dir = await mkdtemp(join(limits.temporaryDirectory ?? tmpdir(), "desk-upload-"));
  const dispose = () => rm(dir, { recursive: true, force: true });
  const open: BusboyFileStream[] = [];
  const writes: Promise<unknown>[] = [];
  const files: UploadedFile[] = [];
  let refusal: UploadFormUnreadableError | undefined;
  const refuse = (message: string) => {
    refusal ??= new UploadFormUnreadableError(message);
  };

  parser.on("field", (name, value, _nameTruncated, valueTruncated) => {
    if (valueTruncated) refuse(`form field "${name}" exceeds ${limits.maxFieldBytes} bytes`);
    fields.set(name, value);
  });
  parser.on("fieldsLimit", () => refuse(`the form has more than ${MAX_FIELDS} fields`));
  parser.on("filesLimit", () => refuse(`the form has more than ${MAX_FILES} files`));
  parser.on("file", (name, stream, filename) => {
    if (name !== limits.fileField) {
      stream.resume();
      return;
    }
    open.push(stream);
    const index = writes.length;
    const path = join(dir, `part-${index}`);
    writes.push(
      pipeline(stream, createWriteStream(path, { flags: "wx", mode: 0o600 })).then(() => {
        files[index] = {
          name: filename,
          size: stream.bytesRead,
          tooLarge: stream.truncated,
          read: () => readFile(path),
        };
      }),
    );
  });

  let received = 0;
  const counted = async function* (source: AsyncIterable<Uint8Array>) {
    for await (const chunk of source) {
      received += chunk.byteLength;
      if (received > limits.maxBodyBytes) throw new UploadBodyTooLargeError(limits.maxBodyBytes);
      yield chunk;
    }
  };
  const body = Readable.fromWeb(request.body as NodeWebReadableStream<Uint8Array>);
  try {
    try {
      await pipeline(body, counted, parser);
    } catch (error) {
      // The file parts' writes would wait forever for parts the parser never finishes.
      for (const stream of open) stream.destroy();
      await Promise.allSettled(writes);
      if (error instanceof UploadBodyTooLargeError) throw error;
      throw new UploadFormUnreadableError(
        `the upload form could not be read: ${error instanceof Error ? error.message : error}`,
      );
    }
    await Promise.all(writes);
    if (refusal) throw refusal;
  } catch (error) {
    await dispose();
    throw error;
  }
  return { fields, file: files.at(-1), dispose };
}
