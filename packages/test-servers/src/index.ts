// Real PostgreSQL and Redis servers for tests and benchmarks: each on a free
// loopback port in a temporary directory, stopped and removed by its owner.

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
