// Named aliases over the types openapi-typescript generates from
// openapi/workflow-run-api.yaml. Nothing here is written by hand: every
// wire shape is `components["schemas"][...]`.
import type { RunStatus } from "./run-status.js";
import type { components, paths } from "./wire/api-types.js";

type Schemas = components["schemas"];

/** The HTTP methods the runtime sends. */
export type WireMethod = "GET" | "POST" | "DELETE";
/** The route templates of the API file that have an operation for `M`: a typo does not compile. */
export type WireRoute<M extends WireMethod> = {
  [R in keyof paths]: [NonNullable<paths[R][Lowercase<M>]>] extends [never] ? never : R;
}[keyof paths];
/** The envelope exactly as the wire carries it (`status` is any string). */
export type WireRunEnvelope = Schemas["RunEnvelope"];
/**
 * The run envelope as the client returns it: the wire envelope with
 * `status` narrowed to the closed RunStatus union ("unrecognized" for a
 * value this runtime does not know) and the wire string in `serverStatus`.
 */
export type RunEnvelope = Omit<WireRunEnvelope, "status"> & {
  status: RunStatus;
  /** The status string exactly as the server sent it. */
  serverStatus: string;
};
export type HumanAction = Schemas["HumanAction"];
export type BrowserAccessGrant = Schemas["BrowserAccessGrant"];
export type BrowserAccessGrantWithToken = Schemas["BrowserAccessGrantWithToken"];
export type RunError = Schemas["RunError"];
export type ResultResponse = Schemas["ResultResponse"];
export type EventSnapshot = Schemas["EventSnapshot"];
/** A callback delivery; its `run` normalised like every other envelope. */
export type CallbackBody = Omit<Schemas["CallbackBody"], "run"> & { run: RunEnvelope };
export type CallbackEventType = Schemas["CallbackEventType"];
export type ErrorBody = Schemas["Error"];
export type ErrorDetail = Schemas["ErrorDetail"];
export type Attachment = Schemas["Attachment"];
export type LaunchBody = Schemas["LaunchBody"];
