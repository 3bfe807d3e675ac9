// The person's side of agent authoring, behind a portal session checked by the `portalUser`
// middleware (middleware.ts) (docs/service-rules.md#authentication: a
// portal page needs an authorized signed-in user; an API key or a personal token is not one):
// - POST /<env>/portal/workflows/{id}/enable: enabling a draft is a person's action (docs/service-rules.md#agent-endpoint);
//   the web application calls it. Cookie-authenticated, so the `sameSite` middleware refuses
//   cross-site requests the way the admin API does (Origin / Sec-Fetch-Site, JSON-only bodies).
// - GET /<env>/portal/authoring/{sessionId}/live: the live view of an authoring session.

import { CODE } from "@wfr/protocol";
import { HttpError } from "../http/http-kit.js";
import type { AuthoringSession, EnvironmentDefView, WorkflowDef } from "../model/types.js";

export interface PortalSession {
  environment: string;
  workspace: string;
  /** The local developer signed in through the web application's link: every environment. */
  everywhere?: true;
}

const esc = (t: string) => t.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The person a portal session stands for in `env` (the `portalUser` middleware has checked it
 * is for `env`): the local developer's session acts as the environment's own workspace.
 */
export function personIn(session: PortalSession, env: EnvironmentDefView): PortalSession {
  return session.everywhere ? { environment: env.name, workspace: env.workspace } : session;
}

/** The workflow the signed-in person may enable, and whether it would change (the caller commits it). */
export function enableWorkflowAsPerson(
  person: PortalSession,
  env: EnvironmentDefView,
  workflowId: string,
): { workflow: WorkflowDef; changed: boolean } {
  const workflow = env.workflows.get(workflowId);
  // docs/service-rules.md#authentication: another workspace's workflow is not found, not forbidden.
  if (!workflow || env.workspace !== person.workspace) {
    throw new HttpError(404, CODE.WORKFLOW_NOT_FOUND, "workflow not found");
  }
  // The change itself is the caller's to commit (state-changes.ts), journalled first.
  return { workflow, changed: workflow.state !== "enabled" };
}

/** The small HTML page of an authoring session's live view. */
export function authoringLiveView(
  person: PortalSession,
  env: EnvironmentDefView,
  authoring: AuthoringSession | undefined,
  now: number,
): string {
  if (
    !authoring ||
    authoring.environment !== env.name ||
    authoring.workspace !== person.workspace
  ) {
    throw new HttpError(404, CODE.AUTHORING_SESSION_NOT_FOUND, "authoring session not found");
  }
  if (authoring.expires_at <= now) {
    throw new HttpError(410, CODE.AUTHORING_SESSION_EXPIRED, "this authoring session has expired");
  }
  return `<!doctype html><meta charset="utf-8"><title>Authoring ${esc(authoring.session_id)}</title><h1>Authoring session ${esc(authoring.session_id)}</h1><p>${esc(authoring.purpose)}</p><p>Cloud browser: live (emulated). Expires ${esc(new Date(authoring.expires_at).toISOString())}.</p>`;
}
