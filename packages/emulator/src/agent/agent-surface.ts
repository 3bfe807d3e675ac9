// The agent surface (MCP endpoint, personal access tokens, authoring), behind one object the HTTP edge calls in a few
// places: the /mcp endpoint, personal access tokens (admin API and the functions the web app
// calls), authoring sessions and drafts, the person's portal routes (enable a draft, the
// authoring live view), and the in-memory API keys the /mcp backend launches with. It knows the
// emulator only through `AgentHost`, so it does not depend on http-server internals.

import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { CODE } from "@wfr/protocol";
import type { PersonalAccessToken } from "../access/credentials.js";
import { emitDefinition } from "../definition/definition-emit.js";
import { iso } from "../engine/clock.js";
import type { Links } from "../engine/run-views.js";
import { HttpError, parseJsonBody, sendJson } from "../http/http-kit.js";
import { LIVE_VIEW_HEADERS } from "../http/page-headers.js";
import type { JournalRecord } from "../journal/journal-records.js";
import { isObject } from "../model/json-text.js";
import type { EnvironmentDef, EnvironmentDefView } from "../model/types.js";
import { AuthoringStore } from "./authoring.js";
import { McpEndpoint } from "./mcp-endpoint/endpoint.js";
import type { McpBody } from "./mcp-endpoint/mcp-body.js";
import { OAuthAuthorizationServer } from "./oauth/authorization-server.js";
import {
  createPersonalAccessToken,
  listPersonalAccessTokens,
  PersonalAccessTokenStore,
  revokePersonalAccessToken,
} from "./personal-access-tokens.js";
import {
  authoringLiveView,
  enableWorkflowAsPerson,
  type PortalSession,
  personIn,
} from "./portal-authoring.js";

/** An API key as the REST API checks it (access/credentials.ts's ApiKey, structurally). */
interface AgentApiKey {
  token_sha256: string;
  environment: string;
  workspace: string;
  scopes: ("workflows:run" | "runs:read")[];
  /** Runs launched with this key are marked with how they were started: through /mcp, or the web app. */
  source: "mcp" | "app";
}

/** What the agent surface needs from the emulator. */
interface AgentHost {
  environment(name: string): EnvironmentDef | undefined;
  links(environment: string): Links;
  record(rec: JournalRecord): void;
  /** Journal a change, then make it (state-changes.ts). */
  commit(rec: JournalRecord): void;
  now(): number;
  /** Origins of the emulator itself (request-guard.ts). */
  sameOrigins(): ReadonlySet<string>;
  /** Whether a bearer token is a (journalled) API key of this emulator. */
  isApiKey(token: string): boolean;
  /** The emulator's own origin (`http://127.0.0.1:<port>`): the issuer and the resource's. */
  origin(): string;
  tokenHash(token: string): string;
  /** Open sessions per workspace (the endpoint's default when absent). */
  readonly sessionsPerWorkspace?: number | undefined;
}

export class AgentSurface {
  readonly personalAccessTokens: PersonalAccessTokenStore;
  readonly authoring: AuthoringStore;
  /** The authorization server of /mcp (OAuth sign-in of connectors). */
  readonly oauth: OAuthAuthorizationServer;
  /** In-memory API keys of the /mcp backend, one per (environment, workspace); never journalled. */
  private readonly agentKeys = new Map<string, { token: string; key: AgentApiKey }>();

  private readonly endpoint: McpEndpoint;

  constructor(private readonly host: AgentHost) {
    this.personalAccessTokens = new PersonalAccessTokenStore(
      (rec) => host.record(rec),
      () => iso(host.now()),
    );
    this.authoring = new AuthoringStore(
      (name) => host.environment(name),
      (rec) => host.record(rec),
      () => host.now(),
    );
    this.oauth = new OAuthAuthorizationServer(
      () => `${host.origin()}/mcp`,
      (rec) => host.record(rec),
    );
    this.endpoint = new McpEndpoint({
      tokens: this.personalAccessTokens,
      oauth: this.oauth,
      resourceMetadataUrl: () => `${host.origin()}/.well-known/oauth-protected-resource/mcp`,
      isApiKey: (token) => host.isApiKey(token),
      allowedOrigins: () => [...host.sameOrigins()],
      ...(host.sessionsPerWorkspace !== undefined
        ? { maxSessionsPerWorkspace: host.sessionsPerWorkspace }
        : {}),
      backendContextFor: (person) => {
        const links = host.links(person.environment);
        return {
          environment: person.environment,
          workspace: person.workspace,
          apiBase: links.apiBase,
          envBase: links.envBase,
          agentKey: this.agentKey(person.environment, person.workspace),
          personStillAuthorized: () =>
            this.personalAccessTokens.isLive(person.id) || this.oauth.isLive(person.id),
          definition: () => {
            const env = host.environment(person.environment);
            if (!env) return { document: { paths: {} }, workspace: "" };
            return { document: emitDefinition(env, links.apiBase), workspace: env.workspace };
          },
          startAuthoringSession: (purpose) => {
            const s = this.authoring.startSession(person.environment, person.workspace, purpose);
            return { session_id: s.session_id, expires_at: iso(s.expires_at) };
          },
          saveDraft: (request) => {
            const wf = this.authoring.saveDraft(person.environment, request);
            return { id: wf.id, name: wf.name, state: wf.state, revision: wf.revision };
          },
        };
      },
    });
  }

  // ---------- persistence ----------

  /** Replays one journal record; false when it is not one of this surface's records. */
  apply(rec: JournalRecord): boolean {
    return (
      this.personalAccessTokens.apply(rec) || this.oauth.apply(rec) || this.authoring.apply(rec)
    );
  }

