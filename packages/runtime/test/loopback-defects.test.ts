// One test per defect once found on main, against loopback servers that
// misbehave the way real networks and proxies do. Each fails on the old code.
// The callback receiver's (defect 6) and webhook signatures: callback-defects.test.ts.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  createClient,
  file,
  InternalServerError,
  RecordingProcessingError,
  RequestAbortedError,
  RequestTimeoutError,
  WaitTimeoutError,
  WorkflowRunApiError,
} from "../src/index.js";
import { createVirtualClock } from "./support/fake-workflows.js";

const API_KEY = "wfr_live_SECRET123";
type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
const servers: { close(): Promise<void> }[] = [];

async function serve(handler: Handler): Promise<{ baseUrl: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      requests.push(`${req.method} ${req.url}`);
      handler(req, res, Buffer.concat(chunks).toString("utf8"));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push({
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/api/v1`, requests };
}

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const envelope = (status: string, humanAction: unknown = null) => ({
  run_id: "run_1",
  workflow_id: "wf_1",
  status,
  timestamps: {},
  error: null,
  metadata: {},
  human_action: humanAction,
});

const sendJson = (res: ServerResponse, status: number, body: unknown, headers = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

/** Fails the test (instead of hanging it) when `promise` does not settle in `ms`. */
function settlesWithin<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms),
    ),
  ]);
}

describe("defect 1: every call is bounded end to end", () => {
  it("a server that sends headers and then stalls the body ends in a timeout error, not a hang", async () => {
    const { baseUrl } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "500" });
      res.write('{"run_id":"run_1",'); // and never the rest
    });
    const wfr = createClient({
      baseUrl,
      apiKey: API_KEY,
      timeoutMs: 300,
      retry: { maxAttempts: 2 },
    });
    const error = await settlesWithin(
      wfr.getRun("run_1").catch((e: unknown) => e),
      20_000,
    );
    expect(error).toBeInstanceOf(WorkflowRunApiError);
    expect((error as WorkflowRunApiError).code).toBe("TIMEOUT");
  }, 30_000);

  it("an attempt that gets no headers is aborted at timeoutMs: the server sees the connection closed, the caller a TIMEOUT", async () => {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const { baseUrl } = await serve((req) => {
      // Never answers; the socket closing is the client giving the request up.
      req.socket.once("close", closed);
    });
    const wfr = createClient({
      baseUrl,
      apiKey: API_KEY,
      timeoutMs: 300,
      retry: { maxAttempts: 1 },
    });
    const error = await settlesWithin(
      wfr.getRun("run_1").catch((e: unknown) => e),
      20_000,
    );
    expect(error).toBeInstanceOf(RequestTimeoutError);
    // Released by the runtime's limit, not held until the platform's own (300 s on Node).
    await settlesWithin(serverSawClose, 20_000);
  }, 30_000);

  it("the caller's signal still ends an attempt whose body stalls, as an abort (not a timeout)", async () => {
    const { baseUrl } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "500" });
      res.write('{"run_id":"run_1",'); // and never the rest
    });
    const controller = new AbortController();
    const wfr = createClient({ baseUrl, apiKey: API_KEY, timeoutMs: 120_000 });
    const reading = wfr.getRun("run_1", { signal: controller.signal }).catch((e: unknown) => e);
    setTimeout(() => controller.abort(), 100);
    const error = await settlesWithin(reading, 20_000);
    expect(error).toBeInstanceOf(RequestAbortedError);
  }, 30_000);

  it("waitForRun's timeout holds while one poll is stuck", async () => {
    const { baseUrl } = await serve(() => {
      /* never answers */
    });
    const wfr = createClient({ baseUrl, apiKey: API_KEY, timeoutMs: 120_000 });
    const error = await settlesWithin(
      wfr.waitForRun("run_1", { timeoutMs: 300 }).catch((e: unknown) => e),
      20_000,
    );
    expect(error).toBeInstanceOf(WaitTimeoutError);
  }, 30_000);
});

describe("defect 2: downloadRecording leaves most of the hourly budget", () => {
  it("a default call on a recording that stays processing spends exactly 3 GETs, leaving 7 of the hourly 10", async () => {
    const { baseUrl, requests } = await serve((_req, res) =>
      sendJson(
        res,
        202,
        { error: "assembling", code: "RECORDING_PROCESSING" },
        { "retry-after": "3" },
      ),
    );
    const wfr = createClient({ baseUrl, apiKey: API_KEY, clock: createVirtualClock() });
    const error = await wfr.downloadRecording("run_1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RecordingProcessingError);
    expect(requests).toEqual(Array(3).fill("GET /api/v1/runs/run_1/recording"));
  });

  it("5xx retries count against the same budget of exactly 3 GETs", async () => {
    const { baseUrl, requests } = await serve((_req, res) =>
      sendJson(res, 503, { error: "busy", code: "UNAVAILABLE" }),
    );
    const wfr = createClient({ baseUrl, apiKey: API_KEY, clock: createVirtualClock() });
    await expect(wfr.downloadRecording("run_1")).rejects.toBeInstanceOf(WorkflowRunApiError);
    expect(requests).toHaveLength(3);
  });
});

/**
 * A run with two checkpoints. After an answer the envelope shows the same
 * checkpoint with response_accepted true for a few polls (docs/service-rules.md#human-checkpoints rule
 * 4), then the next checkpoint, then success.
 */
async function twoCheckpointServer() {
  const answers: string[] = [];
  let polls = 0;
  let stage: "cp_1" | "cp_1_accepted" | "cp_2" | "cp_2_accepted" | "done" = "cp_1";
  const served = await serve((req, res, body) => {
    if (req.method === "POST") {
      const { checkpoint_id } = JSON.parse(body) as { checkpoint_id: string };
      answers.push(checkpoint_id);
      if (checkpoint_id === "cp_1" && stage === "cp_1") stage = "cp_1_accepted";
      if (checkpoint_id === "cp_2" && stage === "cp_2") stage = "cp_2_accepted";
      polls = 0;
    } else {
      polls += 1;
      if (stage === "cp_1_accepted" && polls > 3) stage = "cp_2";
      if (stage === "cp_2_accepted" && polls > 3) stage = "done";
    }
    const checkpoint = stage.startsWith("cp_1") ? "cp_1" : "cp_2";
    if (req.url?.endsWith("/result"))
      return sendJson(
        res,
        stage === "done" ? 200 : 202,
        envelope(stage === "done" ? "succeeded" : "waiting_for_human_live"),
      );
    if (stage === "done") return sendJson(res, 200, envelope("succeeded"));
    return sendJson(
      res,
      req.method === "POST" ? 202 : 200,
      envelope("waiting_for_human_live", {
        checkpoint_id: checkpoint,
        response_accepted: stage.endsWith("accepted"),
      }),
    );
  });
  return { ...served, answers };
}

describe("defect 3: a person is awaited only at an unanswered checkpoint", () => {
  it("the README's wait -> answer loop answers each of two checkpoints exactly once", async () => {
    const server = await twoCheckpointServer();
    const wfr = createClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      clock: createVirtualClock(),
    });
    const answered: string[] = [];
    for (let turn = 0; turn < 50; turn += 1) {
      const run = await wfr.waitForRun("run_1", {
        answeredCheckpointIds: answered,
        timeoutMs: 60_000,
      });
      const checkpoint = run.human_action?.checkpoint_id;
      if (run.status !== "waiting_for_human_live" || !checkpoint) break;
      await wfr.answerHumanInput("run_1", { checkpointId: checkpoint, response: "ok" });
      answered.push(checkpoint);
    }
    expect(server.answers).toEqual(["cp_1", "cp_2"]);
  });

  it("response_accepted true is not a wait: waitForRun keeps polling to the next checkpoint", async () => {
    const server = await twoCheckpointServer();
    const wfr = createClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      clock: createVirtualClock(),
    });
    await wfr.answerHumanInput("run_1", { checkpointId: "cp_1", response: "ok" });
    const run = await wfr.waitForRun("run_1", { timeoutMs: 60_000 });
    expect(run.human_action?.checkpoint_id).toBe("cp_2");
    expect(run.human_action?.response_accepted).toBe(false);
  });
});

describe("defect 4: attachments", () => {
  it("a 24 MiB file arrives intact and the same file() in two fields is sent once", async () => {
    let received:
      | { inputs: unknown; input_context: { attachments: { base64: string }[] } }
      | undefined;
    const { baseUrl } = await serve((_req, res, body) => {
      received = JSON.parse(body);
      sendJson(res, 202, envelope("queued"));
    });
    const bytes = new Uint8Array(24 * 1024 * 1024 + 1);
    for (let index = 0; index < bytes.length; index += 4096) bytes[index] = index % 251;
    const pdf = file(bytes, { filename: "a.pdf", mimeType: "application/pdf" });
    await createClient({ baseUrl, apiKey: API_KEY }).launch("wf_1", {
      inputs: { first: pdf, second: pdf },
    });
    expect(received?.inputs).toEqual({
      first: { attachment_id: "att_1" },
      second: { attachment_id: "att_1" },
    });
    expect(received?.input_context.attachments).toHaveLength(1);
    const decoded = Buffer.from(received?.input_context.attachments[0]?.base64 ?? "", "base64");
    expect(decoded.equals(Buffer.from(bytes))).toBe(true);
  }, 120_000);
});

describe("defect 5: everything thrown is a library error", () => {
  it("aborting a launch throws a library error carrying the idempotency key", async () => {
    const { baseUrl } = await serve(() => {
      /* never answers */
    });
    const controller = new AbortController();
    const launching = createClient({ baseUrl, apiKey: API_KEY }).launch("wf_1", {
      inputs: {},
      idempotencyKey: "order-77",
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 100);
    const error = await launching.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowRunApiError);
    expect((error as WorkflowRunApiError).idempotencyKey).toBe("order-77");
  });

  it("a 2xx with an HTML body (a proxy page) is a library error, not a SyntaxError", async () => {
    const { baseUrl } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html><body>Welcome to the captive portal</body></html>");
    });
    const error = await createClient({ baseUrl, apiKey: API_KEY })
      .getRun("run_1")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowRunApiError);
  });

  it("an API key with a control character is refused at createClient, without the key in the message", () => {
    let error: unknown;
    try {
      createClient({ baseUrl: "http://127.0.0.1:1/api/v1", apiKey: "wfr_live_SECRET\n123" });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WorkflowRunApiError);
    expect(String((error as Error).message)).not.toContain("SECRET");
  });

  it("a 5xx left after retries is an InternalServerError", async () => {
    const { baseUrl } = await serve((_req, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<html>Bad gateway</html>");
    });
    const error = await createClient({ baseUrl, apiKey: API_KEY, clock: createVirtualClock() })
      .getRun("run_1")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as WorkflowRunApiError).status).toBe(502);
  });
});
describe("bounded downloads and aborts", () => {
  it("a recording whose body stalls after the first bytes errors the stream with a timeout", async () => {
    const { baseUrl } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "video/mp4", "content-length": "100000" });
      res.write(Buffer.alloc(1000)); // and never the rest
    });
    // The headers and first bytes come at once, and must be within it on a loaded machine.
    const wfr = createClient({ baseUrl, apiKey: API_KEY, timeoutMs: 2_000 });
    const download = await wfr.downloadRecording("run_1");
    const error = await settlesWithin(
      new Response(download.stream).arrayBuffer().catch((e: unknown) => e),
      20_000,
    );
    expect(error).toBeInstanceOf(WorkflowRunApiError);
    expect((error as WorkflowRunApiError).code).toBe("TIMEOUT");
  }, 30_000);

  it("aborting waitForRun throws a library error; the run is left alone", async () => {
    const { baseUrl, requests } = await serve((_req, res) =>
      sendJson(res, 200, envelope("running")),
    );
    const wfr = createClient({ baseUrl, apiKey: API_KEY });
    const controller = new AbortController();
    const waiting = wfr.waitForRun("run_1", { signal: controller.signal, initialIntervalMs: 50 });
    setTimeout(() => controller.abort(new Error("stop watching")), 150);
    const error = await waiting.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowRunApiError);
    expect((error as WorkflowRunApiError).code).toBe("ABORTED");
    expect(requests.every((line) => line.startsWith("GET "))).toBe(true);
  });
});

describe("User-Agent and debug logging", () => {
  it("sends wfr-runtime/<version> and logs each request (method, path, status, ms, attempt) without the key", async () => {
    let userAgent: string | undefined;
    const { baseUrl } = await serve((req, res) => {
      userAgent = req.headers["user-agent"];
      sendJson(res, 200, envelope("running"));
    });
    const records: unknown[] = [];
    const logger = {
      debug: (message: string, fields?: unknown) => records.push({ message, fields }),
    };
    await createClient({ baseUrl, apiKey: API_KEY, logger }).getRun("run_1");
    expect(userAgent).toMatch(/^wfr-runtime\/\d+\.\d+\.\d+$/);
    expect(records).toEqual([
      {
        message: "request",
        fields: expect.objectContaining({
          method: "GET",
          path: "/api/v1/runs/run_1",
          status: 200,
          attempt: 1,
        }),
      },
    ]);
    expect(JSON.stringify(records)).not.toContain(API_KEY);
  });
});
