export { type EnvironmentConfig, parseConfig, type WfrConfig } from "./config.js";
export { EXIT, type ExitCode, exitCodeForApiError } from "./exit-codes.js";
export { main } from "./program.js";
