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
