// The public API's route table, in the order and words of docs/service-rules.md#endpoints
// (docs/service-rules.md#endpoints): method, path under /{env}/api/v1, required scope, handler
// (api-handlers.ts).

import type { Scope } from "@wfr/protocol";
import {
  type ApiHandler,
  events,
  grantCreate,
  grantDelete,
  grantRead,
  humanInput,
  launch,
  recording,
  result,
  status,
} from "./api-handlers.js";
import { BODY_LIMIT } from "./launch-body.js";

/** Human-input and grant bodies: small JSON (the emulator's choice, README "Body limits"). */
const HUMAN_INPUT_LIMIT = 1_048_576;

export type ApiRouteName =
  | "launch"
  | "status"
  | "result"
  | "events"
  | "recording"
  | "human"
  | "grant_create"
  | "grant_read"
  | "grant_delete";

export interface ApiRoute {
  method: "GET" | "POST" | "DELETE";
  path: string;
  scope: Scope;
  /** The route's body limit: the body is read by the `bodyWithin` middleware before the handler. */
  bodyLimit?: number;
  name: ApiRouteName;
  purpose: string;
  handler: ApiHandler;
}

export const API_ROUTES: readonly ApiRoute[] = [
  {
    method: "POST",
    path: "/automations/{workflowId}/runs",
    scope: "workflows:run",
    bodyLimit: BODY_LIMIT,
    name: "launch",
    purpose: "launch an enabled saved workflow",
    handler: launch,
  },
  {
    method: "GET",
    path: "/runs/{runId}",
    scope: "runs:read",
    name: "status",
    purpose: "read run envelope",
    handler: status,
  },
  {
    method: "GET",
    path: "/runs/{runId}/result",
    scope: "runs:read",
    name: "result",
    purpose: "read outputs, or pending status",
    handler: result,
  },
  {
    method: "GET",
    path: "/runs/{runId}/events",
    scope: "runs:read",
    name: "events",
    purpose: "read JSON event snapshot",
    handler: events,
  },
  {
    method: "GET",
    path: "/runs/{runId}/recording",
    scope: "runs:read",
    name: "recording",
    purpose: "download session video",
    handler: recording,
  },
  {
    method: "POST",
    path: "/runs/{runId}/human-input",
    scope: "workflows:run",
    bodyLimit: HUMAN_INPUT_LIMIT,
    name: "human",
    purpose: "answer a human checkpoint",
    handler: humanInput,
  },
  // docs/service-rules.md#portal-sessions-and-browser-access: the operations exist, their schema is not shown; the paths
  // and the runs:read scope (a grant only lets a browser watch) are this emulator's choice.
  {
    method: "POST",
    path: "/runs/{runId}/browser-access-grants",
    scope: "runs:read",
    bodyLimit: HUMAN_INPUT_LIMIT,
    name: "grant_create",
    purpose: "grant a browser short-lived access to the run's live session from exact origins",
    handler: grantCreate,
  },
  {
    method: "GET",
    path: "/browser-access-grants/{grantId}",
    scope: "runs:read",
    name: "grant_read",
    purpose: "read a browser-access grant",
    handler: grantRead,
  },
  {
    method: "DELETE",
    path: "/browser-access-grants/{grantId}",
    scope: "runs:read",
    name: "grant_delete",
    purpose: "delete a browser-access grant (the run goes on)",
    handler: grantDelete,
  },
];
