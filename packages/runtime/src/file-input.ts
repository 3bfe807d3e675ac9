// File and multi-file inputs: the caller hands over bytes with `file()`; at
// launch the runtime gives each one a distinct attachment id, puts the
// base64 into `input_context.attachments` and the `{ attachment_id }`
// reference into `inputs` (docs/service-rules.md#launch-body: "Attachment identifiers must be distinct
// within a request").

const FILE_INPUT = Symbol.for("wfr.file-input");

/** Bytes the caller wants to send as a file input. */
export type FileData = Uint8Array | ArrayBuffer | Blob;

export interface FileInput {
  readonly [FILE_INPUT]: true;
  readonly data: FileData;
  readonly filename: string;
  readonly mimeType: string;
}

export interface FileOptions {
  readonly filename: string;
  readonly mimeType: string;
}

/** Wraps bytes as a value for a `file` or `files` input. */
export function file(data: FileData, options: FileOptions): FileInput {
  return Object.freeze({
    [FILE_INPUT]: true as const,
    data,
    filename: options.filename,
    mimeType: options.mimeType,
  });
}

/** True when a value was made by `file()`; generated input schemas use it for file fields. */
export function isFileInput(value: unknown): value is FileInput {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<symbol, unknown>)[FILE_INPUT] === true
  );
}
