// Reads one input or output schema into a field of the model: its kind
// (text, number, enum, object, array, union, ...), its nullability, default,
// description and constraints, and the fields nested in it.
import {
  child,
  isConstraining,
  isRecord,
  type Located,
  sameJson,
  standInTarget,
  usesRefusedKeyword,
} from "@wfr/definition-reader";
import type { Side } from "../field-kinds.js";
import type { EnumValue, FieldCondition, FieldKind, FieldModel } from "../model.js";
import { enumBase, jsonTypeOf } from "./enum-values.js";
import { RecursiveTypeReader } from "./recursive-type-reader.js";
import { checkedPattern, valueConstraints } from "./value-constraints.js";

/** Keywords that hold only for values of one JSON type (JSON Schema: other values pass them). */
const TYPED_KEYWORDS = [
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "items",
  "prefixItems",
  "additionalItems",
  "contains",
  "minContains",
  "maxContains",
  "minItems",
  "maxItems",
  "uniqueItems",
  "properties",
  "required",
  "additionalProperties",
  "patternProperties",
  "propertyNames",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "minProperties",
  "maxProperties",
];
/** Every JSON type but null (which is `nullable`). */
const ALL_TYPES = ["string", "number", "boolean", "object", "array"];
/** What a value of each JSON Schema `type` is read as, for unions made from a type list. */
const SIMPLE_TYPES = new Set(["string", "number", "integer", "boolean", "object", "array"]);

export class FieldReader extends RecursiveTypeReader {
  objectFields(at: Located, side: Side, stack: readonly string[]): FieldModel[] {
    // The inputs and outputs roots come here without `normalize`: their keywords are checked too.
    this.refuseUnsupportedIn(at);
    const node = at.node as Record<string, unknown>;
    const props = child(at, "properties");
    if (props.node !== undefined && !isRecord(props.node))
      this.fail(props, "`properties` is not an object");
    const required = new Set(
      Array.isArray(node.required) ? node.required.filter((x) => typeof x === "string") : [],
    );
    // Definition order: the order the graph lists its fields in is the order callers read them.
    const names = Object.keys((props.node as Record<string, unknown> | undefined) ?? {});
    const fields = names.map((name) =>
      this.field(name, child(props, name), required.has(name), side, stack),
    );
    // A required name `properties` does not list must be there too, with any value (or, when the
    // object is closed, cannot be: such an object has no valid value).
    const closed = this.resolver.deref(child(at, "additionalProperties")).node === false;
    const listed = Array.isArray(node.required) ? node.required : [];
    for (const [i, name] of listed.entries()) {
      if (typeof name !== "string" || names.includes(name) || fields.some((f) => f.name === name))
        continue;
      fields.push(
        this.field(
          name,
          { node: closed ? false : {}, file: at.file, pointer: `${at.pointer}/required/${i}` },
          true,
          side,
          stack,
        ),
      );
    }
    return fields;
  }

  /** The values `model` may take in this environment's launch body, when it lists them. */
  modelValues(at: Located): string[] | undefined {
    const n = this.normalize(at, []);
    const values = n.schema.enum ?? (n.schema.const !== undefined ? [n.schema.const] : undefined);
    if (!Array.isArray(values)) return undefined;
    const names = values.filter((v) => v !== null);
    if (names.length === 0 || names.some((v) => typeof v !== "string"))
      this.fail(n.at, "the `model` enum must list model names (strings)");
    return names as string[];
  }

  private isJsonUnion(at: Located): boolean {
    const s = at.node as Record<string, unknown>;
    // Only the bare shape is "any JSON object or array"; with constraints it is read as they say.
    if (TYPED_KEYWORDS.some((k) => Object.hasOwn(s, k)) || Array.isArray(s.enum)) return false;
    if (Array.isArray(s.type)) {
      const types = new Set(s.type);
      return types.size === 2 && types.has("object") && types.has("array");
    }
    for (const combiner of ["oneOf", "anyOf"] as const) {
      const branches = s[combiner];
      if (!Array.isArray(branches) || branches.length !== 2) continue;
      const bare = branches.every((_, i) => {
        const b = this.resolver.deref(child(at, combiner, i)).node;
        return isRecord(b) && Object.keys(b).every((k) => k === "type" || !isConstraining(k));
      });
      if (!bare) continue;
      const types = new Set(
        branches.map((_, i) => {
          const b = this.resolver.deref(child(at, combiner, i)).node;
          return isRecord(b) ? b.type : undefined;
        }),
      );
      if (types.has("object") && types.has("array")) return true;
    }
    return false;
  }

