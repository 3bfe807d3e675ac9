// Where a file output may be downloaded from. A result's `download_url` is
// data from the service: used as given (docs/service-rules.md#results), but a
// server that streams what it downloads to its users must not be talked into
// fetching anything else (its admin pages, a cloud metadata address, a
// loopback service). So a download goes only under the allowed prefixes: the
// environment's own root (the API base without `/api/v1`) and the origins the
// caller names for the service's storage; https only, except loopback http
// when the environment itself is loopback http (the emulator); redirects are
// followed by hand, only while they stay inside the allowed prefixes.
import { CODE } from "@wfr/protocol";
import { WorkflowRunApiError } from "./errors.js";
import { isLoopbackHost } from "./url-checks.js";

export interface DownloadPolicy {
  /** The environment's API base (`.../api/v1`): downloads under its root are allowed. */
  readonly baseUrl?: string;
  /** Origins of the service's file storage (`https://files.example.com`), allowed as a whole. */
  readonly allowedOrigins?: readonly string[];
  /** Redirects followed inside the allowed prefixes. Default 3. */
  readonly maxRedirects?: number;
}

/** A download_url outside the policy: refused before any request. Names the origin only, never a path or query. */
export class FileOutputDownloadRefusedError extends WorkflowRunApiError {
  override name = "FileOutputDownloadRefusedError";
  readonly filename: string;
  constructor(filename: string, origin: string, why: string) {
    super({
      status: null,
      code: CODE.FILE_OUTPUT_DOWNLOAD_REFUSED,
      message: `File output "${filename}": not downloaded from ${origin}: ${why}`,
    });
    this.filename = filename;
  }
}

/** The URL prefixes a policy allows, each ending in "/". */
export function allowedPrefixes(policy: DownloadPolicy): string[] {
  const prefixes: string[] = [];
  if (policy.baseUrl) {
    const base = new URL(policy.baseUrl);
    const root = base.pathname.replace(/\/api\/v1\/?$/, "/").replace(/\/?$/, "/");
    prefixes.push(`${base.origin}${root}`);
  }
  for (const origin of policy.allowedOrigins ?? []) prefixes.push(`${new URL(origin).origin}/`);
  return prefixes;
}

/** Why `url` may not be downloaded under `policy`, or null when it may. */
export function downloadRefusal(url: string, policy: DownloadPolicy): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "not a URL";
  }
  if (parsed.username || parsed.password) return "URLs with credentials are not followed";
  const httpAllowed =
    policy.baseUrl !== undefined &&
    new URL(policy.baseUrl).protocol === "http:" &&
    isLoopbackHost(new URL(policy.baseUrl));
  if (
    parsed.protocol !== "https:" &&
    !(parsed.protocol === "http:" && httpAllowed && isLoopbackHost(parsed))
  )
    return "only https is followed (http only to the emulator on loopback)";
  const prefixes = allowedPrefixes(policy);
  if (prefixes.length === 0)
    return "no allowed download origin: give the client's environment (baseUrl) or allowedOrigins";
  const normalized = parsed.href;
  if (!prefixes.some((prefix) => normalized.startsWith(prefix)))
    return "outside the environment and the allowed storage origins";
  return null;
}

/**
 * GET `url` under the policy: refused before sending when outside it, and
 * redirects followed by hand only while they stay inside it.
 */
export async function fetchUnderPolicy(
  url: string,
  filename: string,
  policy: DownloadPolicy,
  doFetch: typeof globalThis.fetch,
  signal: AbortSignal | undefined,
): Promise<Response> {
  const maxRedirects = policy.maxRedirects ?? 3;
  let current = url;
  for (let hop = 0; ; hop += 1) {
    const refusal = downloadRefusal(current, policy);
    if (refusal) throw new FileOutputDownloadRefusedError(filename, originOf(current), refusal);
    const response = await doFetch(current, {
      method: "GET",
      redirect: "manual",
      signal: signal ?? null,
    });
    if (response.status < 300 || response.status >= 400 || response.status === 304) return response;
    const location = response.headers.get("location");
    await response.body?.cancel();
    if (!location) return new Response(null, { status: response.status });
    if (hop >= maxRedirects)
      throw new FileOutputDownloadRefusedError(
        filename,
        originOf(current),
        `more than ${maxRedirects} redirects`,
      );
    current = new URL(location, current).href;
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "an unreadable URL";
  }
}
