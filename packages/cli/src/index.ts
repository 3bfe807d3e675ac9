export { type ExitCode, EXIT, exitCodeForApiError } from "./exit-codes.js";
export { type EnvironmentConfig, parseConfig, type WfrConfig } from "./config.js";
export { main } from "./program.js";
