// Sign-in for local use: a one-time link printed at start-up sets the portal session
// cookie. Only SHA-256 hashes of link tokens are kept; a link works once and expires.
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

const SIGN_IN_PATH = "/_app/sign-in/";
/** A printed link stays usable for a working day; opening it once consumes it. */
export const SIGN_IN_LINK_TTL_MS = 24 * 3_600_000;

const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

export class SignInLinks {
  private readonly pending = new Map<string, number>();
  /** Signs CSRF tokens; new on every start, so a restart invalidates open forms (not sessions). */
  private readonly csrfSecret = randomBytes(32);

  /** A new one-time link under `origin`. */
  create(origin: string, now: number): string {
    const token = randomBytes(24).toString("base64url");
    this.pending.set(sha256(token), now + SIGN_IN_LINK_TTL_MS);
    return `${origin}${SIGN_IN_PATH}${token}`;
  }

  /** True once per link: the token is forgotten as it is used. */
  consume(token: string, now: number): boolean {
    const hash = sha256(token);
    const expires = this.pending.get(hash);
    this.pending.delete(hash);
    return expires !== undefined && expires > now;
  }

  /** The form token bound to one portal session (double-submit is not needed: it is an HMAC). */
  csrfToken(sessionId: string): string {
    return createHmac("sha256", this.csrfSecret).update(sessionId).digest("base64url");
  }

  csrfValid(sessionId: string, token: unknown): boolean {
    if (typeof token !== "string") return false;
    const want = Buffer.from(this.csrfToken(sessionId));
    const got = Buffer.from(token);
    return want.length === got.length && timingSafeEqual(want, got);
  }
}

/** The request log must not print a sign-in token: the path keeps only its prefix. */
export function redactSignInPath(path: string): string {
  return path.startsWith(SIGN_IN_PATH) ? `${SIGN_IN_PATH}[redacted]` : path;
}
