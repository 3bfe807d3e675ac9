// A definition is read in one dialect: JSON Schema 2020-12 in OpenAPI 3.1,
// draft 4 in 3.0. A nested `$schema` that only restates that dialect changes
// nothing and is read; one that names another dialect would change what
// keywords mean inside it, and is refused at its pointer.

/** The `$schema` URIs that name each dialect (with or without an empty fragment). */
const DIALECT_URIS: Readonly<Record<"2020-12" | "draft-04", readonly string[]>> = {
  "2020-12": [
    "https://json-schema.org/draft/2020-12/schema",
    "https://spec.openapis.org/oas/3.1/dialect/base",
  ],
  "draft-04": ["http://json-schema.org/draft-04/schema"],
};

/** Why a schema's `$schema` cannot be read in `dialect`, or undefined when it restates it (or is absent). */
export function foreignDialect(
  schema: Record<string, unknown>,
  dialect: "2020-12" | "draft-04",
): string | undefined {
  if (!Object.hasOwn(schema, "$schema")) return undefined;
  const uri = schema.$schema;
  const known = DIALECT_URIS[dialect];
  if (typeof uri === "string" && known.includes(uri.replace(/#$/, ""))) return undefined;
  return `\`$schema\` ${JSON.stringify(uri)} names another dialect than the definition's (${known[0]}): a definition is read in one dialect, so a nested \`$schema\` may only restate it`;
}
