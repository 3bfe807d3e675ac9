// The one request pipeline every endpoint goes through:
// build -> send -> read -> decide (retry-rules.ts) -> parse -> map errors.
// One fetch call per attempt, with the request given as url + init (no
// Request object built here, no second stream), the body read once, inside
// the attempt's time limit, and parsed once.
import { CODE } from "@wfr/protocol";
import { type WithResponse, withResponseOf } from "./api-call.js";
import type { Clock } from "./backoff.js";
import {
  errorFromResponse,
  InvalidResponseError,
  NetworkError,
  RequestAbortedError,
  RequestTimeoutError,
  WorkflowRunApiError,
} from "./errors.js";
import {
  AttemptLimit,
  apiRedirectModeSupported,
  bodyInit,
  type RequestBody,
  type RequestOptions,
  SpareSignal,
  sendableBody,
} from "./http-transport.js";
import { type Log, noLog } from "./logger.js";
import { activeTracing } from "./opentelemetry-global.js";
import { redact } from "./redact.js";
import { parseRetryAfterSeconds } from "./retry-after.js";
import { mayResend, type RetryOptions, retryDelay, shouldRetry } from "./retry-rules.js";
import { REQUEST_ID_HEADER } from "./run-envelope.js";
import { ATTR, type CallSpan, EVENT, type Tracing } from "./tracing.js";
import type { WireMethod, WireRoute } from "./wire-types.js";

interface PipelineSettings {
  /** The checked API base, without a trailing slash. */
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly fetch: typeof globalThis.fetch;
  /** Default per-attempt limit (headers and body). */
  readonly timeoutMs: number;
  readonly retry: Required<RetryOptions>;
  readonly clock: Clock;
  readonly log: Log;
  /** Strings removed from every error and log line (the API key). */
  readonly secrets: readonly string[];
  readonly userAgent: string;
  /** The client's option: a Tracing, false (never), or undefined (a registered provider's). */
  readonly tracing?: Tracing | false | undefined;
}

/** One endpoint call, as a method describes it to the pipeline. */
export type Endpoint<T> = {
  [M in WireMethod]: EndpointOf<T, M>;
}[WireMethod];

/** One endpoint call of method `M`, on a route the API file defines for `M`. */
export interface EndpointOf<T, M extends WireMethod> {
  readonly method: M;
  /** The route template (`/runs/{runId}`): span name and attribute, never the concrete ids. */
  readonly route: WireRoute<M>;
  /** The concrete path under the base, its parameters already encoded. */
  readonly path: string;
  /** Statuses that are this call's answer; any other is mapped to a typed error. */
  readonly accept: readonly number[];
  /** Shapes the parsed JSON (undefined for an empty or streamed body) into the method's data. */
  readonly parse: (body: unknown, response: Response) => T;
  /** JSON request bytes, sent as they are on every attempt (or a large launch body, streamed). */
  readonly body?: RequestBody | undefined;
  /** The launch's key: on every error and, when `keyInHeader`, in the Idempotency-Key header. */
  readonly idempotencyKey?: string | undefined;
  readonly keyInHeader?: boolean | undefined;
  /** A POST whose identical body may be resent (human-input). */
  readonly identicalBodyIsIdempotent?: boolean | undefined;
  /** False: never sent twice. Default true (within the rules of `mayResend`). */
  readonly retry?: boolean | undefined;
  /** Statuses worth another attempt for this endpoint. Default RETRYABLE_STATUSES. */
  readonly retryStatuses?: ReadonlySet<number> | undefined;
  /** Attempts in all, overriding the client's and the call's (the recording's budget). */
  readonly maxAttempts?: number | undefined;
  /** Wait before retrying an answer that has no Retry-After (the recording's 3 s). */
  readonly defaultRetryAfterSeconds?: number | undefined;
  /** Hand an accepted answer's body back unread (the recording). */
  readonly stream?: boolean | undefined;
  /** For spans. */
  readonly runId?: string | undefined;
  readonly workflowId?: string | undefined;
}

export type Send = <T extends object>(
  endpoint: Endpoint<T>,
  options?: RequestOptions,
) => Promise<WithResponse<T>>;

/**
 * Everything a method throws is a library error: known ones pass through
 * (with the launch's idempotency key added); an abort, a body that is not
 * JSON, or anything unforeseen is wrapped.
 */
