// The store interfaces the runtime defines; the package implements them and
// imports nothing else from the runtime.
export type {
  LaunchIntent,
  LaunchIntentState,
  LaunchJournal,
  ListUnacknowledgedOptions,
  NewLaunchIntent,
} from "@wfr/runtime";
export { LaunchJournalInvariantError } from "@wfr/runtime";

/** What a claim found. */
export type CallbackClaim =
  | { readonly outcome: "claimed"; readonly fence: string }
  | { readonly outcome: "processing"; readonly retryAfterMs: number }
  | { readonly outcome: "done" };

export interface CallbackEventStore {
  claim(eventId: string, leaseMs: number): Promise<CallbackClaim>;
  complete(eventId: string, fence: string): Promise<boolean>;
  release(eventId: string, fence: string): Promise<boolean>;
}
