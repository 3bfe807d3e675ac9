// The agent (MCP) endpoint at /mcp: Streamable HTTP with sessions (the SDK's stateful pattern).
// Why stateful: the server sends requests to the client (URL-mode elicitation offering the
// person's link), which needs the client's capabilities from `initialize` and, outside
// a tool call, the session's GET stream; a stateless server never learns either. Every request
// is still authenticated on its own, and a session belongs to the token that opened it: another
// token (or a revoked one) cannot use its id. Idle sessions are closed after 30 minutes.
//
// Who may call it:
// - the emulator's Host check has already run (request-guard.ts, DNS rebinding); an `Origin`
//   that is not the emulator's own is refused here (the MCP transport spec: servers MUST
//   validate Origin), and the SDK's own Origin check is on as a second layer;
// - docs/service-rules.md#authentication: `Authorization: Bearer <personal access token>`. An API key is
//   refused (it belongs to a workspace, not a person); missing, wrong or revoked is 401 with
//   `WWW-Authenticate: Bearer` (RFC 6750).

import type { IncomingMessage, ServerResponse } from "node:http";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CODE } from "@wfr/protocol";
import type { PersonalAccessToken } from "../../access/credentials.js";
import { HttpError, parseJsonBody } from "../../http/http-kit.js";
import type { OAuthAuthorizationServer } from "../oauth/authorization-server.js";
import type { PersonalAccessTokenStore } from "../personal-access-tokens.js";
import type { EmulatorBackendContext } from "./backend.js";
import type { McpBody } from "./mcp-body.js";

/** The SDK's side of /mcp (mcp-session.ts), loaded on the first request that reaches it. */
let sessionKit: Promise<typeof import("./mcp-session.js")> | undefined;
const loadSessionKit = () => {
  sessionKit ??= import("./mcp-session.js");
  return sessionKit;
};

interface McpEndpointOptions {
  tokens: PersonalAccessTokenStore;
  /** Access tokens of a connector's OAuth sign-in (oauth/authorization-server.ts). */
  oauth: Pick<OAuthAuthorizationServer, "verify" | "looksLikeAccessToken">;
  /** Where a client discovers how to sign in (RFC 9728), named in every 401's challenge. */
  resourceMetadataUrl(): string;
  /** Whether the bearer token is an API key of this emulator (refused here, said so). */
  isApiKey(token: string): boolean;
  /** What the person's backend (backend.ts) needs: their environment, workspace and rights. */
  backendContextFor(person: PersonalAccessToken): EmulatorBackendContext;
  /** Origins of the emulator itself. */
  allowedOrigins(): string[];
  /** wait_for_run's poll interval (default 500 ms). */
  pollIntervalMs?: number;
  /** Open sessions per workspace (default MAX_SESSIONS_PER_WORKSPACE). */
  maxSessionsPerWorkspace?: number;
}

const REALM = 'Bearer realm="wfr-mcp"';

function unauthorized(message: string, invalidToken: boolean, resourceMetadata: string): HttpError {
  // RFC 6750 3.1: no error code when the request had no credentials at all. RFC 9728 5.1: the
  // challenge names the resource's metadata, where a client learns how to sign a person in.
  const base = `${REALM}, resource_metadata="${resourceMetadata}"`;
  const challenge = invalidToken
    ? `${base}, error="invalid_token", error_description="${message}"`
    : base;
  return new HttpError(401, CODE.UNAUTHENTICATED, message, {}, { "WWW-Authenticate": challenge });
}

/** The person behind the request, or a 401 naming what is wrong (never echoing the token). */
function authenticatePerson(
  req: IncomingMessage,
  opts: Pick<McpEndpointOptions, "tokens" | "isApiKey" | "oauth" | "resourceMetadataUrl">,
): PersonalAccessToken {
  const metadata = opts.resourceMetadataUrl();
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === "") {
    throw unauthorized(
      "a personal access token or a signed-in connector's access token is required: Authorization: Bearer <token>",
      false,
      metadata,
    );
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m?.[1])
    throw unauthorized("the Authorization header must be Bearer <token>", true, metadata);
  const person = opts.tokens.verify(m[1]) ?? opts.oauth.verify(m[1]);
  if (person) return person;
  if (opts.isApiKey(m[1])) {
    throw unauthorized(
      "an API key is not accepted here: the agent endpoint needs a personal access token",
      true,
      metadata,
    );
  }
  if (opts.oauth.looksLikeAccessToken(m[1]))
    throw unauthorized(
      "the access token is unknown, expired or revoked: refresh it, or sign in again",
      true,
      metadata,
    );
  throw unauthorized("the personal access token is unknown or revoked", true, metadata);
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: { close(): Promise<void> };
  /** The personal access token (its id) that opened the session. */
  tokenId: string;
  /** Its environment and workspace: the cap counts sessions per workspace. */
  tenant: string;
  lastSeen: number;
}

