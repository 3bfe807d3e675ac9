// Named aliases over the types openapi-typescript generates from
// openapi/workflow-run-api.yaml. Nothing here is written by hand: every
// wire shape is `components["schemas"][...]`.
import type { RunStatus as KnownOrOpenStatus } from "./run-status.js";
import type { components, paths } from "./wire/api-types.js";

type Schemas = components["schemas"];

export type WirePaths = paths;
/** The wire envelope with `status` typed as the named statuses, open to unknown strings. */
export type RunEnvelope = Omit<Schemas["RunEnvelope"], "status"> & {
  status: KnownOrOpenStatus;
};
export type HumanAction = Schemas["HumanAction"];
export type RunError = Schemas["RunError"];
export type RunStatus = KnownOrOpenStatus;
export type ResultResponse = Schemas["ResultResponse"];
export type EventSnapshot = Schemas["EventSnapshot"];
export type CallbackBody = Schemas["CallbackBody"];
export type CallbackEventType = Schemas["CallbackEventType"];
export type ErrorBody = Schemas["Error"];
export type ErrorDetail = Schemas["ErrorDetail"];
export type Attachment = Schemas["Attachment"];
export type FileReference = Schemas["FileReference"];
export type LaunchBody = Schemas["LaunchBody"];
export type HumanInputBody = Schemas["HumanInputBody"];
