// Strict validation of launch `inputs` against a workflow's declared input schema.
// Spec "Input value types": values must have the declared JSON type; no automatic conversion.
// Spec "Errors": details lists affected fields with reason INVALID_TYPE, REQUIRED or UNKNOWN_INPUT.
import { isObject } from "./json-text.js";
import type { JsonSchema } from "./types.js";

export type Reason = "INVALID_TYPE" | "REQUIRED" | "UNKNOWN_INPUT";

export interface Detail {
  field: string;
  reason: Reason;
  message: string;
}

export interface FileRefUse {
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

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  return ka.every((k) =>
    deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}

/**
 * `v` is a whole multiple of `m`, tolerating binary rounding (0.3 is a
 * multiple of 0.1). The generated validators use the same rule.
 */
export function isMultipleOf(v: number, m: number): boolean {
  const q = v / m;
  return Math.abs(q - Math.round(q)) <= 1e-9 * Math.max(1, Math.abs(q));
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function validDate(y: number, m: number, d: number): boolean {
  const dt = new Date(Date.UTC(y, m - 1, d));
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === m - 1 && dt.getUTCDate() === d;
}

export function checkFormat(format: string, v: string): boolean {
  switch (format) {
    case "date": {
      const m = DATE.exec(v);
      return m !== null && validDate(Number(m[1]), Number(m[2]), Number(m[3]));
    }
    case "date-time": {
      const m = DATE_TIME.exec(v);
      return (
        m !== null &&
        validDate(Number(m[1]), Number(m[2]), Number(m[3])) &&
        Number(m[4]) < 24 &&
        Number(m[5]) < 60 &&
        Number(m[6]) < 61
      );
    }
    case "email":
      return EMAIL.test(v);
    case "uri":
      if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(v)) return false;
      try {
        new URL(v);
        return true;
      } catch {
        return false;
      }
    default:
      return true;
  }
}

class Walker {
  details: Detail[] = [];
  fileRefs: FileRefUse[] = [];

  fail(field: string, reason: Reason, message: string): undefined {
    this.details.push({ field, reason, message });
    return undefined;
  }

  /** Validate `v` at `path`; returns the value with defaults applied. */
  check(schema: JsonSchema, v: unknown, path: string): unknown {
    if (!isObject<JsonSchema>(schema)) return v;
    if (schema.$ref === FILE_REFERENCE_REF) return this.fileRef(v, path);
    if (schema["x-input-type"] === "file" && !schema.type) return this.fileRef(v, path);
    const branches: JsonSchema[] | undefined = schema.anyOf ?? schema.oneOf;
    if (Array.isArray(branches)) return this.union(schema, branches, v, path);
    if (Array.isArray(schema.allOf)) {
      let out = v;
      for (const s of schema.allOf) out = this.check(s, out, path);
      return out;
    }
    let types: string[] | undefined = typeof schema.type === "string" ? [schema.type] : schema.type;
    if (types && schema.nullable === true && !types.includes("null")) types = [...types, "null"];
    const actual = jsonType(v);
    if (types) {
      const ok = types.some((t) =>
        t === "number" ? actual === "number" || actual === "integer" : t === actual,
      );
      if (!ok) {
        return this.fail(
          path,
          "INVALID_TYPE",
          `expected ${types.join(" or ")}, got ${describe(v)}${typeof v === "string" && types.some((t) => t !== "string") ? " (no conversion is done)" : ""}`,
        );
      }
    }
    if (Array.isArray(schema.enum) && !schema.enum.some((e: unknown) => deepEqual(e, v))) {
      return this.fail(
        path,
        "INVALID_TYPE",
        `must be one of ${schema.enum.map((e: unknown) => JSON.stringify(e)).join(", ")}`,
      );
    }
    if (schema.const !== undefined && !deepEqual(schema.const, v)) {
      return this.fail(path, "INVALID_TYPE", `must be ${JSON.stringify(schema.const)}`);
    }
    if (typeof v === "string") return this.string(schema, v, path);
    if (typeof v === "number") return this.number(schema, v, path);
    if (Array.isArray(v)) return this.array(schema, v, path);
    if (isObject(v)) return this.object(schema, v, path);
    return v;
  }

  union(schema: JsonSchema, branches: JsonSchema[], v: unknown, path: string): unknown {
    if (v === null && schema.nullable === true) return v;
    let best: Walker | undefined;
    for (const b of branches) {
      const w = new Walker();
      const out = w.check(b, v, path);
      if (w.details.length === 0) {
        this.fileRefs.push(...w.fileRefs);
        return out;
      }
      if (!best || w.details.length < best.details.length) best = w;
    }
    if (best && best.details.length === 1 && best.details[0]?.field !== path) {
      this.details.push(...best.details);
      return undefined;
    }
    return this.fail(path, "INVALID_TYPE", `${describe(v)} matches none of the allowed shapes`);
  }

  fileRef(v: unknown, path: string): unknown {
    // Spec "Input value types": File = object {attachment_id}, never a path or filename string.
    if (!isObject(v)) {
      return this.fail(
        path,
        "INVALID_TYPE",
        `expected a file reference {"attachment_id": "..."}, got ${describe(v)}`,
      );
    }
    const keys = Object.keys(v);
    if (typeof v.attachment_id !== "string" || keys.some((k) => k !== "attachment_id")) {
      return this.fail(
        path,
        "INVALID_TYPE",
        'expected a file reference {"attachment_id": "..."} with a string id and no other keys',
      );
    }
    this.fileRefs.push({ field: path, attachment_id: v.attachment_id });
    return { attachment_id: v.attachment_id };
  }

