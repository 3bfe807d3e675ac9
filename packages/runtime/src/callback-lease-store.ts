// PROVISIONAL (stores branch): the lease-based store contract the shared
// stores implement; reconciled with the receiver's CallbackEventStore.

/** What a claim found. */
export type CallbackClaim =
  | { readonly outcome: "claimed"; readonly fence: string }
  | { readonly outcome: "processing"; readonly retryAfterMs: number }
  | { readonly outcome: "done" };

export interface LeasedCallbackEventStore {
  claim(eventId: string, leaseMs: number): Promise<CallbackClaim>;
  complete(eventId: string, fence: string): Promise<boolean>;
  release(eventId: string, fence: string): Promise<boolean>;
}
