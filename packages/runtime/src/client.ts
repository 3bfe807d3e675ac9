// The client: option checks and result shaping are pure functions in their
// own modules; this file wires them to openapi-fetch and the retrying fetch.
import createFetchClient from "openapi-fetch";
import { type Clock, systemClock } from "./backoff.js";
import {
  errorFromResponse,
  InputValidationError,
  InvalidMetadataError,
  InvalidOptionError,
  RecordingProcessingError,
  WorkflowNotLaunchableError,
  WorkflowRunApiError,
} from "./errors.js";
import {
  type CallPolicy,
  createRetryingFetch,
  DEFAULT_RETRY,
  RECORDING_RETRYABLE_STATUSES,
  type RetryOptions,
  type TransportSettings,
} from "./http-transport.js";
import { serializeLaunchBody } from "./launch-body.js";
import { createRedactingLog, type Logger } from "./logger.js";
import { parseRetryAfterSeconds } from "./retry-after.js";
import { type RunResult, toRunResult } from "./run-result.js";
import { checkBaseUrl, checkPublicCallbackUrl } from "./url-checks.js";
import { type WaitOptions, waitForRunWith } from "./wait-for-run.js";
import type { EventSnapshot, ResultResponse, RunEnvelope, WirePaths } from "./wire-types.js";
import type {
  AnyWorkflowDefinition,
  InputsOf,
  LaunchableWorkflow,
  ModelName,
  OutputsOf,
  WorkflowDefinition,
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
  /** Per-attempt timeout until response headers. Default 30,000 ms. */
  readonly timeoutMs?: number;
  readonly retry?: RetryOptions;
  readonly logger?: Logger;
  /** Time source for retries and polling (tests). */
  readonly clock?: Clock;
}

interface CommonLaunchOptions {
  /** Caller correlation data; must be a plain JSON object. */
  readonly metadata?: Record<string, unknown>;
  /** Public HTTPS receiver of run notifications. */
  readonly callbackUrl?: string;
  /** At most 200 characters. When absent, one is made per launch call. */
  readonly idempotencyKey?: string;
  /** Validate inputs locally with the workflow's schema first. Default true. */
  readonly validate?: boolean;
  readonly signal?: AbortSignal;
}

/** Launch options for a generated workflow: typed inputs, and `model` only where the environment exposes it. */
export type LaunchOptions<W extends AnyWorkflowDefinition> = CommonLaunchOptions & {
  readonly inputs: InputsOf<W>;
} & (W extends WorkflowDefinition<string, unknown, unknown, "enabled", true>
    ? { readonly model?: ModelName }
    : { readonly model?: never });

/** What `launch` receives at run time, whichever overload was used. */
interface RuntimeLaunchOptions extends CommonLaunchOptions {
  readonly inputs: unknown;
  readonly model?: ModelName | undefined;
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

export interface DownloadRecordingOptions {
  /** Attempts while the server answers 202 RECORDING_PROCESSING. Default 10. */
  readonly maxProcessingAttempts?: number;
  readonly signal?: AbortSignal;
}

export interface HumanInputAnswer {
  /** The checkpoint being answered (human_action.checkpoint_id); always sent. */
  readonly checkpointId: string;
  readonly response: unknown;
  readonly signal?: AbortSignal;
}

export const MAX_IDEMPOTENCY_KEY_LENGTH = 200;

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
      code: "INVALID_BASE_URL",
      message: "Give baseUrl or environment",
    });
  }
  const checked = checkBaseUrl(raw);
  if (!checked.ok)
    throw new InvalidOptionError({
      status: null,
      code: "INVALID_BASE_URL",
      message: checked.reason,
    });
  return checked.baseUrl;
}

export type WorkflowRunClient = ReturnType<typeof createClient>;

