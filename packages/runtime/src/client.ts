// The client: option checks and result shaping are pure functions in their
// own modules; this file wires them to openapi-fetch and the retrying fetch.
import { CODE, INPUT_REASON, LIMITS } from "@wfr/protocol";
import createFetchClient from "openapi-fetch";
import { type Clock, systemClock } from "./backoff.js";
import {
  errorFromResponse,
  InputValidationError,
  InvalidMetadataError,
  InvalidOptionError,
  InvalidResponseError,
  NetworkError,
  RecordingProcessingError,
  RequestAbortedError,
  RequestTimeoutError,
  WorkflowNotEnabledError,
  WorkflowRunApiError,
} from "./errors.js";
import { downloadFileOutput, type FileOutputReference } from "./file-output.js";
import {
  type CallPolicy,
  createRetryingFetch,
  DEFAULT_RETRY,
  RETRYABLE_STATUSES,
  type RequestOptions,
  type RetryOptions,
  type TransportSettings,
  withIdleTimeout,
} from "./http-transport.js";
import { buildLaunchBody, characterCount, keyFitsHeader } from "./launch-body.js";
import { type LaunchIntentOptions, launchWithJournal } from "./launch-with-journal.js";
import { createRedactingLog, type Logger } from "./logger.js";
import { parseRetryAfterSeconds } from "./retry-after.js";
import { attachRequestId, requestIdOf, toRunEnvelope, type WithRequestId } from "./run-envelope.js";
import { type RunResult, toRunResult } from "./run-result.js";
import { checkBaseUrl, checkPublicCallbackUrl } from "./url-checks.js";
import { type WaitOptions, waitForRunWith } from "./wait-for-run.js";
import { type RunChange, type WatchRunOptions, watchRunWith } from "./watch-run.js";
import type {
  BrowserAccessGrant,
  BrowserAccessGrantWithToken,
  EventSnapshot,
  ResultResponse,
  RunEnvelope,
  WirePaths,
  WireRunEnvelope,
} from "./wire-types.js";
import type {
  AnyWorkflowDefinition,
  InputsOf,
  LaunchableWorkflow,
  ModelName,
  ModelOf,
  OutputsOf,
} from "./workflow-definition.js";

/** The environment object generated code exports. */
export interface EnvironmentInfo {
  readonly name: string;
  readonly workspace: string;
  readonly baseUrl: string;
}

export interface ClientOptions {
  /** API base ending in /api/v1; https, or http to a loopback host. Give this or `environment`. */
  readonly baseUrl?: string;
  /** The generated environment object; its baseUrl is used. */
  readonly environment?: EnvironmentInfo;
  /** Workspace API key. Sent only as `Authorization: Bearer`, redacted from errors and logs. */
  readonly apiKey: string;
  /** A Web fetch; defaults to globalThis.fetch. */
  readonly fetch?: typeof globalThis.fetch;
  /** Per-attempt timeout covering response headers and the whole body. Default 30,000 ms. */
  readonly timeoutMs?: number;
  readonly retry?: RetryOptions;
  readonly logger?: Logger;
  /** Time source for retries and polling (tests). */
  readonly clock?: Clock;
  /**
   * Origins of the service's file storage (`https://files.example.com`) that
   * `downloadFileOutput` may fetch from, besides the environment's own root.
   */
  readonly fileOrigins?: readonly string[];
}

/** What `createBrowserAccessGrant` asks for. */
export interface BrowserAccessGrantOptions {
  /** 1 to 10 exact origins (`https://app.example.com`): no wildcard, no "null", no path. */
  readonly origins: readonly string[];
  /** 1 to 3,600; the service's default when absent (the emulator's: 600). */
  readonly expiresInSeconds?: number;
}

