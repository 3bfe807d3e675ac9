// Opt-in Standard Webhooks verification (https://www.standardwebhooks.com):
// the spec does not show how deliveries are signed; this matches what the
// emulator's --webhook-secret sends: `webhook-signature: v1,<base64
// HMAC-SHA256 of "id.timestamp.body">`, secret `whsec_<base64>`.

export interface StandardWebhookHeaders {
  get(name: string): string | null;
}

export type WebhookVerification =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: string };

export interface VerifyStandardWebhookOptions {
  /** One secret, or several during key rotation. `whsec_<base64>`, or raw text. */
  readonly secret: string | readonly string[];
  readonly headers: StandardWebhookHeaders;
  /** The raw body bytes exactly as received. */
  readonly body: Uint8Array;
  /** Allowed clock difference. Default 300 s. */
  readonly toleranceSeconds?: number;
  readonly nowMs?: number;
}

const encoder = new TextEncoder();

function secretBytes(secret: string): Uint8Array {
  if (!secret.startsWith("whsec_")) return encoder.encode(secret);
  const binary = atob(secret.slice("whsec_".length));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

function decodeBase64(text: string): Uint8Array | undefined {
  try {
    const binary = atob(text);
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** Compares every byte whatever differs first, so timing does not reveal the signature. */
function equalConstantTime(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index += 1)
    difference |= (a[index] as number) ^ (b[index] as number);
  return difference === 0;
}

async function hmacSha256(key: Uint8Array, content: Uint8Array): Promise<Uint8Array> {
  const cryptoKey = await crypto.subtle.importKey(
    "raw",
    key as Uint8Array<ArrayBuffer>,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return new Uint8Array(
    await crypto.subtle.sign("HMAC", cryptoKey, content as Uint8Array<ArrayBuffer>),
  );
}

/** Verifies a delivery's Standard Webhooks signature over the raw body bytes. */
export async function verifyStandardWebhook(
  options: VerifyStandardWebhookOptions,
): Promise<WebhookVerification> {
  const id = options.headers.get("webhook-id");
  const timestamp = options.headers.get("webhook-timestamp");
  const signatures = options.headers.get("webhook-signature");
  if (!id || !timestamp || !signatures)
    return { ok: false, reason: "webhook-id, webhook-timestamp or webhook-signature is missing" };
  if (!/^\d+$/.test(timestamp)) return { ok: false, reason: "webhook-timestamp is not a number" };
  const tolerance = options.toleranceSeconds ?? 300;
  const nowSeconds = Math.floor((options.nowMs ?? Date.now()) / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance)
    return { ok: false, reason: "webhook-timestamp is outside the tolerance" };
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const content = new Uint8Array(prefix.length + options.body.length);
  content.set(prefix, 0);
  content.set(options.body, prefix.length);
  const offered = signatures
    .split(" ")
    .filter((part) => part.startsWith("v1,"))
    .map((part) => decodeBase64(part.slice(3)))
    .filter((bytes): bytes is Uint8Array => bytes !== undefined);
  const secrets = typeof options.secret === "string" ? [options.secret] : options.secret;
  for (const secret of secrets) {
    const expected = await hmacSha256(secretBytes(secret), content);
    // Check every offered signature, no early exit on the first mismatch.
    let matched = false;
    for (const signature of offered) matched = equalConstantTime(expected, signature) || matched;
    if (matched) return { ok: true };
  }
  return { ok: false, reason: "no v1 signature matches" };
}
