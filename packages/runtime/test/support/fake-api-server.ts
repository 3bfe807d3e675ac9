// A fault-injecting fake of the Workflow Run API on 127.0.0.1, port 0. It is
// not the emulator: it keeps just enough state (runs, idempotency keys) to
// prove the runtime's behaviour, and lets each test script the next answers.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

export type ScriptedAnswer =
  | { readonly status: number; readonly headers?: Record<string, string>; readonly body?: unknown }
  /** Run the normal handler (so state changes), then destroy the socket before answering. */
  | { readonly loseResponse: true }
  /** Never answer; the client's timeout must end it. */
  | { readonly hang: true };

interface Script {
  readonly method: string;
  readonly pathPattern: RegExp;
  readonly answer: ScriptedAnswer;
}

export interface StoredRun {
  run_id: string;
  workflow_id: string;
  status: string;
  metadata: Record<string, unknown>;
  outputs: Record<string, unknown> | null;
  launchBody: string;
}

export interface FakeApi {
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  readonly runs: Map<string, StoredRun>;
  /** Queue an answer for the next request matching method and path. */
  script(method: string, pathPattern: RegExp, answer: ScriptedAnswer): void;
  requestsTo(method: string, pathPattern: RegExp): RecordedRequest[];
  close(): Promise<void>;
}

const JSON_HEADERS = { "content-type": "application/json" };

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, {
    ...JSON_HEADERS,
    ...headers,
    "content-length": String(Buffer.byteLength(text)),
  });
  res.end(text);
}

function envelope(run: StoredRun, base: string) {
  return {
    run_id: run.run_id,
    workflow_id: run.workflow_id,
    status: run.status,
    timestamps: { created_at: "2026-01-01T00:00:00Z" },
    error: null,
    status_url: `${base}/runs/${run.run_id}`,
    result_url: `${base}/runs/${run.run_id}/result`,
    events_url: `${base}/runs/${run.run_id}/events`,
    recording_url: null,
    metadata: run.metadata,
    model: null,
    session_id: null,
    live_view_url: null,
    human_action: null,
  };
}

export async function startFakeApi(apiKey: string): Promise<FakeApi> {
  const requests: RecordedRequest[] = [];
  const runs = new Map<string, StoredRun>();
  const keys = new Map<string, string>(); // workflowId + key -> run_id
  const scripts: Script[] = [];
  let base = "";

  const defaultAnswer = (request: RecordedRequest, res: ServerResponse) => {
    const launch = /^\/api\/v1\/automations\/([^/]+)\/runs$/.exec(request.path);
    if (request.method === "POST" && launch?.[1]) {
      const workflowId = launch[1];
      let body: { metadata?: Record<string, unknown> };
      try {
        body = JSON.parse(request.body);
      } catch {
        return send(res, 400, { error: "bad json", code: "INVALID_JSON" });
      }
      const key = `${workflowId}\u0000${String(request.headers["idempotency-key"] ?? crypto.randomUUID())}`;
      const existing = keys.get(key);
      if (existing) {
        const run = runs.get(existing) as StoredRun;
        if (run.launchBody !== request.body) {
          return send(
            res,
            409,
            { error: "changed request", code: "IDEMPOTENCY_CONFLICT" },
            { "x-should-retry": "false" },
          );
        }
        return send(res, 202, envelope(run, base));
      }
      const run: StoredRun = {
        run_id: `run_${runs.size + 1}`,
        workflow_id: workflowId,
        status: "queued",
        metadata: body.metadata ?? {},
        outputs: null,
        launchBody: request.body,
      };
      runs.set(run.run_id, run);
      keys.set(key, run.run_id);
      return send(res, 202, envelope(run, base));
    }
    const runPath = /^\/api\/v1\/runs\/([^/]+)(\/[a-z-]+)?$/.exec(request.path);
    const run = runPath?.[1] ? runs.get(runPath[1]) : undefined;
    if (!runPath) return send(res, 404, { error: "no route", code: "NOT_FOUND" });
    if (!run)
      return send(res, 404, { error: `run ${runPath[1]} not found`, code: "RUN_NOT_FOUND" });
    const sub = runPath[2] ?? "";
    if (request.method === "GET" && sub === "") return send(res, 200, envelope(run, base));
    if (request.method === "GET" && sub === "/result") {
      const terminal = ![
        "queued",
        "starting",
        "running",
        "waiting_for_human_live",
        "thinking",
      ].includes(run.status);
      return send(res, terminal ? 200 : 202, {
        run_id: run.run_id,
        status: run.status,
        error: null,
        metadata: run.metadata,
        outputs: terminal ? run.outputs : null,
      });
    }
    if (request.method === "GET" && sub === "/events") return send(res, 200, { events: [] });
    return send(res, 404, { error: "no route", code: "NOT_FOUND" });
  };

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request: RecordedRequest = {
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
    };
    requests.push(request);
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      return send(res, 401, { error: "invalid key", code: "UNAUTHORIZED" });
    }
    const index = scripts.findIndex(
      (s) => s.method === request.method && s.pathPattern.test(request.path),
    );
    const scripted = index >= 0 ? scripts.splice(index, 1)[0]?.answer : undefined;
    if (!scripted) return defaultAnswer(request, res);
    if ("hang" in scripted) return;
    if ("loseResponse" in scripted) {
      // Store the run as a real server would, then drop the connection unanswered.
      const sink = { writeHead: () => sink, end: () => sink } as unknown as ServerResponse;
      defaultAnswer(request, sink);
      req.socket.destroy();
      return;
    }
    const body = scripted.body ?? "";
    if (body instanceof Uint8Array) {
      res.writeHead(scripted.status, {
        ...scripted.headers,
        "content-length": String(body.byteLength),
      });
      res.end(body);
      return;
    }
    send(res, scripted.status, body, scripted.headers);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}/api/v1`;
  return {
    baseUrl: base,
    requests,
    runs,
    script: (method, pathPattern, answer) => scripts.push({ method, pathPattern, answer }),
    requestsTo: (method, pathPattern) =>
      requests.filter((r) => r.method === method && pathPattern.test(r.path)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
