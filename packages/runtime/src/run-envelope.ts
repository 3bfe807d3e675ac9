// Shaping of what the client returns: envelopes get the closed RunStatus
// (plus the wire string), and every returned object carries the request id
// of the response it came from.
import { toRunStatus } from "./run-status.js";
import type { RunEnvelope, WireRunEnvelope } from "./wire-types.js";

/** The wire envelope with `status` as a RunStatus and the wire value in `serverStatus`. */
export function toRunEnvelope(wire: WireRunEnvelope): RunEnvelope {
  const serverStatus = String(wire.status);
  return { ...wire, status: toRunStatus(serverStatus), serverStatus };
}

/**
 * toRunEnvelope for an envelope the pipeline has just parsed and nobody else
 * holds: the same fields in the same order, shaped in place instead of copied.
 */
export function parsedRunEnvelope(wire: WireRunEnvelope): RunEnvelope {
  const serverStatus = String(wire.status);
  const run = wire as unknown as RunEnvelope;
  run.status = toRunStatus(serverStatus);
  run.serverStatus = serverStatus;
  return run;
}

/** The response header that carries the server's request id. */
export const REQUEST_ID_HEADER = "x-request-id";

/**
 * What every client method resolves to: its data plus `_requestId`, the
 * `x-request-id` of the response it came from (undefined when the server
 * sent none). Non-enumerable, like openai-node's `_request_id`: it does not
 * show up in JSON.stringify, object spread or equality checks, and the
 * leading underscore keeps it apart from any wire field.
 */
export type WithRequestId<T> = T & { readonly _requestId: string | undefined };

export function attachRequestId<T extends object>(
  data: T,
  requestId: string | undefined,
): WithRequestId<T> {
  Object.defineProperty(data, "_requestId", {
    value: requestId,
    enumerable: false,
    writable: false,
    configurable: true,
  });
  return data as WithRequestId<T>;
}
