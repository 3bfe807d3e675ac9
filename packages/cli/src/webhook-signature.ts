// Standard Webhooks verification (spec "Callbacks"; `webhook-id`,
// `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of
// "id.timestamp.body">`). To be replaced by the runtime's verifier once
// the runtime hardening issue exports one.
import { createHmac, timingSafeEqual } from "node:crypto";

export type SignatureVerdict = "valid" | "invalid" | "unsigned" | "not-checked";

export function verifyWebhookSignature(
  secret: string | undefined,
  headers: { id?: string; timestamp?: string; signature?: string },
  body: string,
): SignatureVerdict {
  if (secret === undefined) return "not-checked";
  if (!headers.id || !headers.timestamp || !headers.signature) return "unsigned";
  const key = secret.startsWith("whsec_")
    ? Buffer.from(secret.slice("whsec_".length), "base64")
    : Buffer.from(secret, "utf8");
  const expected = createHmac("sha256", key)
    .update(`${headers.id}.${headers.timestamp}.${body}`)
    .digest();
  for (const part of headers.signature.split(" ")) {
    const [version, mac] = part.split(",", 2);
    if (version !== "v1" || !mac) continue;
    const given = Buffer.from(mac, "base64");
    if (given.length === expected.length && timingSafeEqual(given, expected)) return "valid";
  }
  return "invalid";
}
