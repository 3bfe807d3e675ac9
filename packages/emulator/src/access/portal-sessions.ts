// Portal sessions (the web application's cookie, and the admin API's for a live view) end: a
// cookie left in a shared browser or copied from a log must not sign its bearer in for ever.
// Measured on the wall clock, not the emulator's (possibly virtual) clock: a test that skips a
// day of run time has not kept a person signed in for a day.

/** How long a portal session signs its bearer in: a working day. */
export const PORTAL_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** The cookie's own lifetime, in seconds, so that the browser forgets it too. */
export const PORTAL_SESSION_MAX_AGE_S = PORTAL_SESSION_TTL_MS / 1000;

/** A cookie that makes the browser forget the session at once (sign-out). */
export const CLEARED_PORTAL_SESSION_COOKIE =
  "wfr_portal_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0";

/** The session `id` names, while it has not expired; an expired one is forgotten here. */
export function livePortalSession<S extends { expiresAt?: number }>(
  sessions: Map<string, S> | ReadonlyMap<string, S>,
  id: string | undefined,
  now: number = Date.now(),
): S | undefined {
  if (id === undefined) return undefined;
  const session = sessions.get(id);
  if (session === undefined) return undefined;
  if (session.expiresAt !== undefined && session.expiresAt <= now) {
    if (sessions instanceof Map) sessions.delete(id);
    return undefined;
  }
  return session;
}
