// The client: every endpoint is a short method over the one request pipeline
// (pipeline.ts); option checks and result shaping are pure functions in their
// own modules.
import { ApiCall, type WithResponse } from "./api-call.js";
import { type Clock, systemClock } from "./backoff.js";
import { type ClientOptions, checkApiKey, resolveBaseUrl, USER_AGENT } from "./client-options.js";
import {
  type BrowserAccessGrantOptions,
  type GetResult,
  type HumanInputAnswer,
  path,
  pollOptions,
  resultArguments,
  type WithResponseMethods,
} from "./client-shapes.js";
import {
  createGrantEndpoint,
  deleteGrantEndpoint,
  humanInputEndpoint,
  launchEndpoint,
} from "./endpoints.js";
import type { WorkflowRunApiError } from "./errors.js";
import { downloadFileOutput, type FileOutputReference } from "./file-output.js";
import type { RequestOptions } from "./http-transport.js";
import {
  type LaunchedRun,
  type LaunchOptions,
  prepareLaunch,
  type RuntimeLaunchOptions,
  type UntypedLaunchOptions,
} from "./launch-request.js";
import { launchWithJournal } from "./launch-with-journal.js";
import { createRedactingLog, type Log, noLog } from "./logger.js";
import { activeTracing } from "./opentelemetry-global.js";
import { createPipeline, type Send, toLibraryError } from "./pipeline.js";
import {
  type DownloadRecordingOptions,
  type RecordingDownload,
  recordingEndpoint,
  stillProcessing,
} from "./recording.js";
import { DEFAULT_RETRY } from "./retry-rules.js";
import { attachRequestId, parsedRunEnvelope, type WithRequestId } from "./run-envelope.js";
import { toRunResult } from "./run-result.js";
import { type Tracing, tracedWait } from "./tracing.js";
import { type WaitOptions, waitForRunWith } from "./wait-for-run.js";
import { type RunChange, type WatchRunOptions, watchRunWith } from "./watch-run.js";
import type {
  BrowserAccessGrant,
  BrowserAccessGrantWithToken,
  EventSnapshot,
  ResultResponse,
  RunEnvelope,
  WireRoute,
  WireRunEnvelope,
} from "./wire-types.js";
import type { AnyWorkflowDefinition, LaunchableWorkflow } from "./workflow-definition.js";

export type { WithResponse } from "./api-call.js";
export { ApiCall } from "./api-call.js";
export type { ClientOptions, EnvironmentInfo } from "./client-options.js";
export { RUNTIME_VERSION } from "./client-options.js";
export type {
  BrowserAccessGrantOptions,
  GetResult,
  HumanInputAnswer,
  WithResponseMethods,
} from "./client-shapes.js";
export type {
  LaunchedRun,
  LaunchOptions,
  UntypedLaunchOptions,
} from "./launch-request.js";
export { MAX_IDEMPOTENCY_KEY_LENGTH } from "./launch-request.js";
export type { DownloadRecordingOptions, RecordingDownload } from "./recording.js";
export { DEFAULT_RECORDING_ATTEMPTS } from "./recording.js";
export type { WithRequestId };

/**
 * A client of one environment of the Workflow Run API. Every method returns
 * an {@link ApiCall}: await it for the data (with `_requestId`), or call
 * `.withResponse()` for `{ data, response, requestId }`. Methods are bound,
 * so `const { launch } = wfr` works.
 */
export class WorkflowRunClient {
  /** The checked API base (`.../api/v1`). */
  readonly baseUrl: string;
  /** @deprecated use `.withResponse()` on the call: `await wfr.getRun(id).withResponse()`. */
  readonly withResponse: WithResponseMethods;
  readonly #send: Send;
  readonly #clock: Clock;
  readonly #log: Log;
  readonly #secrets: readonly string[];
  readonly #timeoutMs: number;
  readonly #fileOrigins: readonly string[];
  readonly #fetch: typeof globalThis.fetch | undefined;
  readonly #tracing: Tracing | false | undefined;