/** Creates a client for one environment of the Workflow Run API. */
export function createClient(options: ClientOptions) {
  if (!options.apiKey) {
    throw new InvalidOptionError({
      status: null,
      code: "INVALID_API_KEY",
      message: "apiKey is required",
    });
  }
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
  };
  const api = createFetchClient<WirePaths>({
    baseUrl,
    headers: { Authorization: `Bearer ${options.apiKey}` },
  });
  const transport = (policy: CallPolicy) => createRetryingFetch(settings, policy);
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

  async function prepareLaunch(
    workflow: AnyWorkflowDefinition | string,
    launchOptions: RuntimeLaunchOptions,
    idempotencyKey: string,
  ): Promise<{ workflowId: string; body: string }> {
    const definition = typeof workflow === "string" ? undefined : workflow;
    const workflowId = definition ? definition.id : (workflow as string);
    if (definition && definition.state !== "enabled") {
      throw new WorkflowNotLaunchableError({
        status: null,
        code: "WORKFLOW_NOT_LAUNCHABLE",
        message: `Workflow ${workflowId} is ${definition.state}; only an enabled workflow can be launched`,
      });
    }
    if (idempotencyKey.length === 0 || idempotencyKey.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
      throw new InvalidOptionError({
        status: null,
        code: "INVALID_IDEMPOTENCY_KEY",
        message: `idempotencyKey must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters (got ${idempotencyKey.length})`,
      });
    }
    if (!isPlainObject(launchOptions.inputs)) {
      throw new InputValidationError(
        [{ field: "inputs", reason: "INVALID_TYPE", message: "inputs must be an object" }],
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
        code: "INVALID_METADATA",
        message: "metadata must be a plain JSON object",
      });
    }
    if (launchOptions.callbackUrl !== undefined) {
      const checked = checkPublicCallbackUrl(launchOptions.callbackUrl);
      if (!checked.ok)
        throw new InvalidOptionError({
          status: null,
          code: "INVALID_CALLBACK_URL",
          message: checked.reason,
        });
    }
    if (launchOptions.model !== undefined && definition && !definition.modelExposed) {
      throw new InvalidOptionError({
        status: null,
        code: "MODEL_NOT_EXPOSED",
        message: `This environment does not expose model for workflow ${workflowId}`,
      });
    }
    const body = await serializeLaunchBody({
      inputs: launchOptions.inputs as Record<string, unknown>,
      metadata: launchOptions.metadata,
      callbackUrl: launchOptions.callbackUrl,
      model: launchOptions.model,
    });
    return { workflowId, body };
  }

  /**
   * Launches an enabled workflow. The body is serialised once; every
   * automatic retry resends the same bytes with the same Idempotency-Key.
   * The key (given or generated) is on the result and on every error thrown.
   */
  // One generic signature rather than overloads: with overloads a wrong
  // option is reported as "No overload matches this call" on the call line;
  // here it is reported on the option that is wrong (for example `model`).
  function launch<W extends LaunchableWorkflow | string>(
    workflow: W,
    launchOptions: W extends LaunchableWorkflow ? LaunchOptions<W> : UntypedLaunchOptions,
  ): Promise<LaunchedRun>;
  async function launch(
    workflow: AnyWorkflowDefinition | string,
    launchOptions: RuntimeLaunchOptions,
  ): Promise<LaunchedRun> {
    const idempotencyKey = launchOptions.idempotencyKey ?? crypto.randomUUID();
    try {
      const { workflowId, body } = await prepareLaunch(workflow, launchOptions, idempotencyKey);
      const { data, error, response } = await api.POST("/automations/{workflowId}/runs", {
        params: { path: { workflowId }, header: { "Idempotency-Key": idempotencyKey } },
        body: body as never,
        bodySerializer: (serialized: unknown) => serialized as string,
        headers: { "Content-Type": "application/json" },
        fetch: transport({ retry: true, signal: launchOptions.signal }),
      });
      if (error !== undefined || !data) throw fail(response, error, idempotencyKey);
      log("info", "run launched", { runId: data.run_id, workflowId, idempotencyKey });
      return { ...data, idempotencyKey };
    } catch (error) {
      if (error instanceof WorkflowRunApiError) error.idempotencyKey = idempotencyKey;
      throw error;
    }
  }

  /** Reads the run envelope (GET /runs/{runId}). */
  async function getRun(runId: string, signal?: AbortSignal): Promise<RunEnvelope> {
    const { data, error, response } = await api.GET("/runs/{runId}", {
      params: { path: { runId } },
      fetch: transport({ retry: true, signal }),
    });
    if (error !== undefined || !data) throw fail(response, error);
    return data;
  }

  async function fetchResult(
    runId: string,
    signal?: AbortSignal,
  ): Promise<{ status: number; body: ResultResponse }> {
    const { data, error, response } = await api.GET("/runs/{runId}/result", {
      params: { path: { runId } },
      fetch: transport({ retry: true, signal }),
    });
    if (error !== undefined || !data) throw fail(response, error);
    return { status: response.status, body: data };
  }

  /**
   * Reads the result: `{ state: "pending" }` on 202; on 200 a terminal
   * result where only status "succeeded" carries (validated) outputs.
   */
  function getResult<W extends AnyWorkflowDefinition>(
    workflow: W,
    runId: string,
    signal?: AbortSignal,
  ): Promise<RunResult<OutputsOf<W>>>;
  function getResult(
    runId: string,
    signal?: AbortSignal,
  ): Promise<RunResult<Record<string, unknown>>>;
  async function getResult(
    first: AnyWorkflowDefinition | string,
    second?: string | AbortSignal,
    third?: AbortSignal,
  ): Promise<RunResult<unknown>> {
    const workflow = typeof first === "string" ? undefined : first;
    const runId = typeof first === "string" ? first : (second as string);
    const signal = typeof first === "string" ? (second as AbortSignal | undefined) : third;
    const { status, body } = await fetchResult(runId, signal);
    return toRunResult(status, body, runId, workflow);
  }

  /** Reads the JSON event snapshot (not a stream). */
  async function getEvents(runId: string, signal?: AbortSignal): Promise<EventSnapshot> {
    const { data, error, response } = await api.GET("/runs/{runId}/events", {
      params: { path: { runId } },
      fetch: transport({ retry: true, signal }),
    });
    if (error !== undefined || !data) throw fail(response, error);
    return data;
  }

  /**
   * Polls until the run is terminal or waits for a person. Aborting
   * `signal` stops watching only: there is no cancellation endpoint, the
   * run carries on.
   */
  function waitForRun(runId: string, waitOptions: WaitOptions = {}): Promise<RunEnvelope> {
    return waitForRunWith(
      {
        getRun,
        resultIsTerminal: async (id, signal) => (await fetchResult(id, signal)).status === 200,
        clock,
      },
      runId,
      waitOptions,
    );
  }

  /**
   * waitForRun, then the result. When polling stopped at a human wait the
   * result is `{ state: "pending", status: "waiting_for_human_live" }`.
   */
  async function waitForResult<W extends AnyWorkflowDefinition>(
    workflow: W,
    runId: string,
    waitOptions: WaitOptions = {},
  ): Promise<RunResult<OutputsOf<W>>> {
    await waitForRun(runId, waitOptions);
    return getResult(workflow, runId, waitOptions.signal);
  }

  /**
   * Downloads the session video with a plain GET (never a Range header).
   * 202 RECORDING_PROCESSING: waits Retry-After and retries the same URL,
   * up to `maxProcessingAttempts`. 429 RECORDING_RATE_LIMITED is thrown at
   * once with `retryAfterSeconds` (the limit is hourly).
   */
  async function downloadRecording(
    runId: string,
    downloadOptions: DownloadRecordingOptions = {},
  ): Promise<RecordingDownload> {
    const maxAttempts = downloadOptions.maxProcessingAttempts ?? 10;
    for (let attempt = 1; ; attempt += 1) {
      const { data, error, response } = await api.GET("/runs/{runId}/recording", {
        params: { path: { runId } },
        parseAs: "stream",
        fetch: transport({
          retry: true,
          retryStatuses: RECORDING_RETRYABLE_STATUSES,
          signal: downloadOptions.signal,
        }),
      });
      if (error !== undefined) throw fail(response, error);
      if (response.status === 202) {
        const fallback = { code: "RECORDING_PROCESSING", error: "recording processing" };
        const body: unknown = data
          ? await new Response(data as ReadableStream).json().catch(() => fallback)
          : fallback;
        const retryAfterSeconds =
          parseRetryAfterSeconds(response.headers.get("retry-after"), clock.now()) ?? 3;
        if (attempt >= maxAttempts) {
          const processing = fail(response, body);
          throw processing instanceof RecordingProcessingError
            ? processing
            : new RecordingProcessingError({
                status: 202,
                code: "RECORDING_PROCESSING",
                message: processing.message,
              });
        }
        log("info", "recording still processing", { runId, attempt, retryAfterSeconds });
        await clock.sleep(retryAfterSeconds * 1000, downloadOptions.signal);
        continue;
      }
      if (!data) throw fail(response, undefined);
      const length = response.headers.get("content-length");
      return {
        stream: data as ReadableStream<Uint8Array>,
        contentType: response.headers.get("content-type"),
        contentLength: length === null ? null : Number(length),
      };
    }
  }

  /**
   * Answers a human checkpoint, always sending checkpoint_id. Automatic
   * retries resend the identical body only, which the spec makes safe ("An
   * identical answer to the same checkpoint is idempotent"); it never sends
   * a different answer. After answering, keep polling.
   */
  async function answerHumanInput(runId: string, answer: HumanInputAnswer): Promise<RunEnvelope> {
    if (!answer.checkpointId) {
      throw new InvalidOptionError({
        status: null,
        code: "INVALID_CHECKPOINT_ID",
        message: "checkpointId is required",
      });
    }
    const { data, error, response } = await api.POST("/runs/{runId}/human-input", {
      params: { path: { runId } },
      body: { checkpoint_id: answer.checkpointId, response: answer.response },
      fetch: transport({ retry: true, identicalBodyIsIdempotent: true, signal: answer.signal }),
    });
    if (error !== undefined || !data) throw fail(response, error);
    return data;
  }

  return {
    baseUrl,
    launch,
    getRun,
    getResult,
    getEvents,
    waitForRun,
    waitForResult,
    downloadRecording,
    answerHumanInput,
  };
}