  string(schema: JsonSchema, v: string, path: string): unknown {
    if (typeof schema.maxLength === "number" && [...v].length > schema.maxLength) {
      return this.fail(path, "INVALID_TYPE", `longer than ${schema.maxLength} characters`);
    }
    if (typeof schema.minLength === "number" && [...v].length < schema.minLength) {
      return this.fail(path, "INVALID_TYPE", `shorter than ${schema.minLength} characters`);
    }
    if (typeof schema.format === "string" && !checkFormat(schema.format, v)) {
      return this.fail(path, "INVALID_TYPE", `not a valid ${schema.format}`);
    }
    if (typeof schema.pattern === "string") {
      try {
        if (!new RegExp(schema.pattern, "u").test(v)) {
          return this.fail(path, "INVALID_TYPE", `does not match ${schema.pattern}`);
        }
      } catch {
        /* an unusable pattern constrains nothing */
      }
    }
    return v;
  }

  number(schema: JsonSchema, v: number, path: string): unknown {
    if (typeof schema.minimum === "number" && v < schema.minimum) {
      return this.fail(path, "INVALID_TYPE", `less than ${schema.minimum}`);
    }
    if (typeof schema.maximum === "number" && v > schema.maximum) {
      return this.fail(path, "INVALID_TYPE", `greater than ${schema.maximum}`);
    }
    // OpenAPI 3.1 numeric form, and 3.0's boolean form next to minimum/maximum.
    const exclusiveMinimum =
      schema.exclusiveMinimum === true ? schema.minimum : schema.exclusiveMinimum;
    if (typeof exclusiveMinimum === "number" && v <= exclusiveMinimum) {
      return this.fail(path, "INVALID_TYPE", `not greater than ${exclusiveMinimum}`);
    }
    const exclusiveMaximum =
      schema.exclusiveMaximum === true ? schema.maximum : schema.exclusiveMaximum;
    if (typeof exclusiveMaximum === "number" && v >= exclusiveMaximum) {
      return this.fail(path, "INVALID_TYPE", `not less than ${exclusiveMaximum}`);
    }
    if (
      typeof schema.multipleOf === "number" &&
      schema.multipleOf > 0 &&
      !isMultipleOf(v, schema.multipleOf)
    ) {
      return this.fail(path, "INVALID_TYPE", `not a multiple of ${schema.multipleOf}`);
    }
    return v;
  }

  array(schema: JsonSchema, v: unknown[], path: string): unknown {
    if (typeof schema.maxItems === "number" && v.length > schema.maxItems) {
      return this.fail(path, "INVALID_TYPE", `more than ${schema.maxItems} items`);
    }
    if (typeof schema.minItems === "number" && v.length < schema.minItems) {
      return this.fail(path, "INVALID_TYPE", `fewer than ${schema.minItems} items`);
    }
    if (
      schema.uniqueItems === true &&
      v.some((a, i) => v.slice(0, i).some((b) => deepEqual(a, b)))
    ) {
      return this.fail(path, "INVALID_TYPE", "items are not unique");
    }
    if (!schema.items) return v;
    return v.map((item, i) => this.check(schema.items, item, `${path}[${i}]`));
  }

  object(schema: JsonSchema, v: Record<string, unknown>, path: string): unknown {
    const props: Record<string, JsonSchema> = isObject<JsonSchema>(schema.properties)
      ? schema.properties
      : {};
    const required: string[] = Array.isArray(schema.required) ? schema.required : [];
    if (!schema.properties && !schema.required && schema.additionalProperties === undefined) {
      return v; // free-form object (json inputs): accepted as it is
    }
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v)) {
      const field = childPath(path, key);
      if (Object.hasOwn(props, key)) {
        setOwn(out, key, this.check(props[key], v[key], field));
      } else if (schema.additionalProperties === false) {
        this.fail(field, "UNKNOWN_INPUT", "not a declared input of this workflow");
      } else {
        const extra = isObject<JsonSchema>(schema.additionalProperties)
          ? this.check(schema.additionalProperties, v[key], field)
          : v[key];
        setOwn(out, key, extra);
      }
    }
    for (const key of Object.keys(props)) {
      if (Object.hasOwn(v, key)) continue;
      const p = props[key];
      // definition-format.md: a field with a saved default is not required; the default applies.
      if (isObject<JsonSchema>(p) && p.default !== undefined) {
        setOwn(out, key, structuredClone(p.default));
      } else if (required.includes(key)) {
        this.fail(childPath(path, key), "REQUIRED", "required input is missing");
      }
    }
    return out;
  }
}

export function validateInputs(schema: JsonSchema, inputs: unknown): InputValidation {
  const w = new Walker();
  if (inputs === undefined) {
    w.fail("inputs", "REQUIRED", "inputs is required");
    return { ok: false, value: {}, details: w.details, fileRefs: [] };
  }
  if (!isObject(inputs)) {
    w.fail("inputs", "INVALID_TYPE", `inputs must be an object, got ${describe(inputs)}`);
    return { ok: false, value: {}, details: w.details, fileRefs: [] };
  }
  const value = w.check(schema, inputs, "") as Record<string, unknown>;
  return {
    ok: w.details.length === 0,
    value: value ?? {},
    details: w.details,
    fileRefs: w.fileRefs,
  };
}
