// OpenAPI 3.0's `nullable` and 3.1's `type: [..., "null"]`, read one way by
// every reader: the generator turns them into `| null`, the emulator hands
// Ajv the JSON Schema form.

type Schema = Record<string, unknown>;

/**
 * A schema's null allowance apart from the rest: `nullable: true` (3.0) or
 * `"null"` in a `type` list (3.1) makes it nullable, and `"null"` leaves the
 * list (a single remaining type is read as that type). Other keywords,
 * `nullable` included, are kept as they are.
 */
export function splitNullType(schema: Schema): { schema: Schema; nullable: boolean } {
  let nullable = schema.nullable === true;
  if (Array.isArray(schema.type) && schema.type.includes("null")) {
    nullable = true;
    const rest = schema.type.filter((t) => t !== "null");
    return { schema: { ...schema, type: rest.length === 1 ? rest[0] : rest }, nullable };
  }
  return { schema, nullable };
}

/** Whether a schema allows only null: `type: "null"`, or an `enum` of only null. */
export function isNullOnlySchema(node: unknown): boolean {
  if (node === null || typeof node !== "object" || Array.isArray(node)) return false;
  const schema = node as Schema;
  return (
    schema.type === "null" ||
    (Array.isArray(schema.enum) && schema.enum.every((v: unknown) => v === null))
  );
}

/**
 * OpenAPI 3.0's `nullable: true` as JSON Schema: `"null"` joins `type` (and a
 * nullable `enum` gains null, as the generated types say `| null`); without
 * a `type`, the schema becomes `anyOf: [schema, {type: null}]`. A schema
 * without `nullable: true` is returned as it is.
 */
export function nullableAsJsonSchema(schema: Schema): Schema {
  if (schema.nullable !== true) return schema;
  const { nullable: _nullable, ...out } = schema;
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (typeof out.type === "string") return { ...out, type: [out.type, "null"] };
  if (Array.isArray(out.type)) return { ...out, type: [...out.type, "null"] };
  return { anyOf: [out, { type: "null" }] };
}
