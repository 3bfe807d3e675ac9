// Strict validation of launch `inputs` against a workflow's declared input schema.
// docs/service-rules.md#input-validation: values must have the declared JSON type; no automatic conversion.
// docs/service-rules.md#errors: details lists affected fields with reason INVALID_TYPE, REQUIRED or UNKNOWN_INPUT.

import { INPUT_REASON, type InputReason } from "@wfr/protocol";
import type { ErrorObject, KeywordDefinition, ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { DataValidationCxt } from "ajv/dist/types/index.js";
import DraftFour from "ajv-draft-04";
import { isObject } from "../model/json-text.js";
import type { JsonSchema } from "../model/types.js";
import { ASSERTED_FORMATS } from "./formats.js";

type Reason = InputReason;

export interface Detail {
  field: string;
  reason: Reason;
  message: string;
}

interface FileRefUse {
  field: string;
  attachment_id: string;
}

export interface InputValidation {
  ok: boolean;
  /** The inputs with saved defaults applied (only meaningful when ok). */
  value: Record<string, unknown>;
  details: Detail[];
  fileRefs: FileRefUse[];
}

export const FILE_REFERENCE_REF = "#/components/schemas/FileReference";
export const FILE_OUTPUT_REF = "#/components/schemas/FileOutput";

export { checkFormat } from "./formats.js";

/** Set an own property safely, even for keys such as `__proto__`. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function describe(v: unknown): string {
  const t = jsonType(v);
  return t === "integer" ? "number" : t;
}

function childPath(base: string, key: string): string {
  return base === "" ? key : `${base}.${key}`;
}

/** True when the schema (or one of its anyOf/oneOf branches) references FileReference. */
export function isFileSchema(schema: JsonSchema): boolean {
  if (!isObject<JsonSchema>(schema)) return false;
  if (schema.$ref === FILE_REFERENCE_REF || schema["x-input-type"] === "file") return true;
  const branches = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  return branches.some((b: JsonSchema) => isFileSchema(b));
}

/** Whether any input field (at any depth) carries file references. */
export function declaresFileInput(schema: JsonSchema): boolean {
  if (!isObject<JsonSchema>(schema)) return false;
  if (isFileSchema(schema) || schema["x-input-type"] === "files") return true;
  for (const key of ["properties"]) {
    const props = schema[key];
    if (
      isObject<JsonSchema>(props) &&
      Object.values(props as object).some((p) => declaresFileInput(p))
    )
      return true;
  }
  if (schema.items && declaresFileInput(schema.items)) return true;
  for (const k of ["anyOf", "oneOf", "allOf"]) {
    if (Array.isArray(schema[k]) && schema[k].some((b: JsonSchema) => declaresFileInput(b)))
      return true;
  }
  return false;
}

/** A schema dialect: JSON Schema 2020-12 (OpenAPI 3.1) or draft 4 (OpenAPI 3.0). */
export type SchemaDialect = "2020-12" | "draft-04";

/**
 * `v` is a whole multiple of `m`, tolerating binary rounding (0.3 is a
 * multiple of 0.1). The generated validators use the same rule.
 */
function isMultipleOf(v: number, m: number): boolean {
  const q = v / m;
  return Math.abs(q - Math.round(q)) <= 1e-9 * Math.max(1, Math.abs(q));
}

const FILE_KEYWORD = "x-wfr-file-reference";

/** The file references one validation met, in document order (set while Ajv runs, synchronously). */
let fileRefsSeen: FileRefUse[] = [];

function fileReferenceKeyword(): KeywordDefinition {
  const validate = (_schema: unknown, data: unknown, _parent: unknown, cxt?: DataValidationCxt) => {
    const errors = (message: string) => {
      validate.errors = [{ keyword: FILE_KEYWORD, message, params: {} }];
      return false;
    };
    // docs/service-rules.md#input-validation: File = object {attachment_id}, never a path or filename string.
    if (!isObject(data))
      return errors(`expected a file reference {"attachment_id": "..."}, got ${describe(data)}`);
    if (
      typeof data.attachment_id !== "string" ||
      Object.keys(data).some((k) => k !== "attachment_id")
    )
      return errors(
        'expected a file reference {"attachment_id": "..."} with a string id and no other keys',
      );
    fileRefsSeen.push({
      field: fieldName(cxt?.instancePath ?? "", cxt?.rootData),
      attachment_id: data.attachment_id,
    });
    return true;
  };
  validate.errors = undefined as Partial<ErrorObject>[] | undefined;
  return { keyword: FILE_KEYWORD, schemaType: "boolean", errors: true, validate };
}

// ajv-draft-04 is CommonJS; its class is the module's default export.
const AjvDraft04 = (DraftFour as unknown as { default: typeof Ajv2020 }).default;
type Ajv = InstanceType<typeof Ajv2020>;

function newAjv(dialect: SchemaDialect, fillDefaults: boolean): Ajv {
  const options = {
    strict: false,
    allErrors: true,
    // `__proto__`, `constructor`, ... are fields like any other: never inherited.
    ownProperties: true,
    useDefaults: fillDefaults,
    logger: false,
    formats: ASSERTED_FORMATS,
  } as const;
  const ajv = dialect === "draft-04" ? new AjvDraft04(options) : new Ajv2020(options);
  ajv.addKeyword(fileReferenceKeyword());
  // Binary rounding: 0.3 is a multiple of 0.1, as in the generated validators.
  ajv.removeKeyword("multipleOf");
  ajv.addKeyword({
    keyword: "multipleOf",
    type: "number",
    schemaType: "number",
    validate: (m: number, v: number) => !(m > 0) || isMultipleOf(v, m),
  });
  return ajv;
}

/**
 * Per dialect, the validator that gives the verdict, and one that writes
 * saved defaults into a valid copy (a default is an annotation to JSON
 * Schema: the verdict is taken without it, so an invalid default never
 * fails a launch that left the field out).
 */
type Role = "verdict" | "defaults";
const ajvs = new Map<string, Ajv>();
/** Compiled once per workflow: the inputs schema object is the key. */
const compiled = new Map<string, WeakMap<object, ValidateFunction>>();

const SCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SCHEMA_ONE = [
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "additionalItems",
];

function mapValues(
  value: Record<string, unknown>,
  f: (v: unknown) => unknown,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) setOwn(out, k, f(v));
  return out;
}

