// The security headers of every HTML page the emulator serves, written once. The web
// application's pages load their own script and stylesheet and are never framed; a live view
// (a run's, an authoring session's) has neither script nor stylesheet and is meant to be framed
// by the team's application (a browser-access grant), so it says nothing about its ancestors.

const COMMON = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
  "Cache-Control": "no-store",
} as const;

/** The web application's pages: everything from here, no inline script, never framed. */
export const APP_PAGE_HEADERS = {
  ...COMMON,
  "Content-Security-Policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
} as const;

/** A live view: plain HTML that loads nothing and runs nothing; framed by the team's app. */
export const LIVE_VIEW_HEADERS = {
  ...COMMON,
  "Content-Security-Policy":
    "default-src 'none'; img-src 'self' data:; media-src 'self'; form-action 'none'; base-uri 'none'",
} as const;

/**
 * A connector's consent page (OAuth): the web application's policy, but its form's answer
 * redirects to the connector's redirect URI, which `form-action` must allow (browsers check
 * the redirects after a form post against it).
 */
export function consentPolicy(redirectUri: string): string {
  const origin = new URL(redirectUri).origin;
  return APP_PAGE_HEADERS["Content-Security-Policy"].replace(
    "form-action 'self'",
    `form-action 'self' ${origin}`,
  );
}
