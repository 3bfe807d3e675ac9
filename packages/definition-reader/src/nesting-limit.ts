// How deep a definition's schemas may nest, for every reader: the generator,
// the emulator and the MCP tools stop at the same depth with a
// `DefinitionError` at the schema's `file#pointer`, instead of running out of
// stack somewhere inside. The rule: docs/definition-format.md#schema-nesting.

/**
 * The most schemas one input or output may nest inside each other (a
 * property, an item, a map value, an `allOf`/`anyOf`/`oneOf` branch, or the
 * target of a `$ref` is one level below the schema holding it), and the
 * longest chain of `$ref`s to `$ref`s. Real schemas stay under 50; the
 * generated types, validators and TypeScript itself stay far from their
 * own limits at this depth.
 */
export const MAX_SCHEMA_NESTING = 100;

/** The detail of the `DefinitionError` for a schema nested past the limit. */
export function nestingLimitDetail(what: string): string {
  return `${what} nests more than ${MAX_SCHEMA_NESTING} schemas deep; a definition may nest at most ${MAX_SCHEMA_NESTING} (docs/definition-format.md#schema-nesting)`;
}
