// The normalized model: the one reading of a per-environment definition that
// every emitter and the breaking-change diff work from. Nothing downstream
// of the reader looks at OpenAPI again.

/** The kind of one input or output field, after `$ref`, nullability and `x-input-type` are resolved. */
export type FieldKind =
  | "text"
  | "number"
  | "integer"
  | "boolean"
  | "json"
  | "file"
  | "files"
  | "object"
  | "array"
  | "enum"
  /** `oneOf` / `anyOf` of different schemas, or `type: [A, B]`: a value matches one of `variants`. */
  | "union"
  /** A schema the reader could not narrow (for example an output declared as `{}`): any JSON value. */
  | "unknown"
  /** The `false` schema (or an `enum`/`const` of only `null`, with `nullable`): no value. */
  | "never"
  /** Several schemas that must all hold (`type` beside `oneOf`, an `allOf` that cannot be merged): `variants`. */
  | "all"
  /** A recursive `$ref`: the value is one of the workflow's `recursiveTypes`, named `ref`. */
  | "ref";

/** A JSON value allowed by `enum` or `const` (a top-level `null` makes the field nullable instead). */
export type EnumValue =
  | string
  | number
  | boolean
  | null
  | readonly EnumValue[]
  | { readonly [key: string]: EnumValue };

export interface FieldModel {
  /** The name on the wire, exactly as in the definition. */
  readonly name: string;
  readonly kind: FieldKind;
  /** Whether the caller must send it (inputs) or the service always returns it (outputs). */
  readonly required: boolean;
  readonly nullable: boolean;
  /** True when the definition has a saved `default` (such an input is optional for the caller). */
  readonly hasDefault: boolean;
  readonly default?: unknown;
  /** `format` of a text field (`date`, `date-time`, `email`, `uri`, ...). */
  readonly format?: string;
  readonly description?: string;
  /** Allowed values, for kind `enum` (never empty; `const` is an enum of one value). Objects and arrays are compared as JSON. */
  readonly enumValues?: readonly EnumValue[];
  /** The JSON type of the enum values, for kind `enum` (`json` when they are objects, arrays or of mixed types). */
  readonly enumBase?: "text" | "number" | "integer" | "boolean" | "json";
  readonly maxLength?: number;
  readonly minLength?: number;
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly multipleOf?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
  readonly minProperties?: number;
  readonly maxProperties?: number;
  /** Properties, for kind `object`, in definition order. */
  readonly fields?: readonly FieldModel[];
  /** Whether an object accepts undeclared keys (`additionalProperties` not false). */
  readonly additionalProperties?: boolean;
  /**
   * For kind `object`: the schema of every value not in `fields`
   * (`additionalProperties: <schema>`; without fields, a map); absent for a
   * free-form JSON object (`{type: object}` or `additionalProperties: true`).
   * Its `name` is "{}".
   */
  readonly values?: FieldModel;
  /**
   * For kind `object`: `patternProperties`, in definition order: the schema
   * of every value whose key matches `pattern` (ECMA-262 with the `u` flag),
   * declared or not; a key no pattern matches and `fields` does not list is
   * left to `values` / `additionalProperties`. Each `field.name` is "{}".
   */
  readonly patternValues?: readonly { readonly pattern: string; readonly field: FieldModel }[];
  /** For kind `object`: `propertyNames`, the schema every key (a string) must match; its `name` is "{}". */
  readonly propertyNames?: FieldModel;
  /**
   * Rules on the whole value that no TypeScript type expresses (`not`,
   * `if`/`then`/`else`, `dependentRequired`, `dependentSchemas`, draft 4's
   * `dependencies`, `contains`), checked by the input validator; the type stays as wide
   * as the field's kind. Each schema's `name` is "|".
   */
  readonly conditions?: readonly FieldCondition[];
  /**
   * For kind `array`, a tuple: the schema of each leading item, by position
   * (`prefixItems`, draft 4's `items` as a list); `items` is then the schema
   * of the items after them (absent: any). Each `name` is "[]".
   */
  readonly prefixItems?: readonly FieldModel[];
  /** Element schema, for kind `array` (its `name` is "[]"). */
  readonly items?: FieldModel;
  /** The alternatives, for kind `union`, or the parts, for kind `all` (each `name` is "|"), in definition order; at least two. */
  readonly variants?: readonly FieldModel[];
  /** For kind `union`: `oneOf` (exactly one variant may match) rather than `anyOf` or a type list. */
  readonly exclusive?: boolean;
  /** For kind `ref`: the `name` of the workflow's recursive type (same side) the value has. */
  readonly ref?: string;
  /** JSON pointer of the field's schema in the source definition, for error messages. */
  readonly pointer: string;
}