/**
 * The schema Ajv compiles: file inputs become the file-reference keyword
 * (the `{attachment_id}` rule of docs/service-rules.md#input-validation, and where the launch's attachments are
 * looked up); in 2020-12, OpenAPI 3.0's boolean `exclusiveMinimum: true`
 * beside `minimum` becomes the numeric form (one reading of both, as in the
 * generated validators).
 */
function prepare(schema: JsonSchema, dialect: SchemaDialect): JsonSchema {
  if (Array.isArray(schema)) return schema.map((s) => prepare(s, dialect));
  if (!isObject<JsonSchema>(schema)) return schema;
  if (isFileSchema(schema) && !Array.isArray(schema.anyOf) && !Array.isArray(schema.oneOf))
    return { [FILE_KEYWORD]: true };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (SCHEMA_MAPS.includes(k) && isObject<JsonSchema>(v))
      setOwn(
        out,
        k,
        mapValues(v, (s) => prepare(s, dialect)),
      );
    else if (SCHEMA_LISTS.includes(k) && Array.isArray(v))
      setOwn(
        out,
        k,
        v.map((s) => prepare(s, dialect)),
      );
    else if (SCHEMA_ONE.includes(k) || k === "items") setOwn(out, k, prepare(v, dialect));
    else if (k === "dependencies" && isObject<JsonSchema>(v))
      setOwn(
        out,
        k,
        mapValues(v, (s) => (Array.isArray(s) ? s : prepare(s, dialect))),
      );
    else setOwn(out, k, v);
  }
  // `enum: []` allows nothing (JSON Schema), but Ajv refuses to compile it.
  if (Array.isArray(out.enum) && out.enum.length === 0) {
    delete out.enum;
    out.not = {};
  }
  // Ajv compiles `properties: {__proto__: ...}` to nothing; a pattern
  // matching exactly that name reads the same (it is never additional).
  if (isObject<JsonSchema>(out.properties) && Object.hasOwn(out.properties, "__proto__")) {
    const { __proto__: proto, ...rest } = out.properties as Record<string, unknown>;
    const patterns: Record<string, unknown> = isObject<JsonSchema>(out.patternProperties)
      ? { ...out.patternProperties }
      : {};
    const existing = patterns["^__proto__$"];
    patterns["^__proto__$"] = existing === undefined ? proto : { allOf: [existing, proto] };
    out.properties = rest;
    out.patternProperties = patterns;
  }
  // docs/definition-format.md: a field with a saved default is not required (the default applies).
  if (Array.isArray(out.required) && isObject<JsonSchema>(schema.properties)) {
    const props = schema.properties as Record<string, unknown>;
    out.required = out.required.filter(
      (name: unknown) =>
        typeof name !== "string" ||
        !Object.hasOwn(props, name) ||
        !isObject<JsonSchema>(props[name]) ||
        !Object.hasOwn(props[name] as object, "default"),
    );
  }
  if (dialect === "2020-12") {
    for (const [exclusive, bound] of [
      ["exclusiveMinimum", "minimum"],
      ["exclusiveMaximum", "maximum"],
    ] as const) {
      if (typeof out[exclusive] !== "boolean") continue;
      if (out[exclusive] === true && typeof out[bound] === "number") {
        out[exclusive] = out[bound];
        delete out[bound];
      } else delete out[exclusive];
    }
  }
  return out;
}