  field(
    name: string,
    at: Located,
    inRequired: boolean,
    side: Side,
    stack: readonly string[],
  ): FieldModel {
    this.reading.push({ side, name });
    try {
      this.checkNesting(at);
      return this.readField(name, at, inRequired, side, stack);
    } finally {
      this.reading.pop();
    }
  }

  private readField(
    name: string,
    at: Located,
    inRequired: boolean,
    side: Side,
    stack: readonly string[],
  ): FieldModel {
    const n = this.normalize(at, stack);
    if (n.recursive !== undefined) return this.recursiveField(name, at, inRequired, side, n);
    let s = n.schema;
    for (const keyword of this.unsupportedKeywords())
      if (usesRefusedKeyword(s, keyword)) this.unsupported(n.at, s);
    if (Array.isArray(s.items) && !this.openapi30)
      this.fail(
        n.at,
        "`items` as a list (a tuple, JSON Schema draft 4) is not supported in OpenAPI 3.1; write the tuple as `prefixItems` (and the rest as `items`)",
      );
    if (Object.hasOwn(s, "const")) {
      // `const: v` is `enum: [v]` (with an enum beside it, both must hold).
      const { const: value, ...rest } = s;
      const allowed = Array.isArray(s.enum) ? s.enum.filter((v) => sameJson(v, value)) : [value];
      s = { ...rest, enum: allowed };
    }
    const here: Located = { node: s, file: n.at.file, pointer: n.at.pointer };
    const hasDefault = Object.hasOwn(s, "default");
    const base = {
      name,
      required: side === "input" ? inRequired && !hasDefault : inRequired,
      nullable: n.nullable,
      hasDefault,
      ...(hasDefault ? { default: s.default } : {}),
      ...(typeof s.description === "string" ? { description: s.description } : {}),
      pointer: standInTarget(at.node)?.pointer ?? at.pointer,
    };
    const marker = s["x-input-type"] ?? s["x-output-type"];
    let type = s.type;
    let kind: FieldKind;
    const extra: Record<string, unknown> = {};
    const combiners = (["anyOf", "oneOf"] as const).filter((c) => Array.isArray(s[c]));
    const constraining = Object.keys(s).filter(
      (k) => k !== "anyOf" && k !== "oneOf" && k !== "nullable" && isConstraining(k),
    );
    if (type === "null" || (Array.isArray(type) && type.length === 0 && n.nullable)) {
      // `type: null` (or a list of only null): nothing but null.
      base.nullable = true;
      type = undefined;
      s = { ...s, type: undefined };
    }
    if (
      type === undefined &&
      marker === undefined &&
      combiners.length === 0 &&
      !Array.isArray(s.enum) &&
      TYPED_KEYWORDS.some((k) => Object.hasOwn(s, k))
    ) {
      // No `type`: each keyword holds for values of its own JSON type, any other value passes.
      base.nullable = true;
      type = ALL_TYPES;
      s = { ...s, type };
    }
    if (
      n.never === true ||
      (s.type === undefined && base.nullable && Object.hasOwn(n.schema, "type"))
    ) {
      kind = "never";
    } else if (n.parts !== undefined) {
      kind = "all";
      extra.variants = n.parts.map((p) => this.field("|", p, true, side, n.stack));
      // Null passes only where a nullable wrapper (`anyOf: [allOf..., null]`) says so.
      base.nullable = n.nullBeside === true && n.nullable;
    } else if (
      marker === undefined &&
      combiners.length > 0 &&
      (constraining.length > 0 || combiners.length > 1) &&
      !this.isJsonUnion(here)
    ) {
      // `type`, `properties`, ... beside `oneOf`/`anyOf`, or both combinators: each must hold.
      const rest: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(s))
        if (k !== "anyOf" && k !== "oneOf")
          Object.defineProperty(rest, k, {
            value: v,
            enumerable: true,
            writable: true,
            configurable: true,
          });
      kind = "all";
      extra.variants = [
        this.field(
          "|",
          { node: rest, file: here.file, pointer: here.pointer },
          true,
          side,
          n.stack,
        ),
        ...combiners.map((c) =>
          this.field(
            "|",
            { node: { [c]: s[c] }, file: here.file, pointer: here.pointer },
            true,
            side,
            n.stack,
          ),
        ),
      ];
    } else if (marker === "file") {
      kind = "file";
    } else if (marker === "files" || (type === "array" && this.itemsAreFiles(here))) {
      kind = "files";
    } else if (marker === "json" || this.isJsonUnion(here)) {
      kind = "json";
    } else if (Array.isArray(s.oneOf) || Array.isArray(s.anyOf)) {
      const combiner = Array.isArray(s.oneOf) ? "oneOf" : "anyOf";
      const branches = s[combiner] as unknown[];
      if (branches.length === 0) this.fail(n.at, `\`${combiner}\` has no alternative`);
      const variants = branches.map((_, i) =>
        this.field("|", child(here, combiner, i), true, side, n.stack),
      );
      if (variants.length === 1)
        return {
          ...(variants[0] as FieldModel),
          ...base,
          nullable: base.nullable || (variants[0] as FieldModel).nullable,
        };
      kind = "union";
      extra.variants = variants;
      extra.exclusive = combiner === "oneOf";
    } else if (Array.isArray(s.enum)) {
      // Only the values of the declared type(s) can match.
      const types = type === undefined ? undefined : Array.isArray(type) ? type : [type];
      const ofType = s.enum.filter(
        (v) =>
          types === undefined ||
          types.some(
            (t) =>
              t === jsonTypeOf(v) ||
              (t === "number" && jsonTypeOf(v) === "integer") ||
              (t === "integer" && typeof v === "number" && Number.isInteger(v)),
          ),
      );
      const values = ofType.filter((v) => v !== null) as EnumValue[];
      base.nullable =
        ofType.includes(null) ||
        n.nullBeside === true ||
        (base.nullable && types === undefined && s.enum.includes(null));
      if (values.length === 0) {
        // `const: null`, `enum: [null]`: null only; a list none of whose values has the type: nothing.
        kind = "never";
      } else {
        kind = "enum";
        extra.enumValues = values;
        extra.enumBase = enumBase(type, values);
      }
    } else if (Array.isArray(type)) {
      // `type: [string, number]`: one alternative per type, each reading the same keywords.
      const bad = type.find((t) => typeof t !== "string" || !SIMPLE_TYPES.has(t));
      if (bad !== undefined)
        this.fail(n.at, `\`type\` lists ${JSON.stringify(bad)}, which is not a JSON Schema type`);
      if (type.length === 0) this.fail(n.at, "`type` is an empty list: no value could ever match");
      const variants = (type as string[]).map((t, i) =>
        this.field(
          "|",
          { node: { ...s, type: t }, file: here.file, pointer: `${here.pointer}/type/${i}` },
          true,
          side,
          n.stack,
        ),
      );
      if (variants.length === 1) return { ...(variants[0] as FieldModel), ...base };
      kind = "union";
      extra.variants = variants;
      extra.exclusive = false;
    } else if (type === "string") {
      kind = "text";
    } else if (type === "number") {
      kind = "number";
    } else if (type === "integer") {
      kind = "integer";
    } else if (type === "boolean") {
      kind = "boolean";
    } else if (type === "object") {
      kind = "object";
      const fields = this.objectFields(here, side, n.stack);
      extra.fields = fields;
      extra.additionalProperties = s.additionalProperties !== false;
      const additional = this.resolver.deref(child(here, "additionalProperties")).node;
      if (additional === false) extra.additionalProperties = false;
      if (isRecord(additional) && Object.keys(additional).length > 0) {
        extra.values = this.field("{}", child(here, "additionalProperties"), true, side, n.stack);
      }
      const patterns = child(here, "patternProperties");
      if (patterns.node !== undefined) {
        if (!isRecord(patterns.node)) this.fail(patterns, "`patternProperties` is not an object");
        extra.patternValues = Object.keys(patterns.node).map((pattern) => ({
          pattern: checkedPattern(pattern, "this `patternProperties` key", (message) =>
            this.fail(child(patterns, pattern), message),
          ),
          field: this.field("{}", child(patterns, pattern), true, side, n.stack),
        }));
      }
      if (s.propertyNames !== undefined)
        extra.propertyNames = this.field("{}", child(here, "propertyNames"), true, side, n.stack);
    } else if (type === "array") {
      kind = "array";
      // A tuple: 2020-12's `prefixItems` with `items` for the rest; draft 4's `items` as a list
      // with `additionalItems` for the rest. Without a rest schema, any further item passes.
      const list = Array.isArray(s.prefixItems)
        ? "prefixItems"
        : Array.isArray(s.items)
          ? "items"
          : "";
      if (list !== "") {
        const rest = list === "prefixItems" ? "items" : "additionalItems";
        extra.prefixItems = (s[list] as unknown[]).map((_, i) =>
          this.field("[]", child(here, list, i), true, side, n.stack),
        );
        if (Object.hasOwn(s, rest))
          extra.items = this.field("[]", child(here, rest), true, side, n.stack);
      } else extra.items = this.field("[]", child(here, "items"), true, side, n.stack);
    } else {
      this.unsupported(n.at, s);
      kind = "unknown";
    }
    if (typeof s.format === "string" && (kind === "text" || kind === "enum"))
      extra.format = s.format;
    if (kind === "file" || kind === "files") {
      // The shared FileReference's description is about the wire (`{attachment_id}`);
      // the caller passes file(...), which the kind's docs say. Keep only the field's own words.
      const own = standInTarget(at.node)?.node ?? at.node;
      if (isRecord(own) && own.$ref !== undefined) {
        const mutable = base as { description?: string };
        if (typeof own.description === "string") mutable.description = own.description;
        else delete mutable.description;
      }
    }
    Object.assign(
      extra,
      valueConstraints(s, kind, (message) => this.fail(n.at, message)),
    );
    // A union or an intersection made here carries them in its variants already.
    if (kind !== "union" && kind !== "all") {
      const conditions = this.conditions(here, side, n.stack);
      if (conditions.length > 0) extra.conditions = conditions;
    }
    return { ...base, kind, ...extra } as FieldModel;
  }

  /**
   * `not`, `if`/`then`/`else`, `dependentRequired`, `dependentSchemas` and
   * draft 4's `dependencies`: rules on the whole value, read into conditions
   * (each schema a field of its own, refused keywords and all).
   */
  private conditions(at: Located, side: Side, stack: readonly string[]): FieldCondition[] {
    const s = at.node as Record<string, unknown>;
    const out: FieldCondition[] = [];
    const part = (key: string, ...more: string[]) =>
      this.field("|", child(at, key, ...more), true, side, stack);
    if (Object.hasOwn(s, "not")) out.push({ kind: "not", schema: part("not") });
    if (Object.hasOwn(s, "if") && (Object.hasOwn(s, "then") || Object.hasOwn(s, "else")))
      out.push({
        kind: "if",
        ifSchema: part("if"),
        ...(Object.hasOwn(s, "then") ? { thenSchema: part("then") } : {}),
        ...(Object.hasOwn(s, "else") ? { elseSchema: part("else") } : {}),
      });
    if (Object.hasOwn(s, "contains")) {
      const count = (key: string, fallback?: number): number | undefined => {
        const v = s[key];
        if (v === undefined) return fallback;
        if (typeof v !== "number" || !Number.isInteger(v) || v < 0)
          this.fail(child(at, key), `\`${key}\` must be a non-negative integer`);
        return v;
      };
      const max = count("maxContains");
      out.push({
        kind: "contains",
        schema: part("contains"),
        min: count("minContains", 1) as number,
        ...(max !== undefined ? { max } : {}),
      });
    }
    for (const keyword of ["dependentRequired", "dependentSchemas", "dependencies"]) {
      const map = child(at, keyword);
      if (map.node === undefined) continue;
      if (!isRecord(map.node)) this.fail(map, `\`${keyword}\` is not an object`);
      for (const [key, value] of Object.entries(map.node)) {
        if (keyword !== "dependentSchemas" && Array.isArray(value)) {
          if (!value.every((name) => typeof name === "string"))
            this.fail(child(map, key), `\`${keyword}\` lists must hold property names`);
          out.push({ kind: "dependentRequired", key, names: value as string[] });
        } else if (keyword === "dependentRequired")
          this.fail(child(map, key), "`dependentRequired` values must be lists of property names");
        else out.push({ kind: "dependentSchema", key, schema: part(keyword, key) });
      }
    }
    return out;
  }

  private itemsAreFiles(at: Located): boolean {
    const items = this.resolver.deref(child(at, "items")).node;
    return (
      isRecord(items) && (items["x-input-type"] === "file" || items["x-output-type"] === "file")
    );
  }
}