  /** Tokens, OAuth clients and grants, sessions and drafts; before the emulator's `state` records. */
  *snapshot(): Generator<JournalRecord> {
    yield* this.personalAccessTokens.snapshot();
    yield* this.oauth.snapshot();
    yield* this.authoring.snapshot();
  }

  get size(): number {
    return this.personalAccessTokens.size + this.oauth.size + this.authoring.size;
  }

  // ---------- the REST API's view ----------

  /** The /mcp backend's key with this hash, if it is one. */
  apiKeyByHash(hash: string): AgentApiKey | undefined {
    for (const agent of this.agentKeys.values())
      if (agent.key.token_sha256 === hash) return agent.key;
    return undefined;
  }

  /** A 401 message for a bearer token the REST API did not accept. */
  refusalMessage(token: string | undefined): string | undefined {
    // docs/service-rules.md#authentication: the API takes workspace keys; a person's token is for /mcp.
    return token !== undefined && this.personalAccessTokens.verify(token)
      ? "a personal access token is accepted only by the agent (MCP) endpoint; the API needs an API key"
      : undefined;
  }

  // ---------- routes ----------

  /** Who calls /mcp: the middleware's check before the body is read (mcp-endpoint/endpoint.ts). */
  mcpPerson(req: IncomingMessage): PersonalAccessToken {
    return this.endpoint.authorize(req);
  }

  /** /mcp, for `person` (from `mcpPerson`), with the body middleware read. */
  mcp(
    req: IncomingMessage,
    res: ServerResponse,
    person: PersonalAccessToken,
    body: McpBody | undefined,
  ): Promise<void> {
    return this.endpoint.handle(req, res, person, body);
  }

  /** Closes the agent sessions (the emulator stops). */
  close(): Promise<void> {
    return this.endpoint.close();
  }

  /**
   * POST /<env>/portal/workflows/{id}/enable: a person enables a draft. Same site, the portal
   * session and the body limit are checked by middleware first (surfaces.ts).
   */
  enableRoute(
    res: ServerResponse,
    env: EnvironmentDefView,
    session: PortalSession,
    workflowId: string,
  ): void {
    const { workflow, changed } = enableWorkflowAsPerson(personIn(session, env), env, workflowId);
    // The emulator's own `state` change: the same one the admin API commits.
    if (changed)
      this.host.commit({ t: "state", env: env.name, workflow: workflow.id, state: "enabled" });
    sendJson(res, 200, { workflow_id: workflow.id, state: workflow.state });
  }

  /** GET /<env>/portal/authoring/{id}/live: the live view of an authoring session (after `portalUser`). */
  authoringLiveRoute(
    res: ServerResponse,
    env: EnvironmentDefView,
    session: PortalSession,
    sessionId: string,
  ): void {
    const html = authoringLiveView(
      personIn(session, env),
      env,
      this.authoring.session(sessionId),
      this.host.now(),
    );
    res.writeHead(200, {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Length": Buffer.byteLength(html),
      ...LIVE_VIEW_HEADERS,
    });
    res.end(html);
  }

  /** POST /_emulator/personal-access-tokens: a person's token for /mcp (shown once). */
  createTokenRoute(body: Buffer, res: ServerResponse): void {
    const b = parseJsonBody(body);
    if (!isObject(b)) throw new HttpError(400, CODE.INVALID_BODY, "body must be a JSON object");
    const env =
      typeof b.environment === "string" ? this.host.environment(b.environment) : undefined;
    if (!env) {
      throw new HttpError(
        400,
        CODE.INVALID_ENVIRONMENT,
        `unknown environment ${JSON.stringify(b.environment)}`,
        {
          field: "environment",
        },
      );
    }
    if (b.workspace !== undefined && (typeof b.workspace !== "string" || b.workspace === "")) {
      throw new HttpError(400, CODE.INVALID_BODY, "workspace must be a non-empty string", {
        field: "workspace",
      });
    }
    const workspace = (b.workspace as string | undefined) ?? env.workspace;
    sendJson(
      res,
      201,
      createPersonalAccessToken(this.personalAccessTokens, { environment: env.name, workspace }),
    );
  }

  /** GET /_emulator/personal-access-tokens: never a token or its hash. */
  listTokensRoute(res: ServerResponse): void {
    sendJson(res, 200, { tokens: listPersonalAccessTokens(this.personalAccessTokens) });
  }

  /** DELETE /_emulator/personal-access-tokens/{id}. */
  revokeTokenRoute(res: ServerResponse, id: string): void {
    if (!revokePersonalAccessToken(this.personalAccessTokens, id)) {
      throw new HttpError(404, CODE.TOKEN_NOT_FOUND, "no personal access token with this id");
    }
    sendJson(res, 200, { id, revoked: true });
  }

  /** The in-memory API key the web application uses on loopback to launch as a person of this workspace. */
  appKey(environment: string, workspace: string): string {
    return this.agentKey(environment, workspace, "app");
  }

  /** The in-memory API key the /mcp backend uses on loopback for one workspace. */
  private agentKey(environment: string, workspace: string, source: "mcp" | "app" = "mcp"): string {
    const id = JSON.stringify([environment, workspace, source]);
    const existing = this.agentKeys.get(id);
    if (existing) return existing.token;
    const token = `wfr_agent_${randomBytes(24).toString("base64url")}`;
    this.agentKeys.set(id, {
      token,
      key: {
        token_sha256: this.host.tokenHash(token),
        environment,
        workspace,
        scopes: ["workflows:run", "runs:read"],
        source,
      },
    });
    return token;
  }
}
