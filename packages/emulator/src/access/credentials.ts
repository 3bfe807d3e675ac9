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
