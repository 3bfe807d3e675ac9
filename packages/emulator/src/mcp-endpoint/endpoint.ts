// The agent (MCP) endpoint at /mcp: Streamable HTTP, stateless (a fresh McpServer and transport
// per POST, the SDK's stateless pattern). The tools need no state between requests (runs,
// drafts and sessions live in the emulator), progress notifications of wait_for_run ride the
// POST's own SSE response, and stateless needs no session table that a token would have to be
// bound to. GET (a standalone SSE stream) and DELETE (ending a session) are 405.
//
// Who may call it:
// - the emulator's Host check has already run (request-guard.ts, DNS rebinding); an `Origin`
//   that is not the emulator's own is refused here (the MCP transport spec: servers MUST
//   validate Origin), and the SDK's own Host/Origin check is on as a second layer;
// - spec "Authentication" 7: `Authorization: Bearer <personal access token>`. An API key is
//   refused (it belongs to a workspace, not a person); missing, wrong or revoked is 401 with
//   `WWW-Authenticate: Bearer` (RFC 6750).
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createWorkflowMcpServer, type WorkflowBackend } from "@wfr/mcp";
import { HttpError, parseJsonBody, readBodyWithin } from "../http-kit.js";
import { BODY_LIMIT } from "../launch-body.js";
import type { PersonalAccessToken, PersonalAccessTokenStore } from "../personal-access-tokens.js";

export interface McpEndpointOptions {
  tokens: PersonalAccessTokenStore;
  /** Whether the bearer token is an API key of this emulator (refused here, said so). */
  isApiKey(token: string): boolean;
  backendFor(person: PersonalAccessToken): WorkflowBackend;
  /** Host header values (host:port) and origins of the emulator itself. */
  allowedHosts(): string[];
  allowedOrigins(): string[];
  /** wait_for_run's poll interval (default 500 ms). */
  pollIntervalMs?: number;
}

const REALM = 'Bearer realm="wfr-mcp"';

function unauthorized(message: string, invalidToken: boolean): HttpError {
  // RFC 6750 3.1: no error code when the request had no credentials at all.
  const challenge = invalidToken
    ? `${REALM}, error="invalid_token", error_description="${message}"`
    : REALM;
  return new HttpError(401, "UNAUTHENTICATED", message, {}, { "WWW-Authenticate": challenge });
}

/** The person behind the request, or a 401 naming what is wrong (never echoing the token). */
export function authenticatePerson(
  req: IncomingMessage,
  opts: Pick<McpEndpointOptions, "tokens" | "isApiKey">,
): PersonalAccessToken {
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === "") {
    throw unauthorized("a personal access token is required: Authorization: Bearer <token>", false);
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m?.[1]) throw unauthorized("the Authorization header must be Bearer <token>", true);
  const person = opts.tokens.verify(m[1]);
  if (person) return person;
  if (opts.isApiKey(m[1])) {
    throw unauthorized(
      "an API key is not accepted here: the agent endpoint needs a personal access token",
      true,
    );
  }
  throw unauthorized("the personal access token is unknown or revoked", true);
}

export async function handleMcpRequest(
  req: IncomingMessage,
  res: ServerResponse,
  opts: McpEndpointOptions,
): Promise<void> {
  const origin = req.headers.origin;
  if (typeof origin === "string" && !opts.allowedOrigins().includes(origin.toLowerCase())) {
    throw new HttpError(
      403,
      "ORIGIN_NOT_ALLOWED",
      "the agent endpoint refuses requests from another origin",
    );
  }
  const person = authenticatePerson(req, opts);
  if (req.method !== "POST") {
    throw new HttpError(
      405,
      "METHOD_NOT_ALLOWED",
      "this endpoint is stateless: send JSON-RPC messages with POST",
      {},
      { Allow: "POST" },
    );
  }
  // launch_run carries files as base64, so the launch body limit applies.
  const body = parseJsonBody(await readBodyWithin(req, res, BODY_LIMIT));
  const server = createWorkflowMcpServer(opts.backendFor(person), {
    name: "wfr-emulator",
    ...(opts.pollIntervalMs ? { pollIntervalMs: opts.pollIntervalMs } : {}),
  });
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableDnsRebindingProtection: true,
    allowedHosts: opts.allowedHosts(),
    allowedOrigins: opts.allowedOrigins(),
  });
  res.on("close", () => {
    transport.close().catch(() => undefined);
    server.close().catch(() => undefined);
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
