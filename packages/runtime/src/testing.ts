// Conformance suites a store package runs against its own engine (vitest).
export type { LaunchJournalHarness } from "./testing/launch-journal-conformance.js";
export { describeLaunchJournalConformance } from "./testing/launch-journal-conformance.js";