/** Sessions idle this long are closed (wall clock: they are connections, not emulated time). */
const MCP_SESSION_IDLE_MS = 30 * 60_000;
/**
 * Open sessions per workspace; opening one more closes that workspace's oldest. Per workspace, so
 * one workspace's tokens cannot evict another's sessions by opening many.
 */
const MAX_SESSIONS_PER_WORKSPACE = 1000;

export class McpEndpoint {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly opts: McpEndpointOptions) {}

  /**
   * Who may call: an `Origin` of the emulator itself (or none), and a person's token. Run as
   * middleware before the body is read (surfaces.ts), so a stranger's body is never read.
   */
  authorize(req: IncomingMessage): PersonalAccessToken {
    const origin = req.headers.origin;
    if (typeof origin === "string" && !this.opts.allowedOrigins().includes(origin.toLowerCase())) {
      throw new HttpError(
        403,
        CODE.ORIGIN_NOT_ALLOWED,
        "the agent endpoint refuses requests from another origin",
      );
    }
    return authenticatePerson(req, this.opts);
  }

  /** One request of `person` (from `authorize`), its body read within its budget by middleware (mcp-body.ts). */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    person: PersonalAccessToken,
    read: McpBody | undefined,
  ): Promise<void> {
    const body =
      req.method === "POST" && read?.kind !== "draft-too-large"
        ? parseJsonBody(read?.bytes ?? Buffer.alloc(0))
        : undefined;
    const sessionId = req.headers["mcp-session-id"];
    const kit = await loadSessionKit();
    if (typeof sessionId === "string") {
      const session = this.sessions.get(sessionId);
      // A session of another token is as unknown as a closed one (no hint that it exists).
      if (!session || session.tokenId !== person.id) {
        throw new HttpError(404, CODE.MCP_SESSION_NOT_FOUND, "no such session: initialize again");
      }
      session.lastSeen = Date.now();
      if (read?.kind === "draft-too-large") return kit.refuseDraft(res, read);
      await session.transport.handleRequest(req, res, body);
      return;
    }
    if (req.method !== "POST" || !kit.isInitializeRequest(body)) {
      throw new HttpError(
        400,
        CODE.MCP_SESSION_REQUIRED,
        "send initialize first; later requests carry its Mcp-Session-Id header",
      );
    }
    const tenant = `${person.environment}/${person.workspace}`;
    this.sweep(tenant);
    const { server, transport } = kit.openSession({
      backend: this.opts.backendContextFor(person),
      pollIntervalMs: this.opts.pollIntervalMs,
      allowedOrigins: this.opts.allowedOrigins(),
      onInitialized: (id) => {
        this.sessions.set(id, {
          transport,
          server,
          tokenId: person.id,
          tenant,
          lastSeen: Date.now(),
        });
      },
      onClosed: (id) => {
        this.sessions.delete(id);
      },
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  /** Closes every session (the emulator stops). */
  async close(): Promise<void> {
    const open = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(open.map((s) => s.server.close().catch(() => undefined)));
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Closes idle sessions, and the oldest ones of `tenant` beyond its cap (one is opening). */
  private sweep(tenant: string): void {
    const now = Date.now();
    const cap = this.opts.maxSessionsPerWorkspace ?? MAX_SESSIONS_PER_WORKSPACE;
    const close = (id: string, s: Session) => {
      this.sessions.delete(id);
      s.server.close().catch(() => undefined);
    };
    const mine: [string, Session][] = [];
    for (const [id, s] of this.sessions) {
      if (now - s.lastSeen > MCP_SESSION_IDLE_MS) close(id, s);
      else if (s.tenant === tenant) mine.push([id, s]);
    }
    mine.sort((a, b) => a[1].lastSeen - b[1].lastSeen);
    for (let i = 0; mine.length - i >= cap; i++) close(...(mine[i] as [string, Session]));
  }
}
