// Which surface serves which tool: the one place the two servers' differences are named. Both
// serve the tools of tools.ts through the same registration; the emulator's `/mcp` adds the
// authoring tools (only a service that lets agents author has them: its backend offers them),
// and `wfr mcp` adds the tools that need the repository it runs in (its schemas/ and tsc).
// The emulator's and the CLI's tests list each server's tools against this table.

export const SURFACES = ["emulator", "wfr-mcp"] as const;
/** `emulator`: the emulator's `/mcp` endpoint; `wfr-mcp`: `wfr mcp` over stdio in a repository. */
export type Surface = (typeof SURFACES)[number];

export const TOOL_SURFACES = {
  list_workflows: ["emulator", "wfr-mcp"],
  get_workflow_schema: ["emulator", "wfr-mcp"],
  start_authoring_session: ["emulator"],
  save_workflow: ["emulator"],
  launch_run: ["emulator", "wfr-mcp"],
  get_run: ["emulator", "wfr-mcp"],
  wait_for_run: ["emulator", "wfr-mcp"],
  get_run_events: ["emulator", "wfr-mcp"],
  get_run_result: ["emulator", "wfr-mcp"],
  explain_human_wait: ["emulator", "wfr-mcp"],
  diff_schema: ["wfr-mcp"],
  generate: ["wfr-mcp"],
} as const satisfies Record<string, readonly Surface[]>;
export type ToolName = keyof typeof TOOL_SURFACES;

/** The tools a surface serves, in the table's order. */
export function toolsOf(surface: Surface): ToolName[] {
  return (Object.keys(TOOL_SURFACES) as ToolName[]).filter((name) =>
    (TOOL_SURFACES[name] as readonly Surface[]).includes(surface),
  );
}