export function toLibraryError(
  error: unknown,
  secrets: readonly string[],
  idempotencyKey?: string,
  callerSignal?: AbortSignal,
): WorkflowRunApiError {
  if (error instanceof WorkflowRunApiError) {
    if (idempotencyKey !== undefined) error.idempotencyKey = idempotencyKey;
    return error;
  }
  const name = error instanceof Error ? error.name : "";
  const message = error instanceof Error ? error.message : String(error);
  if (callerSignal?.aborted || name === "AbortError" || name === "TimeoutError") {
    return new RequestAbortedError({
      status: null,
      code: CODE.ABORTED,
      message: callerSignal?.aborted
        ? "aborted by the caller's signal"
        : `request aborted${idempotencyKey ? `; the server may already have it: relaunch with idempotency key ${idempotencyKey}` : ""}`,
      idempotencyKey,
      cause: error,
      secrets,
    });
  }
  if (error instanceof SyntaxError) {
    return new InvalidResponseError({
      status: null,
      code: CODE.INVALID_RESPONSE,
      message: `response body is not JSON: ${message}`,
      idempotencyKey,
      cause: error,
      secrets,
    });
  }
  return new NetworkError({
    status: null,
    code: CODE.UNEXPECTED,
    message,
    idempotencyKey,
    cause: error,
    secrets,
  });
}

/** The one status whose answer has no body by definition (DELETE of a grant). */
const NO_CONTENT = 204;

