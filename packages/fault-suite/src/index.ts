// wfr's fault suite (README.md): a seeded TCP fault proxy in front of the emulator, PostgreSQL
// and Redis restarted and receivers and launchers killed mid-burst, lost and duplicated side
// effects counted through the emulator's admin API.
export { callbackBurst, spread } from "./callback-burst.js";
export { completedByRun, type EventDelivery, settlementStep } from "./deliveries.js";
export { type FaultProxy, startFaultProxy } from "./fault-proxy.js";
export {
  FAULT_LABELS,
  freshSeed,
  NETWORK_FAULTS,
  type NetworkFault,
  planFor,
  seededRandom,
} from "./fault-schedule.js";
export { startRoundRobin } from "./round-robin.js";
export { CI_SIZE, LONG_SIZE, runFaultSuite, type SuiteReport, type SuiteSize } from "./suite.js";
export { allHeld, type FaultRow, renderTable } from "./tally.js";
