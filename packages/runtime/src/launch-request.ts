// A launch before anything is sent: its options, every local check (typed
// errors naming the field), and the body bytes.
import { CODE, INPUT_REASON, LIMITS } from "@wfr/protocol";
import { isPlainObject } from "./client-options.js";
import {
  InputValidationError,
  InvalidMetadataError,
  InvalidOptionError,
  WorkflowNotEnabledError,
} from "./errors.js";
import { type RequestBody, STREAM_BODY_BYTES } from "./http-transport.js";
import {
  characterCount,
  keyFitsHeader,
  launchBodyBytes,
  launchBodyStream,
  planLaunchBody,
} from "./launch-body.js";
import type { LaunchIntentOptions } from "./launch-with-journal.js";
import { checkPublicCallbackUrl } from "./url-checks.js";
import type { RunEnvelope } from "./wire-types.js";
import type { AnyWorkflowDefinition, InputsOf, ModelName, ModelOf } from "./workflow-definition.js";

export const MAX_IDEMPOTENCY_KEY_LENGTH = LIMITS.idempotencyKeyCharacters;

export interface CommonLaunchOptions {
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
export interface RuntimeLaunchOptions extends CommonLaunchOptions {
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

/**
 * Every local check of a launch, in the order a caller would fix them, then
 * the body built once as bytes. Nothing is sent when one fails.
 */
export async function prepareLaunch(
  workflow: AnyWorkflowDefinition | string,
  launchOptions: RuntimeLaunchOptions,
  idempotencyKey: string,
): Promise<{ workflowId: string; body: RequestBody; keyInHeader: boolean }> {
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
  const keyInHeader = keyFitsHeader(idempotencyKey);
  const plan = await planLaunchBody({
    inputs: launchOptions.inputs as Record<string, unknown>,
    metadata: launchOptions.metadata,
    callbackUrl: launchOptions.callbackUrl,
    model: launchOptions.model,
    idempotencyKey: keyInHeader ? undefined : idempotencyKey,
  });
  // A large body is encoded as it is sent (no buffer of the whole body, no long
  // synchronous step); a small one is built once and resent as the same bytes.
  if (plan.byteLength < STREAM_BODY_BYTES) {
    const [whole] = plan.segments;
    const body = plan.files.length === 0 && whole ? whole : await launchBodyBytes(plan);
    return { workflowId, body, keyInHeader };
  }
  const body = {
    byteLength: plan.byteLength,
    stream: () => launchBodyStream(plan),
    bytes: () => launchBodyBytes(plan),
  };
  return { workflowId, body, keyInHeader };
}
