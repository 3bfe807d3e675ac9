// Public views of a run: the RunEnvelope, the result response and the events snapshot
// (docs/definition-format.md components). Internal fields (scenario, fingerprint, step...) never leak.
import { RUN_STATUS } from "@wfr/protocol";
import { isTerminal, type RunRecord } from "../model/types.js";
import { iso } from "./clock.js";
import { hasBrowserRecording } from "./recording.js";

export interface Links {
  /** http://host:port/<env>/api/v1 */
  apiBase: string;
  /** http://host:port/<env> */
  envBase: string;
}

function liveUrl(run: RunRecord, links: Links): string {
  return `${links.envBase}/portal/runs/${encodeURIComponent(run.run_id)}/live`;
}

export function humanAction(run: RunRecord, links: Links): Record<string, unknown> | null {
  if (run.status !== RUN_STATUS.waiting_for_human_live || run.waiting === null) return null;
  const cp = run.checkpoints[run.waiting];
  if (!cp) return null;
  const live = liveUrl(run, links);
  return {
    checkpoint_id: cp.checkpoint_id,
    kind: cp.kind,
    reason: cp.reason,
    stuck: false,
    // docs/service-rules.md#human-checkpoints: true after an answer until the runtime acknowledges it.
    response_accepted: cp.answer !== undefined && !cp.acknowledged,
    instructions: cp.instructions,
    stop_condition: cp.stop_condition,
    live_url: live,
    live_view_url: live,
    expires_at: iso(cp.expires_at),
    resume_url: `${links.apiBase}/runs/${encodeURIComponent(run.run_id)}/human-input`,
  };
}

export function envelope(run: RunRecord, links: Links): Record<string, unknown> {
  const runUrl = `${links.apiBase}/runs/${encodeURIComponent(run.run_id)}`;
  // docs/service-rules.md#run-envelope: session_id / live_view_url null while queued or starting.
  const hasSession = run.session_id !== null;
  return {
    run_id: run.run_id,
    workflow_id: run.workflow_id,
    status: run.status,
    timestamps: {
      created_at: iso(run.created_at),
      updated_at: iso(run.updated_at),
      started_at: run.started_at === null ? null : iso(run.started_at),
      finished_at: run.finished_at === null ? null : iso(run.finished_at),
    },
    error: run.error,
    status_url: runUrl,
    result_url: `${runUrl}/result`,
    events_url: `${runUrl}/events`,
    // recording_url is null until a browser session exists.
    recording_url: hasBrowserRecording(run) ? `${runUrl}/recording` : null,
    metadata: run.metadata,
    model: run.model,
    session_id: run.session_id,
    live_view_url: hasSession && !isTerminal(run.status) ? liveUrl(run, links) : null,
    human_action: humanAction(run, links),
  };
}

export function resultView(run: RunRecord): Record<string, unknown> {
  const terminal = isTerminal(run.status);
  return {
    run_id: run.run_id,
    status: run.status,
    error: run.error,
    metadata: run.metadata,
    outputs: terminal && run.status === RUN_STATUS.succeeded ? run.outputs : null,
  };
}

export function eventsView(run: RunRecord): Record<string, unknown> {
  return { run_id: run.run_id, events: run.events };
}
