// What /mcp needs of the MCP SDK, `@wfr/mcp` and zod, loaded by endpoint.ts on the first request
// to /mcp rather than when the emulator starts: these are about two thirds of the modules the
// emulator would otherwise load at start (docs/suite-time.md, "The CA bundle at every start, and
// the emulator's start"), and most emulators never see an agent.

import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { BackendError, createWorkflowMcpServer, toolError } from "@wfr/mcp";
import { CODE } from "@wfr/protocol";
import { HttpError } from "../../http/http-kit.js";
import { createEmulatorBackend, type EmulatorBackendContext } from "./backend.js";
import type { McpBody } from "./mcp-body.js";
import { SessionEventStore } from "./session-event-store.js";

export { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

/**
 * The `save_workflow` call's answer for a draft over its budget, read but never parsed
 * (mcp-body.ts): the tool's own refusal, as one JSON-RPC response (the Streamable HTTP transport
 * lets a server answer a request with `application/json`). Without the call's id there is no
 * response to make: a 413 naming the same.
 */
export function refuseDraft(
  res: ServerResponse,
  read: Extract<McpBody, { kind: "draft-too-large" }>,
): void {
  const message = `${read.problem.pointer}: ${read.problem.message}`;
  if (read.id === undefined) throw new HttpError(413, CODE.DRAFT_TOO_LARGE, message);
  const result = toolError(new BackendError(CODE.DRAFT_TOO_LARGE, message, 400));
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", id: read.id, result }));
}

interface NewSession {
  backend: EmulatorBackendContext;
  pollIntervalMs?: number | undefined;
  /** Origins of the emulator itself, for the SDK's own Origin check. */
  allowedOrigins: string[];
  onInitialized(id: string): void;
  onClosed(id: string): void;
}

/** An MCP server with the workflow tools over the person's backend, and its transport. */
export function openSession(opts: NewSession) {
  const server = createWorkflowMcpServer(createEmulatorBackend(opts.backend), {
    name: "wfr-emulator",
    ...(opts.pollIntervalMs ? { pollIntervalMs: opts.pollIntervalMs } : {}),
  });
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    // A dropped connection resumes with Last-Event-ID (session-event-store.ts).
    eventStore: new SessionEventStore(),
    // The stream's first event tells the client when to reconnect after a drop (SSE `retry`,
    // which the MCP transport says a server should send): one second, the SDK client's own
    // first delay, so a resumed wait_for_run loses little time and no reconnection storm forms.
    retryInterval: 1000,
    onsessioninitialized: (id) => opts.onInitialized(id),
    onsessionclosed: (id) => opts.onClosed(id),
    // The SDK's Origin check as a second layer. Not its Host check: it compares host:port
    // exactly and would refuse a forwarded port that the emulator's own check accepts.
    enableDnsRebindingProtection: true,
    allowedOrigins: opts.allowedOrigins,
  });
  transport.onclose = () => {
    if (transport.sessionId) opts.onClosed(transport.sessionId);
  };
  return { server, transport };
}
