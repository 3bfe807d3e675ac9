// The store interfaces the runtime defines; the package implements them and
// imports nothing else from the runtime.
export type {
  CallbackEventStore,
  ClaimResult as CallbackClaim,
  CompletedWithin,
  LaunchIntent,
  LaunchIntentState,
  LaunchJournal,
  ListUnacknowledgedOptions,
  NewLaunchIntent,
  TransactionalCallbackEventStore,
} from "@wfr/runtime";
export { LaunchJournalInvariantError } from "@wfr/runtime";
