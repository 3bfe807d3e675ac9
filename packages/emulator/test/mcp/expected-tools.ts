// What each agent tool must declare (packages/mcp/src/tools/): the hints clients auto-approve on,
// and its schema fields. agent-flow.test.ts checks the listed tools against it.
export const EXPECTED: Record<
  string,
  {
    readOnly: boolean;
    idempotent: boolean;
    destructive: boolean;
    required: string[];
    out: string[];
  }
> = {
  list_workflows: {
    readOnly: true,
    idempotent: true,
    destructive: false,
    required: [],
    out: ["workflows"],
  },
  get_workflow_schema: {
    readOnly: true,
    idempotent: true,
    destructive: false,
    required: ["workflow_id"],
    out: ["id", "inputs", "outputs", "examples", "models", "model_exposed"],
  },
  start_authoring_session: {
    readOnly: false,
    idempotent: false,
    destructive: false,
    required: ["purpose"],
    out: ["session_id", "live_view_url", "expires_at"],
  },
  save_workflow: {
    readOnly: false,
    idempotent: false,
    destructive: false,
    required: ["name", "inputs", "outputs"],
    out: ["id", "name", "state", "revision"],
  },
  launch_run: {
    readOnly: false,
    idempotent: true,
    destructive: true,
    required: ["workflow_id", "inputs", "idempotency_key"],
    out: ["run_id", "status", "terminal", "needs_person", "run"],
  },
  get_run: {
    readOnly: true,
    idempotent: true,
    destructive: false,
    required: ["run_id"],
    out: ["run_id", "status", "run"],
  },
  wait_for_run: {
    readOnly: true,
    idempotent: true,
    destructive: false,
    required: ["run_id"],
    out: ["run_id", "status", "timed_out", "needs_person"],
  },
  get_run_events: {
    readOnly: true,
    idempotent: true,
    destructive: false,
    required: ["run_id"],
    out: ["run_id", "events"],
  },
  get_run_result: {
    readOnly: true,
    idempotent: true,
    destructive: false,
    required: ["run_id"],
    out: ["state", "status", "succeeded", "outputs", "error"],
  },
  explain_human_wait: {
    readOnly: true,
    idempotent: true,
    destructive: false,
    required: ["run_id"],
    out: [
      "waiting",
      "kind",
      "reason",
      "instructions",
      "expires_at",
      "response_accepted",
      "person_url",
    ],
  },
};
