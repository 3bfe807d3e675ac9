export { apiKeyVariable, baseUrlVariable } from "./environment-variables.js";
export * from "./error-codes.js";
export * from "./http.js";
export { memberOf, named } from "./named.js";
export * from "./run-status.js";
