// Real PostgreSQL and Redis servers for tests and benchmarks: each on a free
// loopback port in a temporary directory, stopped and removed by its owner; and the probe that
// measures what an input at ten times its budget costs a server in a process of its own
// (docs/limits.md), shared by every package whose surfaces have a budget.

export {
  type Answer,
  filler,
  KiB,
  MEMORY_RESOLUTION,
  MiB,
  memoryTarget,
  oversizedTotal,
  peakGrowth,
  streamTo,
} from "./budget-probe.js";
export {
  type ClaimRaceOptions,
  type ClaimRaceReport,
  exactlyOnceProblems,
  runClaimRace,
  STANDARD_RACE,
} from "./claim-race.js";
export { freePort, waitUntil } from "./ports.js";
export { findPostgresBin, type PostgresServer, startPostgresServer } from "./postgres-server.js";
export {
  findRedisServer,
  type RedisServer,
  type StartRedisOptions,
  startRedisServer,
} from "./redis-server.js";
