// PROVISIONAL (stores branch): a copy of the receiver's lease-based
// CallbackEventStore contract (runtime hardening branch), until they merge.

export type CallbackClaim =
  | { readonly outcome: "claimed"; readonly token: number; readonly leaseExpiresAt: number }
  | { readonly outcome: "processing"; readonly leaseExpiresAt: number }
  | { readonly outcome: "done" };

export interface LeasedCallbackEventStore {
  claim(eventId: string, leaseMs: number): Promise<CallbackClaim>;
  complete(eventId: string, token: number): Promise<boolean>;
  release(eventId: string, token: number): Promise<boolean>;
}
