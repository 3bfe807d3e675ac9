// Conformance suites a store package runs against its own engine (vitest).

export type { CallbackEventStoreHarness } from "./testing/callback-event-store-conformance.js";
export { describeCallbackEventStoreConformance } from "./testing/callback-event-store-conformance.js";
export type { LaunchJournalHarness } from "./testing/launch-journal-conformance.js";
export { describeLaunchJournalConformance } from "./testing/launch-journal-conformance.js";