/** The request headers of every attempt of one call. */
function buildHeaders(
  settings: PipelineSettings,
  endpoint: Endpoint<unknown>,
  options: RequestOptions,
  tracing: Tracing | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${settings.apiKey}`,
    accept: "application/json",
  };
  if (endpoint.body) headers["content-type"] = "application/json";
  if (options.headers) {
    for (const [name, value] of Object.entries(options.headers)) {
      const lower = name.toLowerCase();
      if (lower !== "authorization") headers[lower] = value;
    }
  }
  headers["user-agent"] ??= settings.userAgent;
  // A key no header can carry travels in the body instead (launch-body.ts#keyFitsHeader).
  if (endpoint.keyInHeader && endpoint.idempotencyKey !== undefined)
    headers["idempotency-key"] = endpoint.idempotencyKey;
  tracing?.inject(headers);
  return headers;
}

/**
 * An attempt's error as the message says it, with its cause where the
 * platform wraps one: Node's fetch rejects with "fetch failed" and puts the
 * reason ("unexpected redirect", "connect ECONNREFUSED ...") in `cause`.
 */
function failureReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return cause && cause !== error.message ? `${error.message} (${cause})` : error.message;
}

/** Stands for a body that is not JSON (the text itself is then the error's body). */
const NOT_JSON: unique symbol = Symbol("not JSON");

/** The parsed JSON of a read body: undefined when empty, NOT_JSON when it is not JSON. */
function parseBody(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

/** An accepted answer's parsed body that is no answer: not JSON, or empty where JSON belongs. */
function unreadableBody(value: unknown, status: number): boolean {
  return value === NOT_JSON || (value === undefined && status !== NO_CONTENT);
}

/** Creates the pipeline of one client. */
export function createPipeline(settings: PipelineSettings): Send {
  const { clock, log, secrets } = settings;
  // Logs and messages name the whole path (`/api/v1/runs/...`), as a proxy's log would.
  const basePath = new URL(settings.baseUrl).pathname.replace(/\/$/, "");
  const serverAddress = new URL(settings.baseUrl).host;
  const spareSignal = new SpareSignal();
  const redirect = apiRedirectModeSupported();
  // Without a logger the per-request debug record (its fields, its clock read) is not built.
  const logs = log !== noLog;

  /** The error of a call that ends without an answer, naming the method and the whole path. */
  function failure(
    endpoint: Endpoint<unknown>,
    ErrorType: typeof NetworkError,
    code: string,
    reason: string,
    cause: unknown,
  ): WorkflowRunApiError {
    return new ErrorType({
      status: null,
      code,
      message: `${endpoint.method} ${basePath}${endpoint.path} ${reason}`,
      idempotencyKey: endpoint.idempotencyKey,
      cause,
      secrets,
    });
  }

  /** The wait before a retry; the caller's signal ends it as an abort of the call. */
  async function wait(
    endpoint: Endpoint<unknown>,
    options: RequestOptions,
    delayMs: number,
  ): Promise<void> {
    try {
      await clock.sleep(delayMs, options.signal);
    } catch (error) {
      if (options.signal?.aborted) throw aborted(endpoint, options.signal);
      throw error;
    }
  }

  /** The caller's signal ended the call (in an attempt or in the wait before one). */
  function aborted(endpoint: Endpoint<unknown>, signal: AbortSignal): WorkflowRunApiError {
    return failure(endpoint, RequestAbortedError, CODE.ABORTED, "was aborted", signal.reason);
  }

  async function attempts<T extends object>(
    endpoint: Endpoint<T>,
    options: RequestOptions,
    span: CallSpan | undefined,
    tracing: Tracing | undefined,
  ): Promise<WithResponse<T>> {
    const { method, idempotencyKey } = endpoint;
    const url = `${settings.baseUrl}${endpoint.path}`;
    const headers = buildHeaders(settings, endpoint, options, tracing);
    const resendable = mayResend(method, idempotencyKey !== undefined, {
      retry: endpoint.retry ?? true,
      identicalBodyIsIdempotent: endpoint.identicalBodyIsIdempotent,
    });
    const maxAttempts =
      endpoint.maxAttempts ??
      (options.maxRetries !== undefined ? options.maxRetries + 1 : settings.retry.maxAttempts);
    const timeoutMs = options.timeoutMs ?? settings.timeoutMs;
    const deadline = clock.now() + settings.retry.totalTimeoutMs;
    // Bytes (every small body) go as they are; only a large body waits on the platform check.
    const body =
      endpoint.body === undefined || endpoint.body instanceof Uint8Array
        ? endpoint.body
        : await sendableBody(endpoint.body);
    for (let attempt = 1; ; attempt += 1) {
      const started = logs ? Date.now() : 0;
      const limit = new AttemptLimit(
        Math.max(1, Math.min(timeoutMs, deadline - clock.now())),
        options.signal,
        spareSignal,
      );
      let response: Response;
      let text: string | undefined;
      let value: unknown;
      try {
        const init: RequestInit =
          body === undefined
            ? { method, headers, redirect, signal: limit.signal }
            : { method, headers, ...bodyInit(body, headers), redirect, signal: limit.signal };
        response = await settings.fetch(url, init);
        const { status } = response;
        const { retryStatuses } = endpoint;
        if (shouldRetry({ status, attempt, maxAttempts, resendable, retryStatuses })) {
          const retryAfterSeconds =
            parseRetryAfterSeconds(response.headers.get("retry-after"), clock.now()) ??
            endpoint.defaultRetryAfterSeconds;
          const next = retryDelay({
            attempt,
            retryAfterSeconds,
            retry: settings.retry,
            random: clock.random,
            remainingMs: deadline - clock.now(),
          });
          if (next.retry) {
            limit.clear();
            response.body?.cancel().catch(() => undefined);
            log("warn", "retrying after HTTP status", {
              method,
              path: `${basePath}${endpoint.path}`,
              status,
              attempt,
              delayMs: next.delayMs,
            });
            span?.addEvent(next.fromRetryAfter ? EVENT.retryAfterWait : EVENT.retry, {
              [ATTR.attempt]: attempt,
              [ATTR.status]: status,
              [ATTR.delayMs]: next.delayMs,
            });
            await wait(endpoint, options, next.delayMs);
            continue;
          }
        }
        if (endpoint.stream && endpoint.accept.includes(status)) {
          limit.clear();
        } else {
          text = await response.text();
          limit.release();
          value = parseBody(text);
          const unreadable = endpoint.accept.includes(status) && unreadableBody(value, status);
          const next =
            unreadable && shouldRetry({ status, attempt, maxAttempts, resendable, unreadable })
              ? retryDelay({
                  attempt,
                  retryAfterSeconds: undefined,
                  retry: settings.retry,
                  random: clock.random,
                  remainingMs: deadline - clock.now(),
                })
              : undefined;
          if (next?.retry) {
            log("warn", "retrying after an answer whose body cannot be read", {
              method,
              path: `${basePath}${endpoint.path}`,
              status,
              attempt,
              delayMs: next.delayMs,
            });
            span?.addEvent(EVENT.retry, {
              [ATTR.attempt]: attempt,
              [ATTR.status]: status,
              [ATTR.delayMs]: next.delayMs,
              [ATTR.reason]: "unreadable",
            });
            await wait(endpoint, options, next.delayMs);
            continue;
          }
        }
      } catch (error) {
        limit.clear();
        if (error instanceof WorkflowRunApiError) throw error;
        if (options.signal?.aborted) throw aborted(endpoint, options.signal);
        const next = shouldRetry({ status: undefined, attempt, maxAttempts, resendable })
          ? retryDelay({
              attempt,
              retryAfterSeconds: undefined,
              retry: settings.retry,
              random: clock.random,
              remainingMs: deadline - clock.now(),
            })
          : undefined;
        if (next?.retry) {
          log(
            "warn",
            limit.timedOut ? "retrying after attempt timeout" : "retrying after network error",
            { method, path: `${basePath}${endpoint.path}`, attempt, delayMs: next.delayMs, error },
          );
          span?.addEvent(EVENT.retry, {
            [ATTR.attempt]: attempt,
            [ATTR.delayMs]: next.delayMs,
            [ATTR.reason]: limit.timedOut ? "timeout" : "network",
          });
          await wait(endpoint, options, next.delayMs);
          continue;
        }
        span?.setAttributes({ [ATTR.attempts]: attempt });
        const reason = failureReason(error);
        throw failure(
          endpoint,
          limit.timedOut ? RequestTimeoutError : NetworkError,
          limit.timedOut ? CODE.TIMEOUT : CODE.NETWORK_ERROR,
          `failed after ${attempt} attempt(s): ${redact(reason, secrets)}`,
          error,
        );
      }
      span?.setAttributes({ [ATTR.status]: response.status, [ATTR.attempts]: attempt });
      if (logs)
        log("debug", "request", {
          method,
          path: `${basePath}${endpoint.path}`,
          status: response.status,
          ms: Date.now() - started,
          attempt,
        });
      return answer(endpoint, response, text, value);
    }
  }

  /** Parse and map: the accepted answer shaped by the endpoint, anything else a typed error. */
  function answer<T extends object>(
    endpoint: Endpoint<T>,
    response: Response,
    text: string | undefined,
    value: unknown,
  ): WithResponse<T> {
    const { status } = response;
    const requestId = response.headers.get(REQUEST_ID_HEADER) ?? undefined;
    if (endpoint.accept.includes(status)) {
      // An answer that should carry JSON and carries none (or not JSON) is refused here, by
      // class, rather than failing later in a parser with a TypeError.
      const empty = text !== undefined && value === undefined && status !== NO_CONTENT;
      if (text !== undefined && unreadableBody(value, status)) {
        throw new InvalidResponseError({
          status,
          code: CODE.INVALID_RESPONSE,
          message: `${endpoint.method} ${basePath}${endpoint.path} answered HTTP ${status} with ${empty ? "an empty body" : `a body that is not JSON (content-type ${response.headers.get("content-type") ?? "none"})`}; a proxy may be in the way`,
          idempotencyKey: endpoint.idempotencyKey,
          requestId,
          secrets,
        });
      }
      return withResponseOf(endpoint.parse(value, response), response, requestId);
    }
    const error = errorFromResponse(status, value === NOT_JSON ? text : value, response.headers, {
      idempotencyKey: endpoint.idempotencyKey,
      secrets,
      nowMs: clock.now(),
    });
    log("warn", "request failed", { status, code: error.code, requestId });
    throw error;
  }

  async function run<T extends object>(
    endpoint: Endpoint<T>,
    options: RequestOptions,
    span: CallSpan | undefined,
    tracing: Tracing | undefined,
  ): Promise<WithResponse<T>> {
    try {
      return await attempts(endpoint, options, span, tracing);
    } catch (error) {
      const mapped = toLibraryError(error, secrets, endpoint.idempotencyKey, options.signal);
      span?.setAttributes({ [ATTR.errorCode]: mapped.code });
      span?.fail(mapped);
      throw mapped;
    }
  }

  return (endpoint, options = {}) => {
    const tracing = activeTracing(settings.tracing);
    if (!tracing) return run(endpoint, options, undefined, undefined);
    return tracing.inSpan(
      `${endpoint.method} ${endpoint.route}`,
      "client",
      {
        [ATTR.method]: endpoint.method,
        [ATTR.route]: endpoint.route,
        [ATTR.serverAddress]: serverAddress,
        [ATTR.runId]: endpoint.runId,
        [ATTR.workflowId]: endpoint.workflowId,
        [ATTR.idempotencyKeyPresent]: endpoint.idempotencyKey !== undefined,
      },
      (span) => run(endpoint, options, span, tracing),
    );
  };
}