/**
 * A schema that contains itself through a `$ref` (a tree, a linked list): read once, under a
 * name, and referred to by fields of kind `ref`, so the model stays a tree while the data it
 * describes may nest (as deep as the value nesting limit, docs/definition-format.md#schema-nesting).
 */
export interface RecursiveType {
  /** The TypeScript type's name (unique in the workflow's modules), also the `ref` of the fields that use it. */
  readonly name: string;
  readonly side: Side;
  /** The schema, read as a field named "|" (required, no key of its own). */
  readonly field: FieldModel;
}

/** One rule of `FieldModel.conditions`. */
export type FieldCondition =
  /** `not`: the value must not be valid for `schema`. */
  | { readonly kind: "not"; readonly schema: FieldModel }
  /** `if`/`then`/`else`: `then` must hold when `if` does, `else` when it does not. */
  | {
      readonly kind: "if";
      readonly ifSchema: FieldModel;
      readonly thenSchema?: FieldModel;
      readonly elseSchema?: FieldModel;
    }
  /** `dependentRequired` (and a draft 4 `dependencies` list): when `key` is there, so are `names`. */
  | { readonly kind: "dependentRequired"; readonly key: string; readonly names: readonly string[] }
  /** `dependentSchemas` (and a draft 4 `dependencies` schema): when `key` is there, the object holds `schema`. */
  | { readonly kind: "dependentSchema"; readonly key: string; readonly schema: FieldModel }
  /** `contains` with `minContains` (default 1) / `maxContains`: how many items of an array hold `schema`. */
  | {
      readonly kind: "contains";
      readonly schema: FieldModel;
      readonly min: number;
      readonly max?: number;
    };

export interface WorkflowModel {
  /** `x-workflow.id`, the literal workflowId. */
  readonly id: string;
  /** `x-workflow.name`, any Unicode. */
  readonly name: string;
  /** The unique, stable camelCase identifier made from `name` (the key in `workflows`). */
  readonly identifier: string;
  readonly state: "enabled" | "draft" | "disabled";
  readonly revision: number;
  /** Whether this environment's launch body declares `model` for this workflow. */
  readonly modelExposed: boolean;
  /**
   * The `model` values this environment's launch body allows for this
   * workflow (its `enum`), in definition order; absent when `model` is not
   * exposed or the definition does not list them (then any model name).
   */
  readonly modelValues?: readonly string[];
  readonly description?: string;
  /** Input fields, in definition order. */
  readonly inputs: readonly FieldModel[];
  /** Output fields, in definition order. */
  readonly outputs: readonly FieldModel[];
  /** Whether the outputs object declares `additionalProperties: false`. */
  readonly outputsClosed: boolean;
  /** The recursive schemas the inputs and outputs refer to (kind `ref`), in the order first met; absent when none. */
  readonly recursiveTypes?: readonly RecursiveType[];
  /** JSON pointer of the launch operation in the source definition. */
  readonly pointer: string;
}

export interface EnvironmentModel {
  /** `info.x-environment`, or the folder name under `schemas/`. */
  readonly name: string;
  /** `info.x-workspace`, when the definition has it. */
  readonly workspace: string | null;
  /** `servers[0].url`, ending in `/api/v1`. */
  readonly baseUrl: string;
  /** Path of the definition file, relative to the schemas folder, with forward slashes. */
  readonly sourceFile: string;
  /** SHA-256 (hex) of the definition file's bytes. */
  readonly sourceHash: string;
  /** Workflows, sorted by id. */
  readonly workflows: readonly WorkflowModel[];
}

/** Which way a field travels: an input the caller sends, an output the caller reads. */
export type Side = "input" | "output";
