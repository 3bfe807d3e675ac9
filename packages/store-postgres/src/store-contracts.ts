// The store interfaces the runtime defines; the package implements them and
// imports nothing else from the runtime.
export type {
  CallbackClaim,
  LaunchIntent,
  LaunchIntentState,
  LaunchJournal,
  LeasedCallbackEventStore as CallbackEventStore,
  ListUnacknowledgedOptions,
  NewLaunchIntent,
} from "@wfr/runtime";
export { LaunchJournalInvariantError } from "@wfr/runtime";
