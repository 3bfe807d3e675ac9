// @wfr/testing: test your own code that calls the Workflow Run API, and the conformance suites
// every shared store must pass.
export {
  type ConformanceOptions,
  verifyCallbackEventStore,
} from "./callback-event-store-conformance.js";
export { type LaunchJournalUnderTest, verifyLaunchJournal } from "./launch-journal-conformance.js";
export {
  type CheckpointStep,
  fileOutput,
  type RecordingBehaviour,
  ScenarioBuilder,
  type ScenarioFailStatus,
  type ScenarioJson,
  scenario,
} from "./scenario-builder.js";
export {
  createTestEnvironment,
  type Scope,
  type TestEnvironment,
  TestEnvironmentError,
  type TestEnvironmentOptions,
} from "./test-environment.js";
export {
  type EmulatorEvents,
  TimeSkippingClock,
  type VirtualTimeSource,
} from "./time-skipping-clock.js";
