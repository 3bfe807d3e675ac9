// The JSON Schema keywords as wfr reads them in definitions: the one list
// the generator (it refuses these with `file#pointer`) and the emulator (it
// refuses the same definitions) share, so both read the same set.

/**
 * Keywords wfr does not support in input and output schemas: no TypeScript
 * type or input rule in the generated code expresses them, so a definition
 * that uses one is refused, naming it, rather than read without it.
 */
export const UNSUPPORTED_KEYWORDS = [
  // Not a 2020-12 keyword (3.1 writes the rest of a tuple as `items` beside `prefixItems`).
  "additionalItems",
  "unevaluatedProperties",
  "unevaluatedItems",
  "$dynamicRef",
  "$dynamicAnchor",
  "$recursiveRef",
  "$recursiveAnchor",
  "$anchor",
  "$id",
  "$vocabulary",
] as const;

export type UnsupportedKeyword = (typeof UNSUPPORTED_KEYWORDS)[number];

/**
 * OpenAPI 3.0 schemas are draft 4: its `$id` (`id`) is refused too, its tuples are `items` as a
 * list with `additionalItems` for the rest, and `prefixItems` and `contains` (later drafts) are not
 * among its keywords.
 */
export const DRAFT4_UNSUPPORTED_KEYWORDS = [
  ...UNSUPPORTED_KEYWORDS.filter((k) => k !== "additionalItems"),
  "id",
  "prefixItems",
  "contains",
  "minContains",
  "maxContains",
] as const;

/**
 * A `$id` (draft 4: `id`) that is only a fragment (`#`, `#name`,
 * `#/properties/a`, as schema generators write them): it leaves the base URI
 * as it is, so no `$ref` resolves otherwise (a `$ref` is a JSON pointer or a
 * file beside the definition; one by a name is refused), and it is read as the
 * annotation it then is. Any other `$id` would change what a `$ref` names.
 */
export function isFragmentId(value: unknown): boolean {
  return typeof value === "string" && value.startsWith("#");
}

/** Whether `schema` uses `keyword` the way wfr refuses it (a fragment-only `$id`/`id` is read). */
export function usesRefusedKeyword(schema: Record<string, unknown>, keyword: string): boolean {
  if (!Object.hasOwn(schema, keyword)) return false;
  return !((keyword === "$id" || keyword === "id") && isFragmentId(schema[keyword]));
}

/**
 * Keywords that describe a value without constraining it: they apply beside
 * a `$ref` in any OpenAPI version (3.0 ignores the constraining ones).
 */
export const ANNOTATION_KEYWORDS: ReadonlySet<string> = new Set([
  "description",
  "title",
  "default",
  "example",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$comment",
  "discriminator",
  "externalDocs",
  "xml",
  "contentMediaType",
  "contentEncoding",
  "contentSchema",
]);

/** Whether a keyword constrains values (anything but an annotation or an `x-` extension). */
export function isConstraining(keyword: string): boolean {
  return !ANNOTATION_KEYWORDS.has(keyword) && !keyword.startsWith("x-");
}
