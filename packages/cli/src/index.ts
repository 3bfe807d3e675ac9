export { type FieldModel, readEnvironmentModel, type WorkflowModel } from "./adapters/codegen.js";
export { resolveApiKey } from "./api-key.js";
export { CliError } from "./cli-error.js";
export {
  type EnvironmentConfig,
  loadConfig,
  parseConfig,
  pickEnvironment,
  type WfrConfig,
} from "./config.js";
export { EXIT, type ExitCode, exitCodeForApiError } from "./exit-codes.js";
export { findWorkflow, parseFieldValue } from "./input-values.js";
export { main } from "./program.js";
