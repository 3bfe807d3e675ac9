// @wfr/definition-reader: what the generator, the emulator, the MCP tools
// and the CLI share when they read a definition.
export {
  escapePointerToken,
  formatJsonPointer,
  JsonPointerError,
  parseFragmentPointer,
  parseJsonPointer,
  resolveJsonPointer,
} from "./json-pointer.js";
export { isNullOnlySchema, nullableAsJsonSchema, splitNullType } from "./nullable.js";
export {
  ANNOTATION_KEYWORDS,
  DRAFT4_UNSUPPORTED_KEYWORDS,
  isConstraining,
  UNSUPPORTED_KEYWORDS,
  type UnsupportedKeyword,
} from "./schema-keywords.js";
