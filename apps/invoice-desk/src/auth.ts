// Operators sign in with a password (scrypt, salted) and get a session cookie;
// every form carries the session's CSRF token, checked on every POST together
// with the request's Origin.
import { createHash, randomBytes, scrypt as scryptCallback, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";
import type { SqlClient } from "@wfr/store-postgres";

const scrypt = promisify(scryptCallback) as (
  password: string,
  salt: Buffer,
  keylen: number,
) => Promise<Buffer>;
const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const SESSION_COOKIE = "desk_session";

async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, 32);
  return `scrypt$${salt.toString("base64")}$${hash.toString("base64")}`;
}

async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const actual = await scrypt(password, Buffer.from(salt, "base64"), expected.length);
  return timingSafeEqual(actual, expected);
}

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

export interface Session {
  operatorId: number;
  username: string;
  csrfToken: string;
}

export function authQueries(sql: SqlClient) {
  return {
    async ensureOperator(username: string, password: string) {
      await sql.query(
        "INSERT INTO desk_operators (username, password_hash) VALUES ($1, $2) ON CONFLICT (username) DO NOTHING",
        [username, await hashPassword(password)],
      );
    },
    /** The session token (for the cookie), or undefined for a wrong name or password. */
    async signIn(username: string, password: string): Promise<string | undefined> {
      const { rows } = await sql.query<{ id: number; password_hash: string }>(
        "SELECT id, password_hash FROM desk_operators WHERE username = $1",
        [username],
      );
      const operator = rows[0];
      // Compare against a dummy hash too, so a wrong name costs as long as a wrong password.
      const ok = await verifyPassword(password, operator?.password_hash ?? DUMMY_HASH);
      if (!operator || !ok) return undefined;
      const token = randomBytes(32).toString("base64url");
      await sql.query(
        "INSERT INTO desk_sessions (token_hash, operator_id, csrf_token, expires_at) VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')",
        [sha256(token), operator.id, randomBytes(24).toString("base64url"), SESSION_TTL_MS],
      );
      return token;
    },
    async session(token: string | undefined): Promise<Session | undefined> {
      if (!token) return undefined;
      const { rows } = await sql.query<{
        operator_id: number;
        username: string;
        csrf_token: string;
      }>(
        `SELECT s.operator_id, o.username, s.csrf_token FROM desk_sessions s JOIN desk_operators o ON o.id = s.operator_id
          WHERE s.token_hash = $1 AND s.expires_at > now()`,
        [sha256(token)],
      );
      const row = rows[0];
      return row
        ? { operatorId: row.operator_id, username: row.username, csrfToken: row.csrf_token }
        : undefined;
    },
    async signOut(token: string) {
      await sql.query("DELETE FROM desk_sessions WHERE token_hash = $1", [sha256(token)]);
    },
  };
}

const DUMMY_HASH = "scrypt$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

/** Constant-time comparison of the form's CSRF token with the session's. */
export function csrfTokenMatches(session: Session, submitted: unknown): boolean {
  if (typeof submitted !== "string") return false;
  const a = Buffer.from(submitted);
  const b = Buffer.from(session.csrfToken);
  return a.length === b.length && timingSafeEqual(a, b);
}