/** The compiled validator of an inputs schema (compiled on first use, then cached). */
function validatorFor(schema: JsonSchema, dialect: SchemaDialect, role: Role): ValidateFunction {
  const name = `${dialect} ${role}`;
  let cache = compiled.get(name);
  if (cache === undefined) {
    cache = new WeakMap();
    compiled.set(name, cache);
  }
  const key = isObject<JsonSchema>(schema) ? schema : { schema };
  const validate = cache.get(key);
  if (validate === undefined) {
    let ajv = ajvs.get(name);
    if (ajv === undefined) {
      ajv = newAjv(dialect, role === "defaults");
      ajvs.set(name, ajv);
    }
    const made = ajv.compile(prepare(schema, dialect));
    cache.set(key, made);
    return made;
  }
  return validate;
}

function decodePointerSegment(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** `a.b[2].c`, the way the service names nested fields, from a JSON pointer into the inputs. */
function fieldName(instancePath: string, data: unknown, extra?: string): string {
  const segments =
    instancePath === "" ? [] : instancePath.slice(1).split("/").map(decodePointerSegment);
  if (extra !== undefined) segments.push(extra);
  let out = "";
  let node = data;
  for (const segment of segments) {
    if (Array.isArray(node)) out += `[${segment}]`;
    else out = childPath(out, segment);
    node =
      isObject(node) || Array.isArray(node)
        ? (node as Record<string, unknown>)[segment]
        : undefined;
  }
  return out;
}

/** Rules about an object's fields (reported at the field), not about the object itself. */
const FIELD_RULES = new Set([
  "required",
  "dependentRequired",
  "dependencies",
  "additionalProperties",
  "unevaluatedProperties",
]);
const COMBINATORS = new Set(["anyOf", "oneOf", "not", "if", "contains", "propertyNames"]);

/** Ajv's errors as the service's details: one per field, the outermost failing rule. */
function detailsOf(errors: readonly ErrorObject[], data: unknown): Detail[] {
  // A failed combinator is one detail at its value; the errors of its branches are not the caller's.
  const failed = errors.filter((e) => COMBINATORS.has(e.keyword)).map((e) => `${e.schemaPath}/`);
  // A value that breaks its own rule (a list too long, a wrong type) is reported once, at the
  // value, not again for what it holds: the service's order, and the generated validators'.
  const broken = errors
    .filter((e) => !FIELD_RULES.has(e.keyword))
    .filter((e) => !failed.some((prefix) => e.schemaPath.startsWith(prefix)))
    .map((e) => `${e.instancePath}/`);
  const details: Detail[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    if (failed.some((prefix) => e.schemaPath.startsWith(prefix))) continue;
    if (broken.some((prefix) => e.instancePath.startsWith(prefix))) continue;
    const params = e.params as Record<string, unknown>;
    let detail: Detail;
    if (
      e.keyword === "required" ||
      e.keyword === "dependentRequired" ||
      e.keyword === "dependencies"
    )
      detail = {
        field: fieldName(e.instancePath, data, String(params.missingProperty)),
        reason: INPUT_REASON.REQUIRED,
        message: "required input is missing",
      };
    else if (e.keyword === "additionalProperties" || e.keyword === "unevaluatedProperties")
      detail = {
        field: fieldName(
          e.instancePath,
          data,
          String(params.additionalProperty ?? params.unevaluatedProperty),
        ),
        reason: INPUT_REASON.UNKNOWN_INPUT,
        message: "not a declared input of this workflow",
      };
    else {
      const value = valueAt(data, e.instancePath);
      detail = {
        field: fieldName(e.instancePath, data),
        reason: INPUT_REASON.INVALID_TYPE,
        message:
          e.keyword === "type"
            ? `expected ${String(params.type).split(",").join(" or ")}, got ${describe(value)}${typeof value === "string" && params.type !== "string" ? " (no conversion is done)" : ""}`
            : e.keyword === "anyOf" || e.keyword === "oneOf"
              ? `${describe(value)} matches ${e.keyword === "oneOf" && (params.passingSchemas ?? null) !== null ? "more than one" : "none"} of the allowed shapes`
              : (e.message ?? "invalid"),
      };
    }
    if (seen.has(detail.field)) continue;
    seen.add(detail.field);
    details.push(detail);
  }
  return details;
}

function valueAt(data: unknown, instancePath: string): unknown {
  if (instancePath === "") return data;
  let node = data;
  for (const segment of instancePath.slice(1).split("/").map(decodePointerSegment))
    node =
      isObject(node) || Array.isArray(node)
        ? (node as Record<string, unknown>)[segment]
        : undefined;
  return node;
}

/**
 * Validates launch `inputs` with Ajv (JSON Schema 2020-12, or draft 4 for
 * OpenAPI 3.0 definitions) and maps its errors to the reason codes of docs/service-rules.md#errors.
 * `value` is a copy with saved defaults applied (docs/definition-format.md: a
 * field with a default is not required).
 */
export function validateInputs(
  schema: JsonSchema,
  inputs: unknown,
  dialect: SchemaDialect = "2020-12",
): InputValidation {
  if (inputs === undefined)
    return {
      ok: false,
      value: {},
      details: [{ field: "inputs", reason: INPUT_REASON.REQUIRED, message: "inputs is required" }],
      fileRefs: [],
    };
  if (!isObject(inputs))
    return {
      ok: false,
      value: {},
      details: [
        {
          field: "inputs",
          reason: INPUT_REASON.INVALID_TYPE,
          message: `inputs must be an object, got ${describe(inputs)}`,
        },
      ],
      fileRefs: [],
    };
  const validate = validatorFor(schema, dialect, "verdict");
  // A copy: the defaults are written into it (the request's own object is left alone).
  const value = JSON.parse(JSON.stringify(inputs)) as Record<string, unknown>;
  fileRefsSeen = [];
  const ok = validate(value) === true;
  const found = fileRefsSeen;
  fileRefsSeen = [];
  if (!ok) return { ok, value: {}, details: detailsOf(validate.errors ?? [], value), fileRefs: [] };
  validatorFor(schema, dialect, "defaults")(value);
  fileRefsSeen = [];
  const fileRefs = found.filter((r, i) => found.findIndex((s) => s.field === r.field) === i);
  return { ok, value, details: [], fileRefs };
}
