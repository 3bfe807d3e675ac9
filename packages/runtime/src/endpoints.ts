// The client's writes as the pipeline sends them (pipeline.ts's `Endpoint`): the launch, a
// human checkpoint's answer, and a browser-access grant's creation and deletion. Each says its
// route, the statuses that answer it, its body and how its answer is read; the client's methods
// (client.ts) only hand them to the pipeline. The recording's is in recording.ts.
import { CODE } from "@wfr/protocol";
import { type BrowserAccessGrantOptions, type HumanInputAnswer, path } from "./client-shapes.js";
import { InvalidOptionError } from "./errors.js";
import type { RequestBody } from "./http-transport.js";
import type { LaunchedRun } from "./launch-request.js";
import type { Endpoint } from "./pipeline.js";
import { parsedRunEnvelope } from "./run-envelope.js";
import type { BrowserAccessGrantWithToken, WireRunEnvelope } from "./wire-types.js";

const encoder = new TextEncoder();
const jsonBytes = (value: unknown) => encoder.encode(JSON.stringify(value));

/** POST /automations/{workflowId}/runs with the prepared body; the run carries its idempotency key. */
export function launchEndpoint(
  launch: { workflowId: string; body: RequestBody; keyInHeader: boolean },
  idempotencyKey: string,
): Endpoint<LaunchedRun> {
  const { workflowId, body, keyInHeader } = launch;
  return {
    method: "POST",
    route: "/automations/{workflowId}/runs",
    path: path("/automations/{workflowId}/runs", workflowId),
    accept: [202],
    body,
    idempotencyKey,
    keyInHeader,
    workflowId,
    parse: (data) => {
      if (typeof data !== "object" || data === null) throw new SyntaxError("no run envelope");
      const run = parsedRunEnvelope(data as WireRunEnvelope) as LaunchedRun & {
        idempotencyKey: string;
      };
      run.idempotencyKey = idempotencyKey;
      return run;
    },
  };
}

/**
 * POST /runs/{runId}/human-input, always with checkpoint_id; an InvalidOptionError (before any
 * request) without one. Only the identical body is resent, which the spec makes safe ("An
 * identical answer to the same checkpoint is idempotent").
 */
export function humanInputEndpoint(runId: string, answer: HumanInputAnswer) {
  if (!answer.checkpointId) {
    throw new InvalidOptionError({
      status: null,
      code: CODE.INVALID_CHECKPOINT_ID,
      message: "checkpointId is required",
    });
  }
  return {
    method: "POST",
    route: "/runs/{runId}/human-input",
    path: path("/runs/{runId}/human-input", runId),
    accept: [202, 200],
    body: jsonBytes({ checkpoint_id: answer.checkpointId, response: answer.response }),
    identicalBodyIsIdempotent: true,
    runId,
    parse: (body: unknown) => parsedRunEnvelope(body as WireRunEnvelope),
  } as const;
}

/** POST /runs/{runId}/browser-access-grants: origins, and the expiry when given. */
export function createGrantEndpoint(
  runId: string,
  grant: BrowserAccessGrantOptions,
): Endpoint<BrowserAccessGrantWithToken> {
  return {
    method: "POST",
    route: "/runs/{runId}/browser-access-grants",
    path: path("/runs/{runId}/browser-access-grants", runId),
    accept: [200, 201],
    body: jsonBytes({
      origins: [...grant.origins],
      ...(grant.expiresInSeconds !== undefined
        ? { expires_in_seconds: grant.expiresInSeconds }
        : {}),
    }),
    runId,
    parse: (body) => body as BrowserAccessGrantWithToken,
  };
}

/** DELETE /browser-access-grants/{grantId}: the live view refuses its token from then on. */
export function deleteGrantEndpoint(grantId: string): Endpoint<object> {
  return {
    method: "DELETE",
    route: "/browser-access-grants/{grantId}",
    path: path("/browser-access-grants/{grantId}", grantId),
    accept: [200, 204],
    parse: () => ({}),
  };
}
