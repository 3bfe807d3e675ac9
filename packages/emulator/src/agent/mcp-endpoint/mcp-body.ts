// The /mcp request body, read within the budget of the call it carries (docs/limits.md, "The
// agent (MCP) tools"). Only `launch_run` carries files (as base64), so only a body that names it
// may send the launch body's budget; every other request is held to MCP_CALL_LIMIT as it streams.
// A `save_workflow` over the draft's budget (draft-budget.ts) is not kept nor parsed: the rest is
// read through the scanner only, for the call's id, so the agent gets the tool's own refusal
// (DRAFT_TOO_LARGE, `CODE: message` + `Next:`) instead of a dropped call. A 10 MiB draft used to be
// read whole, parsed and validated before the tool measured it: 306 ms of other callers' waiting.
import type { IncomingMessage } from "node:http";
import { CODE } from "@wfr/protocol";
import { DISCARD_AFTER_REFUSAL_BYTES, discardRest, HttpError } from "../../http/http-kit.js";
import { DRAFT_BUDGET, type DraftBudgetProblem, fieldCountProblem } from "../draft-budget.js";
import { JsonRpcCallScanner } from "./call-scanner.js";

/**
 * Every /mcp body but a `launch_run` call's: the draft's 1 MiB as JSON, twice over for a client
 * that escapes every non-ASCII character (`\u00e9` is six bytes for two).
 */
export const MCP_CALL_LIMIT = 2 * 1024 * 1024;

export type McpBody =
  | { readonly kind: "body"; readonly bytes: Buffer }
  /** A `save_workflow` whose draft is over its budget, read through but not kept. */
  | {
      readonly kind: "draft-too-large";
      readonly id: string | number | undefined;
      readonly problem: DraftBudgetProblem;
    };

function tooLarge(req: IncomingMessage, message: string): HttpError {
  discardRest(req, DISCARD_AFTER_REFUSAL_BYTES);
  return new HttpError(413, CODE.BODY_TOO_LARGE, message);
}

const callRefusal = (launchLimit: number) =>
  `an /mcp request body exceeds ${MCP_CALL_LIMIT} bytes; only a launch_run call (its tool named before its arguments) may send up to ${launchLimit}`;

/** Reads the body of an /mcp POST; refuses (413, the rest discarded) past its call's budget. */
export function readMcpBody(req: IncomingMessage, launchLimit: number): Promise<McpBody> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > launchLimit)
    return Promise.reject(tooLarge(req, `request body exceeds ${launchLimit} bytes`));
  return new Promise((resolve, reject) => {
    const scan = new JsonRpcCallScanner();
    let kept: Buffer[] | null = [];
    let size = 0;
    let settled = false;
    const settle = (action: () => void) => {
      if (settled) return;
      settled = true;
      action();
    };
    const draftIsOver = () =>
      scan.tool === "save_workflow" && (scan.fields > DRAFT_BUDGET.fields || size > MCP_CALL_LIMIT);
    req.on("data", (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      scan.feed(chunk);
      if (kept !== null && draftIsOver()) kept = null;
      if (kept === null) {
        // Read through for the id, nothing kept; still no more than any /mcp body.
        if (size > launchLimit)
          settle(() => reject(tooLarge(req, `request body exceeds ${launchLimit} bytes`)));
        return;
      }
      if (size > (scan.isLaunchRun ? launchLimit : MCP_CALL_LIMIT)) {
        kept = null;
        const message = scan.isLaunchRun
          ? `request body exceeds ${launchLimit} bytes`
          : callRefusal(launchLimit);
        settle(() => reject(tooLarge(req, message)));
        return;
      }
      kept.push(chunk);
    });
    req.on("end", () =>
      settle(() => {
        // A draft that named its tool only after its fields is refused unparsed all the same.
        if (kept !== null && !draftIsOver())
          return resolve({ kind: "body", bytes: Buffer.concat(kept, size) });
        resolve({
          kind: "draft-too-large",
          id: scan.id,
          problem: fieldCountProblem(scan.inputs, scan.outputs) ?? {
            pointer: "/",
            message: `the request is ${size} bytes; a draft is at most ${DRAFT_BUDGET.bytes} bytes (1 MiB) as JSON, sent in a request of at most ${MCP_CALL_LIMIT}`,
          },
        });
      }),
    );
    req.on("error", (error) => settle(() => reject(error)));
    req.on("close", () =>
      settle(() => reject(new Error("client closed the request before the body ended"))),
    );
  });
}