  constructor(options: ClientOptions) {
    checkApiKey(options.apiKey);
    this.baseUrl = resolveBaseUrl(options);
    this.#secrets = [options.apiKey];
    this.#clock = options.clock ?? systemClock;
    this.#log = createRedactingLog(options.logger, this.#secrets);
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#fileOrigins = options.fileOrigins ?? [];
    this.#fetch = options.fetch;
    this.#tracing = options.tracing;
    const doFetch = options.fetch;
    this.#send = createPipeline({
      baseUrl: this.baseUrl,
      apiKey: options.apiKey,
      fetch: doFetch ?? ((input, init) => globalThis.fetch(input, init)),
      timeoutMs: this.#timeoutMs,
      retry: { ...DEFAULT_RETRY, ...options.retry },
      clock: this.#clock,
      log: this.#log,
      secrets: this.#secrets,
      userAgent: USER_AGENT,
      tracing: options.tracing,
    });
    for (const name of Object.getOwnPropertyNames(WorkflowRunClient.prototype)) {
      const method = (this as unknown as Record<string, unknown>)[name];
      if (name !== "constructor" && typeof method === "function")
        Object.defineProperty(this, name, { value: method.bind(this), writable: true });
    }
    this.withResponse = deprecatedWithResponse(this);
  }

  /** A GET of one JSON resource. */
  #get<T extends object>(
    route: WireRoute<"GET">,
    id: string,
    parse: (body: unknown, response: Response) => T,
    requestOptions: RequestOptions | undefined,
    accept: readonly number[] = [200],
  ): Promise<WithResponse<T>> {
    return this.#send(
      {
        method: "GET",
        route,
        path: path(route, id),
        accept,
        parse,
        // A grant's id is not a run's: only run routes name the run on the span.
        runId: route.startsWith("/runs/") ? id : undefined,
      },
      requestOptions,
    );
  }

  #call<T>(work: () => Promise<WithResponse<T>>, idempotencyKey?: string, signal?: AbortSignal) {
    return new ApiCall<T>(
      work().catch((error: unknown) => {
        throw toLibraryError(error, this.#secrets, idempotencyKey, signal);
      }),
    );
  }

  /**
   * Launches an enabled workflow. The body is built once as bytes; every
   * automatic retry resends the same bytes with the same idempotency key.
   * The key (given or generated) is on the result and on every error thrown.
   */
  // One generic signature rather than overloads: with overloads a wrong
  // option is reported as "No overload matches this call" on the call line;
  // here it is reported on the option that is wrong (for example `model`).
  launch<W extends LaunchableWorkflow | string>(
    workflow: W,
    launchOptions: W extends LaunchableWorkflow ? LaunchOptions<W> : UntypedLaunchOptions,
  ): ApiCall<LaunchedRun> {
    const options = launchOptions as RuntimeLaunchOptions;
    const target = workflow as AnyWorkflowDefinition | string;
    const { intent } = options;
    if (!intent) return this.#call(() => this.#launchOnce(target, options));
    let last: WithResponse<LaunchedRun> | undefined;
    return this.#call(async () => {
      const data = await launchWithJournal(
        intent,
        {
          workflowId: typeof target === "string" ? target : target.id,
          inputs: options.inputs,
          metadata: options.metadata,
          model: options.model,
          callbackUrl: options.callbackUrl,
          idempotencyKey: options.idempotencyKey,
        },
        {
          send: async (idempotencyKey) => {
            last = await this.#launchOnce(target, { ...options, idempotencyKey });
            return last.data;
          },
          // Acknowledged before: read the run back instead of sending the body again.
          read: async (runId, idempotencyKey) => {
            const read = await this.getRun(runId, options).withResponse();
            last = {
              ...read,
              data: attachRequestId({ ...read.data, idempotencyKey }, read.requestId),
            };
            return last.data;
          },
        },
      );
      return last ?? { data, response: new Response(null), requestId: data._requestId };
    });
  }

  async #launchOnce(
    workflow: AnyWorkflowDefinition | string,
    options: RuntimeLaunchOptions,
  ): Promise<WithResponse<LaunchedRun>> {
    const idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
    try {
      const launch = await prepareLaunch(workflow, options, idempotencyKey);
      const launched = await this.#send(launchEndpoint(launch, idempotencyKey), options);
      if (this.#log !== noLog)
        this.#log("info", "run launched", {
          runId: launched.data.run_id,
          workflowId: launch.workflowId,
          idempotencyKey,
        });
      return launched;
    } catch (error) {
      throw toLibraryError(error, this.#secrets, idempotencyKey, options.signal);
    }
  }

  /** Reads the run envelope (GET /runs/{runId}). */
  getRun(runId: string, requestOptions?: RequestOptions): ApiCall<RunEnvelope> {
    return this.#call(() =>
      this.#get(
        "/runs/{runId}",
        runId,
        (body) => parsedRunEnvelope(body as WireRunEnvelope),
        requestOptions,
      ),
    );
  }

  /** GET /runs/{runId}/result as it came: 202 (not terminal) or 200 (terminal). */
  #result(runId: string, requestOptions: RequestOptions | undefined) {
    return this.#get(
      "/runs/{runId}/result",
      runId,
      (body, response) => ({ status: response.status, body: body as ResultResponse }),
      requestOptions,
      [200, 202],
    );
  }

  /**
   * Reads the result: `{ state: "pending" }` on 202; on 200 a terminal
   * result where only status "succeeded" carries (validated) outputs. With a
   * plain run id the outputs are not checked (`unknown` values).
   */
  getResult: GetResult<RequestOptions> = ((
    first: AnyWorkflowDefinition | string,
    second?: string | RequestOptions,
    third?: RequestOptions,
  ) => {
    const { workflow, runId, options } = resultArguments(first, second, third);
    return this.#call(() =>
      this.#get(
        "/runs/{runId}/result",
        runId,
        (body, response) => toRunResult(response.status, body as ResultResponse, runId, workflow),
        options,
        [200, 202],
      ),
    );
  }) as GetResult<RequestOptions>;

  /** Reads the JSON event snapshot (not a stream). */
  getEvents(runId: string, requestOptions?: RequestOptions): ApiCall<EventSnapshot> {
    return this.#call(() =>
      this.#get("/runs/{runId}/events", runId, (body) => body as EventSnapshot, requestOptions),
    );
  }

  /**
   * Polls until the run is terminal or a person is awaited at a checkpoint
   * not yet answered. Aborting `signal` stops watching only: there is no
   * cancellation endpoint, the run carries on. With tracing, one span over
   * all its polls (each poll a child span and an event).
   */
  waitForRun(runId: string, waitOptions: WaitOptions = {}): ApiCall<RunEnvelope> {
    return this.#call(() => this.#waitForRun(runId, waitOptions), undefined, waitOptions.signal);
  }

  #waitForRun(runId: string, waitOptions: WaitOptions): Promise<WithResponse<RunEnvelope>> {
    return tracedWait(activeTracing(this.#tracing), "wfr waitForRun", runId, async (onPoll) => {
      let last: WithResponse<RunEnvelope> | undefined;
      await waitForRunWith(
        {
          getRun: async (id, signal) => {
            last = await this.getRun(id, pollOptions(waitOptions, signal)).withResponse();
            onPoll(last.data.serverStatus);
            return last.data;
          },
          resultIsTerminal: async (id, signal) =>
            (await this.#result(id, pollOptions(waitOptions, signal))).data.status === 200,
          clock: this.#clock,
        },
        runId,
        waitOptions,
      );
      return last as WithResponse<RunEnvelope>;
    });
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
  watchRun(
    runId: string,
    watchOptions: WatchRunOptions = {},
  ): AsyncGenerator<RunChange, RunEnvelope, undefined> {
    return watchRunWith(
      {
        getRun: (id, signal) => this.getRun(id, { signal }),
        getEvents: (id, signal) => this.getEvents(id, { signal }),
        resultIsTerminal: async (id, signal) =>
          (await this.#result(id, { signal })).data.status === 200,
        clock: this.#clock,
      },
      runId,
      watchOptions,
    );
  }

  /**
   * waitForRun, then the result. When polling stopped at a human wait the
   * result is `{ state: "pending", status: "waiting_for_human_live" }`.
   */
  waitForResult: GetResult<WaitOptions> = ((
    first: AnyWorkflowDefinition | string,
    second?: string | WaitOptions,
    third?: WaitOptions,
  ) => {
    const { workflow, runId, options } = resultArguments(first, second, third);
    return this.#call(
      () =>
        tracedWait(activeTracing(this.#tracing), "wfr waitForResult", runId, async () => {
          await this.#waitForRun(runId, options ?? {});
          const resultOptions = pollOptions(options);
          return workflow
            ? this.getResult(workflow, runId, resultOptions).withResponse()
            : this.getResult(runId, resultOptions).withResponse();
        }),
      undefined,
      options?.signal,
    );
  }) as GetResult<WaitOptions>;

  /**
   * Downloads the session video with a plain GET (never a Range header).
   * Every GET counts against the workspace's 10 recording attempts per hour
   * (spec, Limits), so one call spends at most `maxAttempts` GETs (default
   * 3) across 202 RECORDING_PROCESSING, 5xx and network failures. 429
   * RECORDING_RATE_LIMITED is thrown at once with `retryAfterSeconds`.
   */
  downloadRecording(
    runId: string,
    downloadOptions: DownloadRecordingOptions = {},
  ): ApiCall<RecordingDownload> {
    const idleMs = downloadOptions.timeoutMs ?? this.#timeoutMs;
    return this.#call(
      async () => {
        try {
          return await this.#send(
            recordingEndpoint(runId, downloadOptions, idleMs),
            downloadOptions,
          );
        } catch (error) {
          throw stillProcessing(error as WorkflowRunApiError);
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
  answerHumanInput(
    runId: string,
    answer: HumanInputAnswer,
    requestOptions: RequestOptions = {},
  ): ApiCall<RunEnvelope> {
    const options = { signal: answer.signal, ...requestOptions };
    return this.#call(
      async () => this.#send(humanInputEndpoint(runId, answer), options),
      undefined,
      options.signal,
    );
  }

  /**
   * Downloads a file output of a result from its `download_url`, only under
   * the environment's root and the client's `fileOrigins` (plus any given
   * here): https, or loopback http against the emulator; redirects only
   * inside them. Anything else is a FileOutputDownloadRefusedError before any
   * request, so result data cannot make a server fetch its own internals.
   */
  downloadFileOutput(
    reference: FileOutputReference,
    downloadOptions: {
      readonly signal?: AbortSignal;
      readonly allowedOrigins?: readonly string[];
    } = {},
  ): Promise<Response> {
    return downloadFileOutput(reference, {
      baseUrl: this.baseUrl,
      allowedOrigins: [...this.#fileOrigins, ...(downloadOptions.allowedOrigins ?? [])],
      ...(this.#fetch ? { fetch: this.#fetch } : {}),
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
  createBrowserAccessGrant(
    runId: string,
    grant: BrowserAccessGrantOptions,
    requestOptions: RequestOptions = {},
  ): ApiCall<BrowserAccessGrantWithToken> {
    return this.#call(() => this.#send(createGrantEndpoint(runId, grant), requestOptions));
  }

  /** Reads a grant (never its token); `expired` says whether it still opens the live view. */
  getBrowserAccessGrant(
    grantId: string,
    requestOptions: RequestOptions = {},
  ): ApiCall<BrowserAccessGrant> {
    return this.#call(() =>
      this.#get(
        "/browser-access-grants/{grantId}",
        grantId,
        (body) => body as BrowserAccessGrant,
        requestOptions,
      ),
    );
  }

  /** Deletes a grant: the live view refuses its token from now on; the run goes on. */
  deleteBrowserAccessGrant(grantId: string, requestOptions: RequestOptions = {}): ApiCall<void> {
    return this.#call(() =>
      this.#send(deleteGrantEndpoint(grantId), requestOptions),
    ) as unknown as ApiCall<void>;
  }
}

/** Creates a client for one environment of the Workflow Run API. */
export function createClient(options: ClientOptions): WorkflowRunClient {
  return new WorkflowRunClient(options);
}

/** The deprecated `wfr.withResponse` object: each method's `.withResponse()`. */
function deprecatedWithResponse(client: WorkflowRunClient): WithResponseMethods {
  return {
    launch: (workflow, launchOptions) => client.launch(workflow, launchOptions).withResponse(),
    getRun: (runId, requestOptions) => client.getRun(runId, requestOptions).withResponse(),
    getResult: ((first: AnyWorkflowDefinition | string, second?: unknown, third?: unknown) =>
      (client.getResult as (...args: unknown[]) => ApiCall<unknown>)(
        first,
        second,
        third,
      ).withResponse()) as WithResponseMethods["getResult"],
    getEvents: (runId, requestOptions) => client.getEvents(runId, requestOptions).withResponse(),
    answerHumanInput: (runId, answer, requestOptions) =>
      client.answerHumanInput(runId, answer, requestOptions).withResponse(),
    downloadRecording: (runId, downloadOptions) =>
      client.downloadRecording(runId, downloadOptions).withResponse(),
  };
}
