// The request log: one line per request on stdout (so that a developer sees what the client sent). It names the method,
// the path without its query, the status, the duration, the run and an idempotency outcome;
// never a header, a key, a vault value or a body.
import type { IncomingMessage, ServerResponse } from "node:http";
import { redactSignInPath } from "../access/sign-in.js";

export type RequestLogFormat = "text" | "json" | "off";

/** What a handler learned that the log line should carry. */
interface RequestNote {
  run_id?: string;
  idempotency?: "replay" | "conflict";
  /** An API fault that answered this request (api-faults.ts): its id and what it did. */
  fault?: string;
}

const notes = new WeakMap<ServerResponse, RequestNote>();

export function noteRequest(res: ServerResponse, note: RequestNote): void {
  notes.set(res, { ...notes.get(res), ...note });
}

function requestLogLine(
  format: "text" | "json",
  entry: {
    time: string;
    method: string;
    path: string;
    status: number;
    duration_ms: number;
  } & RequestNote,
): string {
  if (format === "json") return JSON.stringify(entry);
  const extra = [
    entry.run_id ? `run=${entry.run_id}` : "",
    entry.idempotency ? `idempotency=${entry.idempotency}` : "",
    entry.fault ? `fault=${entry.fault}` : "",
  ].filter((s) => s !== "");
  return [
    entry.time,
    entry.method,
    entry.path,
    String(entry.status),
    `${entry.duration_ms}ms`,
    ...extra,
  ].join(" ");
}

/** Log `req` once its response is finished (or the client went away). */
export function logRequest(
  format: RequestLogFormat,
  req: IncomingMessage,
  res: ServerResponse,
  write: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
): void {
  if (format === "off") return;
  const started = process.hrtime.bigint();
  const time = new Date().toISOString();
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    const raw = req.url ?? "/";
    const q = raw.indexOf("?");
    write(
      requestLogLine(format, {
        time,
        method: req.method ?? "?",
        // The query is left out: a misplaced API key would be in it (docs/service-rules.md#authentication).
        // A one-time sign-in link is a credential until used: its token is not logged either.
        path: redactSignInPath(q < 0 ? raw : raw.slice(0, q)),
        status: res.headersSent ? res.statusCode : 0,
        duration_ms: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
        ...notes.get(res),
      }),
    );
  };
  res.once("finish", finish);
  res.once("close", finish);
}
