// The listener's signature verdict, from the runtime's Standard Webhooks
// verifier (`webhook-id`, `webhook-timestamp`, `webhook-signature`, v1 HMAC,
// several signatures, constant-time compare, +-5 minute tolerance).
import { verifyStandardWebhook } from "@wfr/runtime";

export type SignatureVerdict = "valid" | "invalid" | "unsigned" | "not-checked";

export async function verifyWebhookSignature(
  secret: string | undefined,
  headers: {
    id?: string | undefined;
    timestamp?: string | undefined;
    signature?: string | undefined;
  },
  body: string,
): Promise<SignatureVerdict> {
  if (secret === undefined) return "not-checked";
  if (!headers.id || !headers.timestamp || !headers.signature) return "unsigned";
  const verified = await verifyStandardWebhook({
    secret,
    headers: new Headers({
      "webhook-id": headers.id,
      "webhook-timestamp": headers.timestamp,
      "webhook-signature": headers.signature,
    }),
    body: new TextEncoder().encode(body),
  });
  return verified.ok ? "valid" : "invalid";
}
