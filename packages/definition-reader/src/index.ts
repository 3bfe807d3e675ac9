// @wfr/definition-reader: what the generator, the emulator, the MCP tools
// and the CLI share when they read a definition.
export { DefinitionError } from "./definition-error.js";
export { type InlineOptions, inlineRefs } from "./inline-refs.js";
export { sameJson } from "./json-equal.js";
export {
  escapePointerToken,
  formatJsonPointer,
  JsonPointerError,
  parseFragmentPointer,
  parseJsonPointer,
  resolveJsonPointer,
} from "./json-pointer.js";
export { mergeAllOf, type SchemaPart } from "./merge-all-of.js";
export { MAX_SCHEMA_NESTING, nestingLimitDetail } from "./nesting-limit.js";
export { isNullOnlySchema, nullableAsJsonSchema, splitNullType } from "./nullable.js";
export { parseDocument } from "./parse-document.js";
export {
  child,
  decodeUriComponentAt,
  isRecord,
  type Located,
  RefResolver,
  rebaseRefs,
  type SiblingRule,
  standIn,
  standInTarget,
} from "./ref-resolver.js";
export {
  DEFINITION_CONTAINERS,
  IDENTITY_KEYWORDS,
  refuseIdentityInDefinitions,
} from "./schema-definitions.js";
export { foreignDialect } from "./schema-dialect.js";
export {
  ANNOTATION_KEYWORDS,
  DRAFT4_UNSUPPORTED_KEYWORDS,
  isConstraining,
  isFragmentId,
  UNSUPPORTED_KEYWORDS,
  type UnsupportedKeyword,
  usesRefusedKeyword,
} from "./schema-keywords.js";
export { type YamlLibrary, yamlLibrary } from "./yaml-library.js";
