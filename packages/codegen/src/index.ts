export { main } from "./cli.js";
export { type CodegenConfig, readConfig } from "./config.js";
export { DefinitionError } from "./definition-error.js";
export {
  type DiffChange,
  type DiffChangeKind,
  type DiffOptions,
  type DiffReport,
  type DiffSeverity,
  type DiffSide,
  diffEnvironments,
} from "./diff.js";
export { type DiffCatalogueEntry, diffCatalogue } from "./diff-catalogue.js";
export {
  type DefinitionReader,
  type DiffDefinitionsOptions,
  DiffInputError,
  diffDefinitions,
} from "./diff-definitions.js";
export { type DiffFormat, formatDiff } from "./diff-format.js";
export { emit, type GeneratedFiles } from "./emit/emit.js";
export { DEFAULT_REGENERATE_COMMAND } from "./emit/header.js";
export { commentLines, docComment, jsonLiteral, propertyKey, stringLiteral } from "./escape.js";
export { CODEGEN_EXIT } from "./exit-codes.js";
export {
  buildFiles,
  check,
  type GenerateOptions,
  type GenerateResult,
  generate,
} from "./generate.js";
export {
  describeGenerateOutcome,
  type GenerateOutcome,
  type GenerateProblem,
  type GenerateProjectOptions,
  generateProject,
} from "./generate-project.js";
export { type IdentifierLock, LOCK_FILE } from "./identifier-lock.js";
export {
  assignIdentifiers,
  baseIdentifier,
  IdentifierError,
  idSuffix,
  pascalCase,
  RESERVED_WORDS,
} from "./identifiers.js";
export type { EnvironmentModel, FieldKind, FieldModel, WorkflowModel } from "./model.js";
export { type ReadOptions, readDefinition, readSchemas } from "./read-definition.js";
export {
  type CheckResult,
  checkOutput,
  listFiles,
  type WriteReport,
  writeOutput,
} from "./write-output.js";
