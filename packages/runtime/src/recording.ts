// The recording download as an endpoint of the pipeline. Its budget is a
// policy of the pipeline (attempts, which statuses are retried, the default
// wait), not a loop of its own: every GET counts against the workspace's 10
// recording attempts per hour (docs/service-rules.md#recordings).
import { CODE } from "@wfr/protocol";
import {
  RecordingProcessingError,
  RequestTimeoutError,
  type WorkflowRunApiError,
} from "./errors.js";
import type { RequestOptions } from "./http-transport.js";
import { withIdleTimeout } from "./http-transport.js";
import type { Endpoint } from "./pipeline.js";

export interface RecordingDownload {
  readonly stream: ReadableStream<Uint8Array>;
  readonly contentType: string | null;
  readonly contentLength: number | null;
}

export interface DownloadRecordingOptions extends RequestOptions {
  /**
   * GETs this call may spend in all (202 RECORDING_PROCESSING, 5xx and
   * network retries included): every GET counts against the workspace's 10
   * recording attempts per hour. Default 3.
   */
  readonly maxAttempts?: number;
  /** @deprecated same as maxAttempts. */
  readonly maxProcessingAttempts?: number;
}

/** Default GETs per downloadRecording call: leaves 7 of the hourly 10 for other downloads. */
export const DEFAULT_RECORDING_ATTEMPTS = 3;

/**
 * 202 RECORDING_PROCESSING and the transient failures are retried; 429
 * RECORDING_RATE_LIMITED is not: it is the hourly limit, so it is thrown at
 * once with `retryAfterSeconds` rather than slept through.
 */
const RECORDING_RETRY_STATUSES: ReadonlySet<number> = new Set([202, 408, 500, 502, 503, 504]);

/** The Retry-After of a 202 RECORDING_PROCESSING (docs/service-rules.md#recordings), used when the header is missing. */
const RECORDING_DEFAULT_RETRY_AFTER_SECONDS = 3;

/** The pipeline endpoint of one downloadRecording call. */
export function recordingEndpoint(
  runId: string,
  options: DownloadRecordingOptions,
  idleMs: number,
): Endpoint<RecordingDownload> {
  return {
    method: "GET",
    route: "/runs/{runId}/recording",
    path: `/runs/${encodeURIComponent(runId)}/recording`,
    accept: [200],
    stream: true,
    runId,
    maxAttempts: options.maxAttempts ?? options.maxProcessingAttempts ?? DEFAULT_RECORDING_ATTEMPTS,
    retryStatuses: RECORDING_RETRY_STATUSES,
    defaultRetryAfterSeconds: RECORDING_DEFAULT_RETRY_AFTER_SECONDS,
    parse: (_body, response) => {
      const length = response.headers.get("content-length");
      return {
        stream: withIdleTimeout(
          response.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() }),
          idleMs,
          () =>
            new RequestTimeoutError({
              status: null,
              code: CODE.TIMEOUT,
              message: `recording download of run ${runId} stalled: no bytes for ${idleMs} ms`,
            }),
        ),
        contentType: response.headers.get("content-type"),
        contentLength: length === null ? null : Number(length),
      };
    },
  };
}

/** A recording still processing when the budget ran out, as the class its callers catch. */
export function stillProcessing(error: WorkflowRunApiError): WorkflowRunApiError {
  if (error.status !== 202 || error instanceof RecordingProcessingError) return error;
  return new RecordingProcessingError({
    status: 202,
    code: CODE.RECORDING_PROCESSING,
    message: error.message,
    requestId: error.requestId,
    retryAfterSeconds: error.retryAfterSeconds,
  });
}
