// The client's argument and result shapes that are not wire types, and the
// small pure helpers its methods share.
import type { ApiCall, WithResponse } from "./api-call.js";
import type { RequestOptions } from "./http-transport.js";
import type { LaunchedRun, LaunchOptions, UntypedLaunchOptions } from "./launch-request.js";
import type { DownloadRecordingOptions, RecordingDownload } from "./recording.js";
import type { RunResult } from "./run-result.js";
import type { WaitOptions } from "./wait-for-run.js";
import type { EventSnapshot, RunEnvelope } from "./wire-types.js";
import type {
  AnyWorkflowDefinition,
  LaunchableWorkflow,
  OutputsOf,
} from "./workflow-definition.js";

/** What `createBrowserAccessGrant` asks for. */
export interface BrowserAccessGrantOptions {
  /** 1 to 10 exact origins (`https://app.example.com`): no wildcard, no "null", no path. */
  readonly origins: readonly string[];
  /** 1 to 3,600; the service's default when absent (the emulator's: 600). */
  readonly expiresInSeconds?: number;
}

export interface HumanInputAnswer {
  /** The checkpoint being answered (human_action.checkpoint_id); always sent. */
  readonly checkpointId: string;
  readonly response: unknown;
  /** @deprecated pass `{ signal }` as the third argument. */
  readonly signal?: AbortSignal;
}

/** How `getResult` and `waitForResult` are called: with a generated workflow (typed outputs) or a plain run id. */
export interface GetResult<Options> {
  <W extends AnyWorkflowDefinition>(
    workflow: W,
    runId: string,
    options?: Options,
  ): ApiCall<RunResult<OutputsOf<W>>>;
  (runId: string, options?: Options): ApiCall<RunResult<Record<string, unknown>>>;
}

/** The same calls, resolving to `{ data, response, requestId }`. */
export interface WithResponseMethods {
  launch<W extends LaunchableWorkflow | string>(
    workflow: W,
    launchOptions: W extends LaunchableWorkflow ? LaunchOptions<W> : UntypedLaunchOptions,
  ): Promise<WithResponse<LaunchedRun>>;
  getRun(runId: string, requestOptions?: RequestOptions): Promise<WithResponse<RunEnvelope>>;
  getResult: {
    <W extends AnyWorkflowDefinition>(
      workflow: W,
      runId: string,
      requestOptions?: RequestOptions,
    ): Promise<WithResponse<RunResult<OutputsOf<W>>>>;
    (
      runId: string,
      requestOptions?: RequestOptions,
    ): Promise<WithResponse<RunResult<Record<string, unknown>>>>;
  };
  getEvents(runId: string, requestOptions?: RequestOptions): Promise<WithResponse<EventSnapshot>>;
  answerHumanInput(
    runId: string,
    answer: HumanInputAnswer,
    requestOptions?: RequestOptions,
  ): Promise<WithResponse<RunEnvelope>>;
  downloadRecording(
    runId: string,
    downloadOptions?: DownloadRecordingOptions,
  ): Promise<WithResponse<RecordingDownload>>;
}

/** `getResult`'s and `waitForResult`'s arguments, whichever overload was used. */
export function resultArguments<Options>(
  first: AnyWorkflowDefinition | string,
  second: string | Options | undefined,
  third: Options | undefined,
): { workflow: AnyWorkflowDefinition | undefined; runId: string; options: Options | undefined } {
  return typeof first === "string"
    ? { workflow: undefined, runId: first, options: second as Options | undefined }
    : { workflow: first, runId: second as string, options: third };
}

/** The route with its one `{parameter}` replaced by the encoded id (every route has exactly one). */
export function path(template: string, id: string): string {
  const open = template.indexOf("{");
  return `${template.slice(0, open)}${encodeURIComponent(id)}${template.slice(template.indexOf("}", open) + 1)}`;
}

/** The per-request options a wait passes to each poll. */
export const pollOptions = (
  waitOptions: WaitOptions | undefined,
  signal?: AbortSignal,
): RequestOptions => ({
  signal: signal ?? waitOptions?.signal,
  maxRetries: waitOptions?.maxRetries,
  headers: waitOptions?.headers,
});
