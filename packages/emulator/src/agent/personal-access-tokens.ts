// Personal access tokens: the bearer credential of the agent (MCP) endpoint (docs/service-rules.md#authentication
// 7: "The MCP endpoint accepts a personal access token as bearer token"). A token belongs to a
// person signed in to one environment and workspace, not to a workspace like an API key: the
// REST API refuses it, and /mcp refuses API keys. Only the SHA-256 of a token is kept (memory and
// journal); the token itself is shown once, when it is created.
import { createHash, randomBytes } from "node:crypto";
import type { PersonalAccessToken } from "../access/credentials.js";
import type { JournalRecord } from "../journal/journal-records.js";

/** What a list shows: no token and no hash. */
export type PersonalAccessTokenInfo = Omit<PersonalAccessToken, "token_sha256">;

export interface CreatedPersonalAccessToken extends PersonalAccessTokenInfo {
  /** Shown once; afterwards only its hash exists. */
  token: string;
}

/** Tokens start like API keys (`wfr_`), so the "no key in a URL" guard refuses them too. */
const PERSONAL_TOKEN_PREFIX = "wfr_pat_";

const sha256 = (token: string): string => createHash("sha256").update(token, "utf8").digest("hex");

export class PersonalAccessTokenStore {
  private readonly byHash = new Map<string, PersonalAccessToken>();
  private readonly byId = new Map<string, PersonalAccessToken>();

  /** `record` persists a change (the emulator's journal); `now` is the emulator clock. */
  constructor(
    private readonly record: (rec: JournalRecord) => void,
    private readonly now: () => string,
  ) {}

  create(environment: string, workspace: string): CreatedPersonalAccessToken {
    const token = `${PERSONAL_TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
    const pat: PersonalAccessToken = {
      id: `pat_${randomBytes(8).toString("hex")}`,
      token_sha256: sha256(token),
      environment,
      workspace,
      created_at: this.now(),
    };
    this.commit({ t: "pat", pat });
    return { token, ...info(pat) };
  }

  list(filter: { environment?: string; workspace?: string } = {}): PersonalAccessTokenInfo[] {
    return [...this.byId.values()]
      .filter((p) => filter.environment === undefined || p.environment === filter.environment)
      .filter((p) => filter.workspace === undefined || p.workspace === filter.workspace)
      .map(info);
  }

  /** false when no token has this id (never created, or already revoked). */
  revoke(id: string): boolean {
    if (!this.byId.has(id)) return false;
    this.commit({ t: "pat_revoked", id });
    return true;
  }

  /** Whether the token with this id still stands (not revoked). */
  isLive(id: string): boolean {
    return this.byId.has(id);
  }

  /** The token's record, or undefined for an unknown or revoked token. */
  verify(token: string): PersonalAccessToken | undefined {
    return this.byHash.get(sha256(token));
  }

  /** Journal the change, then make it with `apply`, the function replay uses. */
  private commit(rec: JournalRecord): void {
    this.record(rec);
    this.apply(rec);
  }

  /** Make the change a token record describes (live, and on replay); false for other records. */
  apply(rec: JournalRecord): boolean {
    if (rec.t === "pat") {
      this.add(rec.pat as PersonalAccessToken);
      return true;
    }
    if (rec.t === "pat_revoked") {
      const pat = this.byId.get(rec.id as string);
      if (pat) {
        this.byId.delete(pat.id);
        this.byHash.delete(pat.token_sha256);
      }
      return true;
    }
    return false;
  }

  /** The records that rebuild the live tokens (journal compaction); revoked ones are gone. */
  *snapshot(): Generator<JournalRecord> {
    for (const pat of this.byId.values()) yield { t: "pat", pat };
  }

  get size(): number {
    return this.byId.size;
  }

  private add(pat: PersonalAccessToken): void {
    this.byId.set(pat.id, pat);
    this.byHash.set(pat.token_sha256, pat);
  }
}

function info(pat: PersonalAccessToken): PersonalAccessTokenInfo {
  const { token_sha256: _hash, ...rest } = pat;
  return rest;
}

// The functions the web application's "Personal access tokens" page calls (the admin API calls
// the same ones), so both paths create, list and revoke tokens identically.
export function createPersonalAccessToken(
  store: PersonalAccessTokenStore,
  person: { environment: string; workspace: string },
): CreatedPersonalAccessToken {
  return store.create(person.environment, person.workspace);
}

export function listPersonalAccessTokens(
  store: PersonalAccessTokenStore,
  filter: { environment?: string; workspace?: string } = {},
): PersonalAccessTokenInfo[] {
  return store.list(filter);
}

export function revokePersonalAccessToken(store: PersonalAccessTokenStore, id: string): boolean {
  return store.revoke(id);
}
