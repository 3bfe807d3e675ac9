// The credentials the emulator keeps, as data: API keys with their scopes (docs/service-rules.md#authentication)
// and the records of personal access tokens. Only the SHA-256 of a token is kept (memory and
// journal). The journal, the shared state, the agent surface and the edge all read these, so
// they live below all of them.
import { createHash } from "node:crypto";
import type { Scope } from "@wfr/protocol";

export const tokenHash = (token: string): string =>
  createHash("sha256").update(token, "utf8").digest("hex");

/** A stored API key: only the SHA-256 of the token is kept (memory and journal). */
export interface ApiKey {
  token_sha256: string;
  environment: string;
  workspace: string;
  scopes: Scope[];
  /** Only on the in-memory keys of the /mcp backend (agent/agent-surface.ts). */
  source?: "mcp" | "app";
}

/** What is stored for one personal access token (agent/personal-access-tokens.ts): never the token itself. */
export interface PersonalAccessToken {
  id: string;
  token_sha256: string;
  environment: string;
  workspace: string;
  /** ISO time of creation (emulator clock). */
  created_at: string;
}

/** A connector registered with the authorization server of /mcp (agent/oauth/, RFC 7591). */
export interface OAuthClient {
  readonly client_id: string;
  readonly client_id_issued_at: number;
  readonly client_name: string;
  readonly redirect_uris: readonly string[];
  readonly grant_types: readonly string[];
  readonly response_types: readonly string[];
  readonly token_endpoint_auth_method: "none";
}

/**
 * A person's sign-in of one client: the identity its access tokens carry. Journalled whole at
 * each change (`oauth_grant`), with the SHA-256 of its tokens only.
 */
export interface OAuthGrant {
  readonly id: string;
  readonly client_id: string;
  readonly environment: string;
  readonly workspace: string;
  readonly resource: string;
  readonly created_at: string;
  readonly accessHash: string;
  /** Wall-clock milliseconds. */
  readonly accessExpiresAt: number;
  readonly refreshHash: string;
  readonly refreshExpiresAt: number;
  /** Hashes of the refresh tokens rotated away, newest last (at most `rotatedRefreshTokens`). */
  readonly rotatedHashes: readonly string[];
}
