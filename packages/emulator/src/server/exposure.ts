// A careless default exposes nothing: the admin API mints keys and changes every run, so an
// emulator that listens beyond this machine does so only with an admin token, or when told in
// so many words that the admin API may be open (or with the admin API off). An empty token is
// an unset variable, not a choice: it is refused, never read as "no token".

/** True for the loopback names and addresses: only this machine can reach them. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  if (h === "localhost" || h === "::1") return true;
  return /^127(\.\d{1,3}){3}$/.test(h);
}

export interface ExposureOptions {
  readonly host: string;
  readonly admin: boolean;
  readonly adminToken: string | undefined;
  readonly exposeAdminWithoutToken: boolean;
}

/** Why these options must not start the emulator, or null when they may. */
export function exposureProblem(o: ExposureOptions): string | null {
  if (o.adminToken !== undefined && o.adminToken.trim() === "")
    return "the admin token is empty (an unset variable?): give a token, or leave it out";
  if (!o.admin || o.adminToken !== undefined || isLoopbackHost(o.host)) return null;
  if (o.exposeAdminWithoutToken) return null;
  return `listening on ${o.host} would let anyone who reaches it mint keys through the admin API: give an admin token (--admin-token-file <file> or WFR_EMULATOR_ADMIN_TOKEN), turn the admin API off (--no-admin), or say --expose-admin-without-token`;
}

/** Options that must not start the emulator; the message says which and what to do. */
export class EmulatorOptionError extends Error {
  override readonly name = "EmulatorOptionError";
}
