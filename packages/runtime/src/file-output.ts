// File outputs come back as download references. Callers use download_url
// as given and never construct storage URLs (docs/service-rules.md#results: "File outputs
// are returned as download references; callers use those and never
// construct storage URLs").
import { CODE } from "@wfr/protocol";
import { type DownloadPolicy, fetchUnderPolicy } from "./download-policy.js";
import { WorkflowRunApiError } from "./errors.js";

/** A `FileOutput` download reference as the result carries it. */
export interface FileOutputReference {
  readonly download_url: string;
  readonly filename: string;
  readonly mime_type?: string;
  readonly size_bytes?: number;
  readonly expires_at?: string | null;
}

/**
 * Where the download may go (download-policy.ts): under the environment's root (`baseUrl`, the
 * client's when called through it) and the storage origins in `allowedOrigins`; one of them is
 * required.
 */
export interface DownloadFileOutputOptions extends DownloadPolicy {
  readonly fetch?: typeof globalThis.fetch;
  readonly signal?: AbortSignal;
}

/** The error thrown when a file output's download_url does not answer 2xx; `status` is the storage's. */
export class FileOutputDownloadError extends WorkflowRunApiError {
  override name = "FileOutputDownloadError";
  readonly filename: string;
  constructor(status: number, filename: string) {
    super({
      status,
      code: CODE.FILE_OUTPUT_DOWNLOAD_FAILED,
      message: `Downloading file output "${filename}" failed with HTTP ${status}`,
    });
    this.filename = filename;
  }
}

/**
 * Fetches a file output's bytes from its `download_url`, unchanged, when the
 * URL is inside the download policy (FileOutputDownloadRefusedError, before
 * any request, otherwise). The URL is pre-signed storage: no API key is sent
 * with it.
 */
export async function downloadFileOutput(
  reference: FileOutputReference,
  options: DownloadFileOutputOptions = {},
): Promise<Response> {
  const doFetch = options.fetch ?? globalThis.fetch;
  const response = await fetchUnderPolicy(
    reference.download_url,
    reference.filename,
    options,
    doFetch,
    options.signal,
  );
  if (!response.ok) {
    await response.body?.cancel();
    throw new FileOutputDownloadError(response.status, reference.filename);
  }
  return response;
}