interface CommonLaunchOptions {
  /** Caller correlation data; must be a plain JSON object. */
  readonly metadata?: Record<string, unknown>;
  /** Public HTTPS receiver of run notifications. */
  readonly callbackUrl?: string;
  /**
   * 1 to 200 characters (code points). Visible ASCII goes in the Idempotency-Key header, any
   * other key in the body field `idempotency_key`. When absent, one is made per launch call; with
   * `intent`, one is derived from the workflow and the intent id.
   */
  readonly idempotencyKey?: string;
  /**
   * Records this launch in a shared launch journal under the caller's own id
   * before anything is sent, so that after a crash any instance resends the
   * same key and body and gets the same run (never a second run for one intent).
   */
  readonly intent?: LaunchIntentOptions;
  /** Validate inputs locally with the workflow's schema first. Default true. */
  readonly validate?: boolean;
  readonly signal?: AbortSignal;
  /** Per-attempt limit covering headers and body. */
  readonly timeoutMs?: number;
  readonly maxRetries?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Launch options for a generated workflow: typed inputs, and `model` only where the environment exposes it. */
export type LaunchOptions<W extends AnyWorkflowDefinition> = CommonLaunchOptions & {
  readonly inputs: InputsOf<W>;
} & ([ModelOf<W>] extends [never] ? { readonly model?: never } : { readonly model?: ModelOf<W> });

/** What `launch` receives at run time, whichever overload was used. */
interface RuntimeLaunchOptions extends CommonLaunchOptions {
  readonly inputs: unknown;
  readonly model?: string | undefined;
}

/** Launch options for a plain workflow id: nothing is known about inputs or model. */
export interface UntypedLaunchOptions extends CommonLaunchOptions {
  readonly inputs: Record<string, unknown>;
  readonly model?: ModelName;
}

/**
 * The run envelope from launch plus the idempotency key that was sent, as
 * an ordinary property: store it, and after a crash launch again with the
 * same key and inputs to get the same run instead of new work.
 */
export type LaunchedRun = RunEnvelope & { readonly idempotencyKey: string };

export interface RecordingDownload {
  readonly stream: ReadableStream<Uint8Array>;
  readonly contentType: string | null;
  readonly contentLength: number | null;
}

export type { WithRequestId };

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

export interface HumanInputAnswer {
  /** The checkpoint being answered (human_action.checkpoint_id); always sent. */
  readonly checkpointId: string;
  readonly response: unknown;
  /** @deprecated pass `{ signal }` as the third argument. */
  readonly signal?: AbortSignal;
}

export const MAX_IDEMPOTENCY_KEY_LENGTH = LIMITS.idempotencyKeyCharacters;

/** Sent as User-Agent on every request. */
export const RUNTIME_VERSION = "0.1.0";
const USER_AGENT = `wfr-runtime/${RUNTIME_VERSION}`;

/**
 * An API key goes into an HTTP header: visible ASCII only. Checked once when
 * the client is created; the message names the position, never the key.
 */
export function checkApiKey(apiKey: unknown): void {
  if (typeof apiKey !== "string" || apiKey.length === 0) {
    throw new InvalidOptionError({
      status: null,
      code: CODE.INVALID_API_KEY,
      message: "apiKey is required",
    });
  }
  for (let index = 0; index < apiKey.length; index += 1) {
    const code = apiKey.charCodeAt(index);
    if (code < 0x21 || code > 0x7e) {
      throw new InvalidOptionError({
        status: null,
        code: CODE.INVALID_API_KEY,
        message: `apiKey has a character that cannot be sent in a header (position ${index + 1} of ${apiKey.length}); check for a stray newline or space`,
      });
    }
  }
}

/**
 * A successful result together with the raw response it came from. For the
 * recording, `response.body` is the same stream as `data.stream` (read one).
 */
export interface WithResponse<T> {
  readonly data: WithRequestId<T>;
  readonly response: Response;
  readonly requestId: string | undefined;
}

/** Spec, Launch body: "Must be a JSON object (null, array, string, number, boolean are invalid)". */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function resolveBaseUrl(options: ClientOptions): string {
  const raw = options.baseUrl ?? options.environment?.baseUrl;
  if (!raw) {
    throw new InvalidOptionError({
      status: null,
      code: CODE.INVALID_BASE_URL,
      message: "Give baseUrl or environment",
    });
  }
  const checked = checkBaseUrl(raw);
  if (!checked.ok)
    throw new InvalidOptionError({
      status: null,
      code: CODE.INVALID_BASE_URL,
      message: checked.reason,
    });
  return checked.baseUrl;
}

export type WorkflowRunClient = ReturnType<typeof createClient>;

/**
 * Everything a method throws is a library error: known ones pass through
 * (with the launch's idempotency key added); an abort, a body that is not
 * JSON, or anything unforeseen is wrapped.
 */
function toLibraryError(
  error: unknown,
  secrets: readonly string[],
  idempotencyKey?: string,
): WorkflowRunApiError {
  if (error instanceof WorkflowRunApiError) {
    if (idempotencyKey !== undefined) error.idempotencyKey = idempotencyKey;
    return error;
  }
  const name = error instanceof Error ? error.name : "";
  const message = error instanceof Error ? error.message : String(error);
  if (name === "AbortError" || name === "TimeoutError") {
    return new RequestAbortedError({
      status: null,
      code: CODE.ABORTED,
      message: `request aborted${idempotencyKey ? `; the server may already have it: relaunch with idempotency key ${idempotencyKey}` : ""}`,
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

/** Creates a client for one environment of the Workflow Run API. */
export function createClient(options: ClientOptions) {
  checkApiKey(options.apiKey);
  const baseUrl = resolveBaseUrl(options);
  const secrets = [options.apiKey];
  const clock = options.clock ?? systemClock;
  const log = createRedactingLog(options.logger, secrets);
  const settings: TransportSettings = {
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    timeoutMs: options.timeoutMs ?? 30_000,
    retry: { ...DEFAULT_RETRY, ...options.retry },
    clock,
    log,
    secrets,
    userAgent: USER_AGENT,
  };
  const api = createFetchClient<WirePaths>({
    baseUrl,
    headers: { Authorization: `Bearer ${options.apiKey}` },
  });
  const transport = (policy: CallPolicy) => createRetryingFetch(settings, policy);
  const requestPolicy = (requestOptions: RequestOptions = {}) => ({
    signal: requestOptions.signal,
    timeoutMs: requestOptions.timeoutMs,
    maxRetries: requestOptions.maxRetries,
    headers: requestOptions.headers,
  });
  const fail = (
    response: Response,
    body: unknown,
    idempotencyKey?: string,
  ): WorkflowRunApiError => {
    const error = errorFromResponse(response.status, body, response.headers, {
      idempotencyKey,
      secrets,
      nowMs: clock.now(),
    });
    log("warn", "request failed", {
      status: error.status,
      code: error.code,
      requestId: error.requestId,
    });
    return error;
  };
  async function guard<T>(
    work: () => Promise<T>,
    idempotencyKey?: string,
    signal?: AbortSignal,
  ): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof WorkflowRunApiError) && signal?.aborted) {
        throw new RequestAbortedError({
          status: null,
          code: CODE.ABORTED,
          message: "aborted by the caller's signal",
          idempotencyKey,
          cause: error,
          secrets,
        });
      }
      throw toLibraryError(error, secrets, idempotencyKey);
    }
  }

  async function prepareLaunch(
    workflow: AnyWorkflowDefinition | string,
    launchOptions: RuntimeLaunchOptions,
    idempotencyKey: string,
  ): Promise<{ workflowId: string; body: Uint8Array<ArrayBuffer> }> {
    const definition = typeof workflow === "string" ? undefined : workflow;
    const workflowId = definition ? definition.id : (workflow as string);
    if (definition && definition.state !== "enabled") {
      throw new WorkflowNotEnabledError({
        status: null,
        code: CODE.WORKFLOW_NOT_ENABLED,
        message: `Workflow ${workflowId} is ${definition.state}; only an enabled workflow can be launched`,
      });
    }
    const keyLength = characterCount(idempotencyKey);
    if (keyLength === 0 || keyLength > MAX_IDEMPOTENCY_KEY_LENGTH) {
      throw new InvalidOptionError({
        status: null,
        code: CODE.INVALID_IDEMPOTENCY_KEY,
        message: `idempotencyKey must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters (got ${keyLength})`,
      });
    }
    if (!isPlainObject(launchOptions.inputs)) {
      throw new InputValidationError(
        [
          {
            field: "inputs",
            reason: INPUT_REASON.INVALID_TYPE,
            message: "inputs must be an object",
          },
        ],
        workflowId,
      );
    }
    if (definition && launchOptions.validate !== false) {
      const issues = definition.validateInputs(launchOptions.inputs);
      if (issues.length > 0) throw new InputValidationError(issues, workflowId);
    }
    if (launchOptions.metadata !== undefined && !isPlainObject(launchOptions.metadata)) {
      throw new InvalidMetadataError({
        status: null,
        code: CODE.INVALID_METADATA,
        message: "metadata must be a plain JSON object",
      });
    }
    if (launchOptions.callbackUrl !== undefined) {
      const checked = checkPublicCallbackUrl(launchOptions.callbackUrl);
      if (!checked.ok)
        throw new InvalidOptionError({
          status: null,
          code: CODE.INVALID_CALLBACK_URL,
          message: checked.reason,
        });
    }
    if (launchOptions.model !== undefined && definition && !definition.modelExposed) {
      throw new InvalidOptionError({
        status: null,
        code: CODE.MODEL_NOT_EXPOSED,
        message: `This environment does not expose model for workflow ${workflowId}`,
      });
    }
    // A definition generated from an environment that lists its models: only those are accepted.
    if (
      launchOptions.model !== undefined &&
      definition &&
      definition.models.length > 0 &&
      !definition.models.includes(launchOptions.model)
    ) {
      throw new InvalidOptionError({
        status: null,
        code: CODE.MODEL_NOT_ALLOWED,
        message: `This environment allows model ${definition.models.map((m) => JSON.stringify(m)).join(", ")} for workflow ${workflowId}, not ${JSON.stringify(launchOptions.model)}`,
      });
    }
    const body = await buildLaunchBody({
      inputs: launchOptions.inputs as Record<string, unknown>,
      metadata: launchOptions.metadata,
      callbackUrl: launchOptions.callbackUrl,
      model: launchOptions.model,
      idempotencyKey: keyFitsHeader(idempotencyKey) ? undefined : idempotencyKey,
    });
    return { workflowId, body };
  }

  /** The data with the response's request id on it (non-enumerable `_requestId`), and the response. */
  const withRequestId = <T extends object>(data: T, response: Response): WithResponse<T> => {
    const requestId = requestIdOf(response);
    return { data: attachRequestId(data, requestId), response, requestId };
  };

  const readJson = async (response: Response): Promise<unknown> => {
    const text = await response.text();
    return text === "" ? undefined : JSON.parse(text);
  };

  async function launchWithResponse(
    workflow: AnyWorkflowDefinition | string,
    launchOptions: RuntimeLaunchOptions,
  ): Promise<WithResponse<LaunchedRun>> {
    const idempotencyKey = launchOptions.idempotencyKey ?? crypto.randomUUID();
    return guard(
      async () => {
        const { workflowId, body } = await prepareLaunch(workflow, launchOptions, idempotencyKey);
        // The body bytes go straight to the transport: passing them through
        // openapi-fetch's Request would cost one more copy of up to 36 MiB.
        const url = `${baseUrl}/automations/${encodeURIComponent(workflowId)}/runs`;
        const request = new Request(url, {
          method: "POST",
          headers: {
            Authorization: `Bearer ${options.apiKey}`,
            "Content-Type": "application/json",
            // A key no header can carry travels in the body (prepareLaunch put it there).
            ...(keyFitsHeader(idempotencyKey) ? { "Idempotency-Key": idempotencyKey } : {}),
          },
        });
        const response = await transport({
          retry: true,
          body,
          ...requestPolicy(launchOptions),
        })(request);
        const data = await readJson(response);
        if (!response.ok || response.status !== 202 || typeof data !== "object" || data === null)
          throw fail(response, data, idempotencyKey);
        const run = toRunEnvelope(data as WireRunEnvelope);
        log("info", "run launched", { runId: run.run_id, workflowId, idempotencyKey });
        return withRequestId({ ...run, idempotencyKey }, response);
      },
      idempotencyKey,
      launchOptions.signal,
    );
  }

  /**
   * Launches an enabled workflow. The body is built once as bytes; every
   * automatic retry resends the same bytes with the same Idempotency-Key.
   * The key (given or generated) is on the result and on every error thrown.
   */
  // One generic signature rather than overloads: with overloads a wrong
  // option is reported as "No overload matches this call" on the call line;
  // here it is reported on the option that is wrong (for example `model`).
  function launch<W extends LaunchableWorkflow | string>(
    workflow: W,
    launchOptions: W extends LaunchableWorkflow ? LaunchOptions<W> : UntypedLaunchOptions,
  ): Promise<WithRequestId<LaunchedRun>>;
  async function launch(
    workflow: AnyWorkflowDefinition | string,
    launchOptions: RuntimeLaunchOptions,
  ): Promise<WithRequestId<LaunchedRun>> {
    const { intent } = launchOptions;
    if (!intent) return (await launchWithResponse(workflow, launchOptions)).data;
    return launchWithJournal(
      intent,
      {
        workflowId: typeof workflow === "string" ? workflow : workflow.id,
        inputs: launchOptions.inputs,
        metadata: launchOptions.metadata,
        model: launchOptions.model,
        callbackUrl: launchOptions.callbackUrl,
        idempotencyKey: launchOptions.idempotencyKey,
      },
      {
        send: async (idempotencyKey) =>
          (await launchWithResponse(workflow, { ...launchOptions, idempotencyKey })).data,
        // Acknowledged before: read the run back instead of sending the body again.
        read: async (runId, idempotencyKey) => {
          const run = await getRun(runId, launchOptions);
          return attachRequestId({ ...run, idempotencyKey }, run._requestId);
        },
      },
    );
  }

  async function getRunWithResponse(
    runId: string,
    requestOptions?: RequestOptions,
  ): Promise<WithResponse<RunEnvelope>> {
    return guard(async () => {
      const { data, error, response } = await api.GET("/runs/{runId}", {
        params: { path: { runId } },
        fetch: transport({ retry: true, ...requestPolicy(requestOptions) }),
      });
      if (error !== undefined || !data) throw fail(response, error);
      return withRequestId(toRunEnvelope(data), response);
    });
  }

  /** Reads the run envelope (GET /runs/{runId}). */
  async function getRun(
    runId: string,
    requestOptions?: RequestOptions,
  ): Promise<WithRequestId<RunEnvelope>> {
    return (await getRunWithResponse(runId, requestOptions)).data;
  }

  async function fetchResult(
    runId: string,
    requestOptions?: RequestOptions,
  ): Promise<{ status: number; body: ResultResponse; response: Response }> {
    return guard(async () => {
      const { data, error, response } = await api.GET("/runs/{runId}/result", {
        params: { path: { runId } },
        fetch: transport({ retry: true, ...requestPolicy(requestOptions) }),
      });
      if (error !== undefined || !data) throw fail(response, error);
      return { status: response.status, body: data, response };
    });
  }

  /**
   * Reads the result: `{ state: "pending" }` on 202; on 200 a terminal
   * result where only status "succeeded" carries (validated) outputs. With a
   * plain run id the outputs are not checked (`unknown` values).
   */
  function getResult<W extends AnyWorkflowDefinition>(
    workflow: W,
    runId: string,
    requestOptions?: RequestOptions,
  ): Promise<WithRequestId<RunResult<OutputsOf<W>>>>;
  function getResult(
    runId: string,
    requestOptions?: RequestOptions,
  ): Promise<WithRequestId<RunResult<Record<string, unknown>>>>;
  async function getResult(
    first: AnyWorkflowDefinition | string,
    second?: string | RequestOptions,
    third?: RequestOptions,
  ): Promise<WithRequestId<RunResult<unknown>>> {
    return (await getResultWithResponse(first, second, third)).data;
  }

  async function getResultWithResponse(
    workflowOrRunId: AnyWorkflowDefinition | string,
    runIdOrOptions?: string | RequestOptions,
    maybeOptions?: RequestOptions,
  ): Promise<WithResponse<RunResult<unknown>>> {
    const workflow = typeof workflowOrRunId === "string" ? undefined : workflowOrRunId;
    const runId =
      typeof workflowOrRunId === "string" ? workflowOrRunId : (runIdOrOptions as string);
    const requestOptions =
      typeof workflowOrRunId === "string"
        ? (runIdOrOptions as RequestOptions | undefined)
        : maybeOptions;
    const { status, body, response } = await fetchResult(runId, requestOptions);
    return guard(async () => withRequestId(toRunResult(status, body, runId, workflow), response));
  }

  async function getEventsWithResponse(
    runId: string,
    requestOptions?: RequestOptions,
  ): Promise<WithResponse<EventSnapshot>> {
    return guard(async () => {
      const { data, error, response } = await api.GET("/runs/{runId}/events", {
        params: { path: { runId } },
        fetch: transport({ retry: true, ...requestPolicy(requestOptions) }),
      });
      if (error !== undefined || !data) throw fail(response, error);
      return withRequestId(data, response);
    });
  }

  /** Reads the JSON event snapshot (not a stream). */
  async function getEvents(
    runId: string,
    requestOptions?: RequestOptions,
  ): Promise<WithRequestId<EventSnapshot>> {
    return (await getEventsWithResponse(runId, requestOptions)).data;
  }

  /**
   * Polls until the run is terminal or a person is awaited at a checkpoint
   * not yet answered. Aborting `signal` stops watching only: there is no
   * cancellation endpoint, the run carries on.
   */
  function waitForRun(
    runId: string,
    waitOptions: WaitOptions = {},
  ): Promise<WithRequestId<RunEnvelope>> {
    const pollOptions = { maxRetries: waitOptions.maxRetries, headers: waitOptions.headers };
    return guard(
      () =>
        waitForRunWith(
          {
            getRun: (id, signal) => getRun(id, { ...pollOptions, signal }),
            resultIsTerminal: async (id, signal) =>
              (await fetchResult(id, { ...pollOptions, signal })).status === 200,
            clock,
          },
          runId,
          waitOptions,
        ),
      undefined,
      waitOptions.signal,
    );
  }

  /**
   * The run's changes as an async iterable, until it is terminal: status
   * changes, new records of the events snapshot, new checkpoints. Built on
   * polling with the rules of waitForRun; aborting `signal` stops watching
   * only (the run carries on).
   *
   * ```ts
   * for await (const change of wfr.watchRun(runId)) console.log(change.type);
   * ```
   */
  function watchRun(
    runId: string,
    watchOptions: WatchRunOptions = {},
  ): AsyncGenerator<RunChange, RunEnvelope, undefined> {
    const pollOptions = (signal?: AbortSignal): RequestOptions => ({ signal });
    return watchRunWith(
      {
        getRun: (id, signal) => getRun(id, pollOptions(signal)),
        getEvents: (id, signal) => getEvents(id, pollOptions(signal)),
        resultIsTerminal: async (id, signal) =>
          (await fetchResult(id, pollOptions(signal))).status === 200,
        clock,
      },
      runId,
      watchOptions,
    );
  }

  /**
   * waitForRun, then the result. When polling stopped at a human wait the
   * result is `{ state: "pending", status: "waiting_for_human_live" }`.
   */
  function waitForResult<W extends AnyWorkflowDefinition>(
    workflow: W,
    runId: string,
    waitOptions?: WaitOptions,
  ): Promise<WithRequestId<RunResult<OutputsOf<W>>>>;
  function waitForResult(
    runId: string,
    waitOptions?: WaitOptions,
  ): Promise<WithRequestId<RunResult<Record<string, unknown>>>>;
  async function waitForResult(
    first: AnyWorkflowDefinition | string,
    second?: string | WaitOptions,
    third?: WaitOptions,
  ): Promise<WithRequestId<RunResult<unknown>>> {
    const runId = typeof first === "string" ? first : (second as string);
    const waitOptions = (typeof first === "string" ? second : third) as WaitOptions | undefined;
    await waitForRun(runId, waitOptions ?? {});
    const resultOptions: RequestOptions = {
      signal: waitOptions?.signal,
      maxRetries: waitOptions?.maxRetries,
      headers: waitOptions?.headers,
    };
    return typeof first === "string"
      ? getResult(runId, resultOptions)
      : getResult(first, runId, resultOptions);
  }

  /**
   * Downloads the session video with a plain GET (never a Range header).
   * Every GET counts against the workspace's 10 recording attempts per hour
   * (spec, Limits), so one call spends at most `maxAttempts` GETs (default
   * 3) across 202 RECORDING_PROCESSING, 5xx and network failures. 429
   * RECORDING_RATE_LIMITED is thrown at once with `retryAfterSeconds`.
   */
  async function downloadRecording(
    runId: string,
    downloadOptions: DownloadRecordingOptions = {},
  ): Promise<WithRequestId<RecordingDownload>> {
    return (await downloadRecordingWithResponse(runId, downloadOptions)).data;
  }

  async function downloadRecordingWithResponse(
    runId: string,
    downloadOptions: DownloadRecordingOptions = {},
  ): Promise<WithResponse<RecordingDownload>> {
    const maxAttempts =
      downloadOptions.maxAttempts ??
      downloadOptions.maxProcessingAttempts ??
      DEFAULT_RECORDING_ATTEMPTS;
    return guard(
      async () => {
        for (let attempt = 1; ; attempt += 1) {
          let response: Response;
          let data: unknown;
          let error: unknown;
          try {
            ({ data, error, response } = await api.GET("/runs/{runId}/recording", {
              params: { path: { runId } },
              parseAs: "stream",
              // One GET per loop turn: this loop owns the attempt budget.
              fetch: transport({
                retry: false,
                streamBody: true,
                ...requestPolicy(downloadOptions),
              }),
            }));
          } catch (failure) {
            if (failure instanceof RequestAbortedError || attempt >= maxAttempts) throw failure;
            await clock.sleep(1000 * attempt, downloadOptions.signal);
            continue;
          }
          const retryAfterSeconds =
            parseRetryAfterSeconds(response.headers.get("retry-after"), clock.now()) ?? 3;
          if (response.status === 202 || RETRYABLE_STATUSES.has(response.status)) {
            const body = await readRecordingErrorBody(data, error);
            if (response.status === 429 || attempt >= maxAttempts) {
              const failure = fail(response, body);
              if (response.status !== 202 || failure instanceof RecordingProcessingError)
                throw failure;
              throw new RecordingProcessingError({
                status: 202,
                code: CODE.RECORDING_PROCESSING,
                message: `${failure.message} (after ${attempt} GETs)`,
                retryAfterSeconds,
              });
            }
            log("info", "recording not ready; retrying", {
              runId,
              attempt,
              status: response.status,
              retryAfterSeconds,
            });
            await clock.sleep(retryAfterSeconds * 1000, downloadOptions.signal);
            continue;
          }
          if (error !== undefined) throw fail(response, error);
          if (!data) throw fail(response, undefined);
          const length = response.headers.get("content-length");
          const idleMs = downloadOptions.timeoutMs ?? settings.timeoutMs;
          return withRequestId<RecordingDownload>(
            {
              stream: withIdleTimeout(
                data as ReadableStream<Uint8Array>,
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
            },
            response,
          );
        }
      },
      undefined,
      downloadOptions.signal,
    );
  }

  /**
   * Answers a human checkpoint, always sending checkpoint_id. Automatic
   * retries resend the identical body only, which the spec makes safe ("An
   * identical answer to the same checkpoint is idempotent"); it never sends
   * a different answer. After answering, keep polling.
   */
  async function answerHumanInput(
    runId: string,
    answer: HumanInputAnswer,
    requestOptions: RequestOptions = {},
  ): Promise<WithRequestId<RunEnvelope>> {
    return (await answerHumanInputWithResponse(runId, answer, requestOptions)).data;
  }

  async function answerHumanInputWithResponse(
    runId: string,
    answer: HumanInputAnswer,
    requestOptions: RequestOptions = {},
  ): Promise<WithResponse<RunEnvelope>> {
    return guard(async () => {
      if (!answer.checkpointId) {
        throw new InvalidOptionError({
          status: null,
          code: CODE.INVALID_CHECKPOINT_ID,
          message: "checkpointId is required",
        });
      }
      const { data, error, response } = await api.POST("/runs/{runId}/human-input", {
        params: { path: { runId } },
        body: { checkpoint_id: answer.checkpointId, response: answer.response },
        fetch: transport({
          retry: true,
          identicalBodyIsIdempotent: true,
          ...requestPolicy({ signal: answer.signal, ...requestOptions }),
        }),
      });
      if (error !== undefined || !data) throw fail(response, error);
      return withRequestId(toRunEnvelope(data), response);
    });
  }

  /**
   * Downloads a file output of a result from its `download_url`, only under
   * the environment's root and the client's `fileOrigins` (plus any given
   * here): https, or loopback http against the emulator; redirects only
   * inside them. Anything else is a FileOutputDownloadRefusedError before any
   * request, so result data cannot make a server fetch its own internals.
   */
  function downloadFile(
    reference: FileOutputReference,
    downloadOptions: {
      readonly signal?: AbortSignal;
      readonly allowedOrigins?: readonly string[];
    } = {},
  ): Promise<Response> {
    return downloadFileOutput(reference, {
      baseUrl,
      allowedOrigins: [...(options.fileOrigins ?? []), ...(downloadOptions.allowedOrigins ?? [])],
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(downloadOptions.signal ? { signal: downloadOptions.signal } : {}),
    });
  }

  /**
   * A short-lived grant for a browser to watch the run's live session from
   * exact origins, so that no page ever holds a workspace key
   * (docs/service-rules.md#portal-sessions-and-browser-access). The token is
   * in this answer only; hand it to the page that embeds the live view.
   * Not resent after a lost response (each POST makes a new grant).
   */
  async function createBrowserAccessGrant(
    runId: string,
    grant: BrowserAccessGrantOptions,
    requestOptions: RequestOptions = {},
  ): Promise<WithRequestId<BrowserAccessGrantWithToken>> {
    return guard(async () => {
      const { data, error, response } = await api.POST("/runs/{runId}/browser-access-grants", {
        params: { path: { runId } },
        body: {
          origins: [...grant.origins],
          ...(grant.expiresInSeconds !== undefined
            ? { expires_in_seconds: grant.expiresInSeconds }
            : {}),
        },
        fetch: transport({ retry: true, ...requestPolicy(requestOptions) }),
      });
      if (error !== undefined || !data) throw fail(response, error);
      return withRequestId(data, response).data;
    });
  }

  /** Reads a grant (never its token); `expired` says whether it still opens the live view. */
  async function getBrowserAccessGrant(
    grantId: string,
    requestOptions: RequestOptions = {},
  ): Promise<WithRequestId<BrowserAccessGrant>> {
    return guard(async () => {
      const { data, error, response } = await api.GET("/browser-access-grants/{grantId}", {
        params: { path: { grantId } },
        fetch: transport({ retry: true, ...requestPolicy(requestOptions) }),
      });
      if (error !== undefined || !data) throw fail(response, error);
      return withRequestId(data, response).data;
    });
  }

  /** Deletes a grant: the live view refuses its token from now on; the run goes on. */
  async function deleteBrowserAccessGrant(
    grantId: string,
    requestOptions: RequestOptions = {},
  ): Promise<void> {
    return guard(async () => {
      const { error, response } = await api.DELETE("/browser-access-grants/{grantId}", {
        params: { path: { grantId } },
        fetch: transport({ retry: true, ...requestPolicy(requestOptions) }),
      });
      if (!response.ok) throw fail(response, error);
    });
  }

  return {
    baseUrl,
    launch,
    getRun,
    getResult,
    getEvents,
    waitForRun,
    waitForResult,
    watchRun,
    downloadFileOutput: downloadFile,
    createBrowserAccessGrant,
    getBrowserAccessGrant,
    deleteBrowserAccessGrant,
    downloadRecording,
    answerHumanInput,
    /** The same calls, resolving to `{ data, response, requestId }`: raw response access on every method. */
    withResponse: {
      launch: launchWithResponse as <W extends LaunchableWorkflow | string>(
        workflow: W,
        launchOptions: W extends LaunchableWorkflow ? LaunchOptions<W> : UntypedLaunchOptions,
      ) => Promise<WithResponse<LaunchedRun>>,
      getRun: getRunWithResponse,
      getResult: getResultWithResponse as {
        <W extends AnyWorkflowDefinition>(
          workflow: W,
          runId: string,
          requestOptions?: RequestOptions,
        ): Promise<WithResponse<RunResult<OutputsOf<W>>>>;
        (
          runId: string,
          requestOptions?: RequestOptions,
        ): Promise<WithResponse<RunResult<Record<string, unknown>>>>;
      },
      getEvents: getEventsWithResponse,
      answerHumanInput: answerHumanInputWithResponse,
      downloadRecording: downloadRecordingWithResponse,
    },
  };
}

/** The JSON of a non-200 recording answer when there is one; its stream otherwise discarded. */
async function readRecordingErrorBody(data: unknown, error: unknown): Promise<unknown> {
  if (error !== undefined) return error;
  if (!data) return undefined;
  try {
    return await new Response(data as ReadableStream).json();
  } catch {
    return undefined;
  }
}
