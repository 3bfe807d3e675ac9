// Reads `<schemas>/<env>/openapi.(json|yaml|yml)` into the normalized model.
// Nothing downstream looks at OpenAPI again.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import {
  child,
  DefinitionError,
  DRAFT4_UNSUPPORTED_KEYWORDS,
  decodeUriComponentAt,
  escapePointerToken as escapePointer,
  isConstraining,
  isNullOnlySchema,
  isRecord,
  type Located,
  MAX_SCHEMA_NESTING,
  mergeAllOf,
  nestingLimitDetail,
  parseDocument,
  RefResolver,
  type SchemaPart,
  sameJson,
  splitNullType,
  standInTarget,
  UNSUPPORTED_KEYWORDS,
} from "@wfr/definition-reader";
import { DEFINITION_FILE_NAMES } from "@wfr/protocol";
import { assignIdentifiers, IdentifierError } from "./identifiers.js";
import type { EnumValue, EnvironmentModel, FieldKind, FieldModel, WorkflowModel } from "./model.js";

export { DefinitionError } from "./definition-error.js";

export interface ReadOptions {
  /** Pinned identifiers: environment name -> workflow id -> identifier. */
  readonly aliases?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** The file names a definition may have, from the protocol vocabulary. */
export const DEFINITION_NAMES = DEFINITION_FILE_NAMES;
const LAUNCH_PATH = /^\/automations\/([^/]+)\/runs$/;
const STATES = new Set(["enabled", "draft", "disabled"]);
/**
 * Workflow identifiers and environment names become file names
 * (`<identifier>.schema.d.ts`); file systems allow 255 bytes per name, and
 * the generated suffixes need some of them.
 */
const MAX_NAME_BYTES = 200;

/** Reads every environment folder under `schemasDir`; sorted by environment name. */
export function readSchemas(schemasDir: string, options: ReadOptions = {}): EnvironmentModel[] {
  const root = resolve(schemasDir);
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    throw new DefinitionError(schemasDir, "", "the schemas folder does not exist");
  }
  const models: EnvironmentModel[] = [];
  for (const entry of readdirSync(root).sort()) {
    const folder = join(root, entry);
    if (!statSync(folder).isDirectory()) continue;
    const found = DEFINITION_NAMES.filter((n) => existsSync(join(folder, n)));
    if (found.length === 0) continue;
    if (found.length > 1) {
      throw new DefinitionError(`${entry}/`, "", `more than one definition: ${found.join(", ")}`);
    }
    models.push(readDefinition(join(folder, found[0] as string), { ...options, schemasDir: root }));
  }
  const seen = new Map<string, string>();
  for (const m of models) {
    const prev = seen.get(m.name);
    if (prev !== undefined) {
      throw new DefinitionError(
        m.sourceFile,
        "/info/x-environment",
        `environment ${JSON.stringify(m.name)} is also defined by ${prev}`,
      );
    }
    seen.set(m.name, m.sourceFile);
  }
  return models.sort((a, b) => compare(a.name, b.name));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Reads one definition file. `schemasDir` (default: the file's grandparent) makes `sourceFile` relative. */
export function readDefinition(
  file: string,
  options: ReadOptions & { readonly schemasDir?: string } = {},
): EnvironmentModel {
  const absolute = resolve(file);
  const schemasDir = options.schemasDir ?? resolve(absolute, "..", "..");
  const sourceFile = relative(schemasDir, absolute).split(sep).join("/");
  const display = (f: string) => relative(schemasDir, f).split(sep).join("/");
  const bytes = readFileSync(absolute);
  const sourceHash = createHash("sha256").update(bytes).digest("hex");
  const resolver = new RefResolver(display);
  const doc = parseDocument(bytes.toString("utf8"), sourceFile);
  resolver.seed(absolute, doc);
  const root: Located = { node: doc, file: absolute, pointer: "" };

  if (!isRecord(doc) || typeof doc.openapi !== "string") {
    throw new DefinitionError(
      sourceFile,
      "",
      "not an OpenAPI definition (no `openapi` version field)",
    );
  }
  if (!/^3\.[01](\.\d+)?([-.].*)?$/.test(doc.openapi)) {
    throw new DefinitionError(
      sourceFile,
      "/openapi",
      `unsupported OpenAPI version ${JSON.stringify(doc.openapi)} (3.0.x and 3.1.x are read)`,
    );
  }
  const info = isRecord(doc.info) ? doc.info : {};
  const folderName = absolute.split(sep).at(-2) ?? "default";
  const name = typeof info["x-environment"] === "string" ? info["x-environment"] : folderName;
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(name)) {
    throw new DefinitionError(
      sourceFile,
      "/info/x-environment",
      `environment name ${JSON.stringify(name)} must start with a letter or digit and hold only letters, digits, "-" and "_" (a leading "_" is kept for the generated shared modules, _shared/)`,
    );
  }
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) {
    throw new DefinitionError(
      sourceFile,
      "/info/x-environment",
      `environment name is ${Buffer.byteLength(name)} bytes; it names generated files and folders, so at most ${MAX_NAME_BYTES}`,
    );
  }
  const workspace = typeof info["x-workspace"] === "string" ? info["x-workspace"] : null;
  const servers = Array.isArray(doc.servers) ? doc.servers : [];
  const server0 = servers[0];
  const baseUrl = isRecord(server0) && typeof server0.url === "string" ? server0.url : "";
  if (baseUrl === "") {
    throw new DefinitionError(
      sourceFile,
      "/servers",
      "no `servers[0].url` (the environment's API base)",
    );
  }
  if (!isRecord(doc.paths)) throw new DefinitionError(sourceFile, "/paths", "no `paths` object");

  const reader = new FieldReader(resolver, doc.openapi.startsWith("3.0"));
  const partial: Omit<WorkflowModel, "identifier">[] = [];
  for (const path of Object.keys(doc.paths).sort(compare)) {
    const match = LAUNCH_PATH.exec(path);
    if (!match) continue;
    const pathItem = resolver.deref(child(root, "paths", path));
    const op = resolver.deref(child(pathItem, "post"));
    if (!isRecord(op.node)) continue;
    const pathId = decodeUriComponentAt(
      match[1] as string,
      sourceFile,
      `/paths/${escapePointer(path)}`,
    );
    partial.push(readWorkflow(reader, op, pathId));
  }
  const ids = new Map<string, string>();
  for (const wf of partial) {
    const prev = ids.get(wf.id);
    if (prev !== undefined)
      throw new DefinitionError(
        sourceFile,
        wf.pointer,
        `workflow id ${wf.id} is also used at ${prev}`,
      );
    ids.set(wf.id, wf.pointer);
  }
  let identifiers: Map<string, string>;
  try {
    identifiers = assignIdentifiers(partial, options.aliases?.[name] ?? {});
  } catch (error) {
    if (error instanceof IdentifierError)
      throw new DefinitionError(sourceFile, "/paths", error.message);
    throw error;
  }
  const workflows = partial
    .map((wf): WorkflowModel => ({ ...wf, identifier: identifiers.get(wf.id) as string }))
    .sort((a, b) => compare(a.id, b.id));
  for (const wf of workflows) {
    if (Buffer.byteLength(wf.identifier) > MAX_NAME_BYTES)
      throw new DefinitionError(
        sourceFile,
        `${wf.pointer}/x-workflow/name`,
        `the identifier made from this name (${Array.from(wf.identifier).slice(0, 40).join("")}..., ${Buffer.byteLength(wf.identifier)} bytes) is too long to name its generated files (at most ${MAX_NAME_BYTES} bytes): shorten x-workflow.name, or pin a shorter identifier in wfr.codegen.json (aliases.${name}.${wf.id})`,
      );
  }
  return { name, workspace, baseUrl, sourceFile, sourceHash, workflows };
}

function readWorkflow(
  reader: FieldReader,
  op: Located,
  pathId: string,
): Omit<WorkflowModel, "identifier"> {
  const r = reader.resolver;
  const file = r.display(op.file);
  const opNode = op.node as Record<string, unknown>;
  const xw = r.deref(child(op, "x-workflow"));
  if (!isRecord(xw.node)) {
    throw new DefinitionError(file, op.pointer, "launch operation without `x-workflow`");
  }
  const x = xw.node;
  if (typeof x.id !== "string" || x.id !== pathId) {
    throw new DefinitionError(
      r.display(xw.file),
      `${xw.pointer}/id`,
      `x-workflow.id ${JSON.stringify(x.id)} does not match the path's workflow id ${JSON.stringify(pathId)}`,
    );
  }
  if (typeof x.name !== "string") {
    throw new DefinitionError(
      r.display(xw.file),
      `${xw.pointer}/name`,
      "x-workflow.name is missing or not a string",
    );
  }
  const state = x.state ?? "enabled";
  if (typeof state !== "string" || !STATES.has(state)) {
    throw new DefinitionError(
      r.display(xw.file),
      `${xw.pointer}/state`,
      `x-workflow.state ${JSON.stringify(state)} is not enabled, draft or disabled`,
    );
  }
  const revision = x.revision ?? 0;
  if (typeof revision !== "number" || !Number.isInteger(revision)) {
    throw new DefinitionError(
      r.display(xw.file),
      `${xw.pointer}/revision`,
      "x-workflow.revision is not an integer",
    );
  }
  const body = r.deref(
    child(
      r.deref(child(r.deref(child(op, "requestBody")), "content", "application/json")),
      "schema",
    ),
  );
  if (!isRecord(body.node)) {
    throw new DefinitionError(
      file,
      `${op.pointer}/requestBody`,
      "no application/json launch body schema",
    );
  }
  const inputs = r.deref(child(body, "properties", "inputs"));
  const inputsNode = inputs.node;
  if (
    !isRecord(inputsNode) ||
    (inputsNode.type !== undefined && inputsNode.type !== "object") ||
    Array.isArray(inputsNode.enum)
  ) {
    throw new DefinitionError(
      r.display(inputs.file),
      inputs.pointer,
      "the inputs schema is not an object schema",
    );
  }
  const modelExposed =
    isRecord(body.node.properties) && Object.hasOwn(body.node.properties, "model");
  const modelValues = modelExposed
    ? reader.modelValues(child(body, "properties", "model"))
    : undefined;
  const inputFields = reader.objectFields(inputs, "input", []);

  let outputFields: FieldModel[] = [];
  let outputsClosed = false;
  const outputs = r.deref(child(xw, "outputs"));
  if (outputs.node !== undefined) {
    if (
      !isRecord(outputs.node) ||
      (outputs.node.type !== undefined && outputs.node.type !== "object")
    ) {
      throw new DefinitionError(
        r.display(outputs.file),
        outputs.pointer,
        "the outputs schema is not an object schema",
      );
    }
    outputFields = reader.objectFields(outputs, "output", []);
    outputsClosed = outputs.node.additionalProperties === false;
  }
  const description =
    typeof opNode.description === "string"
      ? opNode.description
      : typeof x.description === "string"
        ? x.description
        : undefined;
  return {
    id: x.id,
    name: x.name,
    state: state as WorkflowModel["state"],
    revision,
    modelExposed,
    ...(modelValues !== undefined ? { modelValues } : {}),
    ...(description !== undefined ? { description } : {}),
    inputs: inputFields,
    outputs: outputFields,
    outputsClosed,
    pointer: op.pointer,
  };
}

type Side = "input" | "output";

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
  "minItems",
  "maxItems",
  "uniqueItems",
  "properties",
  "required",
  "additionalProperties",
  "minProperties",
  "maxProperties",
];
/** Every JSON type but null (which is `nullable`). */
const ALL_TYPES = ["string", "number", "boolean", "object", "array"];
/** What a value of each JSON Schema `type` is read as, for unions made from a type list. */
const SIMPLE_TYPES = new Set(["string", "number", "integer", "boolean", "object", "array"]);

interface Normalized {
  readonly schema: Record<string, unknown>;
  readonly at: Located;
  readonly nullable: boolean;
  /**
   * Null is allowed beside the schema, whatever its `enum` lists: a null
   * branch of an `anyOf`/`oneOf` around it, or OpenAPI 3.0's `nullable: true`
   * (which adds null to an enum, as `nullableAsJsonSchema` hands it to Ajv).
   * A `"null"` in a 3.1 `type` list is not: there the enum decides.
   */
  readonly nullBeside?: boolean;
  /** The `false` schema, or an `allOf` with a `false` branch: no value. */
  readonly never?: boolean;
  /** An `allOf` whose branches cannot be merged into one schema: each must hold. */
  readonly parts?: readonly Located[];
}

class FieldReader {
  /** The fields being read, outermost first, so errors can name the field that reached them. */
  private readonly reading: { readonly side: Side; readonly name: string }[] = [];
  /** How many branches (`allOf`, a lone non-null alternative) deep `normalize` is, inside the fields being read. */
  private branchDepth = 0;

  constructor(
    readonly resolver: RefResolver,
    /** OpenAPI 3.0: keywords beside a `$ref` are ignored, as its specification says. */
    private readonly openapi30: boolean,
  ) {
    resolver.siblingRule = openapi30 ? "ignore" : "stop";
  }

  /**
   * Refuses an unsupported keyword on a schema before its `$ref` is followed,
   * and in the definitions it carries (`$defs`, `definitions`), so that an
   * `$id` or `$anchor` is named rather than a reference it changes.
   */
  private refuseUnsupportedIn(at: Located): void {
    let raw = at;
    for (let next = standInTarget(raw.node); next !== undefined; next = standInTarget(raw.node))
      raw = next;
    const visit = (node: unknown, where: Located, depth: number) => {
      if (!isRecord(node) || depth > 8) return;
      for (const keyword of this.unsupportedKeywords())
        if (Object.hasOwn(node, keyword)) this.unsupported(where, node);
      for (const container of ["$defs", "definitions"]) {
        const defs = node[container];
        if (isRecord(defs))
          for (const name of Object.keys(defs))
            visit(defs[name], child(where, container, name), depth + 1);
      }
    };
    visit(raw.node, raw, 0);
  }

  /** The unsupported keywords of this definition's version (`id` is draft 4's `$id`). */
  private unsupportedKeywords(): readonly string[] {
    return this.openapi30 ? DRAFT4_UNSUPPORTED_KEYWORDS : UNSUPPORTED_KEYWORDS;
  }

  /**
   * A `$ref` with sibling keywords that constrain: in 3.1 (JSON Schema
   * 2020-12) both hold, which is `{...siblings, allOf: [{$ref}]}` (the
   * resolver stops at such a node). In 3.0 the resolver has dropped them
   * already, as OpenAPI 3.0 says; annotations are merged over the target.
   */
  private refSiblings(d: Located): Located {
    const node = d.node;
    if (this.openapi30 || !isRecord(node) || typeof node.$ref !== "string") return d;
    const { $ref, ...siblings } = node;
    const kept: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(siblings))
      Object.defineProperty(kept, k, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    const allOf = [...(Array.isArray(kept.allOf) ? kept.allOf : []), { $ref }];
    return { ...d, node: { ...kept, allOf } };
  }

  /** `input \`tree.children[]\``: the field being read, as the diff and the docs name it. */
  private fieldLabel(): string {
    const first = this.reading[0];
    if (first === undefined) return "the schema";
    let path = "";
    for (const { name } of this.reading)
      path += name === "[]" || name === "{}" || path === "" ? name : `.${name}`;
    return `${first.side} \`${path}\``;
  }

  /** `input \`tree\``: the top-level field being read (a deep path would fill the message). */
  private outermostLabel(): string {
    const first = this.reading[0];
    return first === undefined ? "the schema" : `${first.side} \`${first.name}\``;
  }

  private fail(at: Located, message: string): never {
    throw new DefinitionError(this.resolver.display(at.file), at.pointer, message);
  }

  objectFields(at: Located, side: Side, stack: readonly string[]): FieldModel[] {
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

  /**
   * Fails at `at` when the schemas being read nest deeper than the one limit
   * every reader keeps (docs/definition-format.md#schema-nesting): a field,
   * or a branch read into it, is one level.
   */
  private checkNesting(at: Located): void {
    if (this.reading.length + this.branchDepth > MAX_SCHEMA_NESTING)
      this.fail(at, nestingLimitDetail(this.outermostLabel()));
  }

  /** `normalize` of a branch (`allOf`, the one non-null `anyOf`/`oneOf` alternative): a level deeper. */
  private nested(at: Located, stack: readonly string[]): Normalized & { stack: readonly string[] } {
    this.branchDepth++;
    try {
      this.checkNesting(at);
      return this.normalize(at, stack);
    } finally {
      this.branchDepth--;
    }
  }

  /** Resolves `$ref`s, then strips the nullable wrappers of both OpenAPI styles. */
  private normalize(
    at: Located,
    stack: readonly string[],
  ): Normalized & { stack: readonly string[] } {
    const key = this.resolver.refKey(at);
    if (key !== undefined && stack.includes(key))
      this.fail(
        at,
        `recursive $ref: ${this.fieldLabel()} refers back to ${this.resolver.display(key.slice(0, key.indexOf("#")))}${key.slice(key.indexOf("#"))}, a schema that contains it; recursive schemas cannot be generated (flatten the structure, or mark the field as JSON with x-input-type/x-output-type: json)`,
      );
    const nextStack = key !== undefined ? [...stack, key] : stack;
    this.refuseUnsupportedIn(at);
    const d = this.refSiblings(this.resolver.deref(at));
    this.refuseUnsupportedIn(d);
    if (typeof d.node === "boolean" || d.node === undefined)
      return { schema: {}, at: d, nullable: false, stack: nextStack, never: d.node === false };
    if (!isRecord(d.node)) this.fail(d, "a schema must be an object");
    let { schema, nullable } = splitNullType(d.node);
    let nullBeside = d.node.nullable === true;
    for (const combiner of ["anyOf", "oneOf"] as const) {
      const branches = schema[combiner];
      if (!Array.isArray(branches)) continue;
      const resolved = branches.map((_, i) => this.resolver.deref(child(d, combiner, i)));
      const isNull = (b: Located) => isNullOnlySchema(b.node);
      const nonNull = branches.map((_, i) => i).filter((i) => !isNull(resolved[i] as Located));
      if (nonNull.length === branches.length) continue;
      nullable = true;
      nullBeside = true;
      if (nonNull.length === 0)
        return { schema: {}, at: d, nullable: true, stack: nextStack, never: true };
      const { [combiner]: _drop, ...outer } = schema;
      if (nonNull.length === 1) {
        const only = this.nested(child(d, combiner, nonNull[0] as number), nextStack);
        return {
          schema: { ...only.schema, ...outer },
          at: only.at,
          nullable: true,
          nullBeside: true,
          stack: only.stack,
        };
      }
      schema = { ...outer, [combiner]: nonNull.map((i) => branches[i]) };
    }
    if (Array.isArray(schema.allOf)) {
      const allOf = schema.allOf;
      const { allOf: _drop, nullable: _nullable, ...outer } = schema;
      const branches = allOf.map((_, i) => this.nested(child(d, "allOf", i), nextStack));
      if (branches.some((b) => b.never === true && !b.nullable))
        return { schema: {}, at: d, nullable: false, stack: nextStack, never: true };
      const parts: SchemaPart[] = [
        { schema: outer, at: d },
        ...branches.map((b) => ({ schema: b.schema, at: b.at })),
      ];
      const separately = (): Normalized & { stack: readonly string[] } => ({
        schema: outer,
        at: d,
        nullable: false,
        stack: nextStack,
        parts: [
          { node: outer, file: d.file, pointer: d.pointer },
          ...allOf.map((_, i) => child(d, "allOf", i)),
        ],
      });
      // JSON Schema checks each branch on its own: a closed branch rejects the others' properties,
      // and branches that cannot all hold reject everything. Such an allOf stays an intersection.
      const closed = parts.some(
        (p) =>
          p.schema.additionalProperties !== undefined && p.schema.additionalProperties !== true,
      );
      const shaped = parts.filter(
        (p) => isRecord(p.schema.properties) || p.schema.additionalProperties !== undefined,
      );
      if (
        branches.some((b) => b.never === true || b.parts !== undefined) ||
        (closed && shaped.length > 1)
      )
        return separately();
      let merged: Record<string, unknown>;
      try {
        merged = mergeAllOf(parts, (message) => this.fail(child(d, "allOf"), message));
      } catch (error) {
        if (!(error instanceof DefinitionError)) throw error;
        return separately();
      }
      // Every branch must hold: null passes only when each branch (or the 3.0 `nullable` beside them) allows it.
      nullable ||= branches.length > 0 && branches.every((b) => b.nullable);
      return { schema: merged, at: d, nullable, stack: nextStack };
    }
    return { schema, at: d, nullable, nullBeside, stack: nextStack };
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
    let s = n.schema;
    for (const keyword of this.unsupportedKeywords())
      if (Object.hasOwn(s, keyword)) this.unsupported(n.at, s);
    if (Array.isArray(s.items))
      this.fail(
        n.at,
        "`items` as a list (a tuple, JSON Schema draft 4) is not supported; use one schema for every item",
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
      base.nullable = false;
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
    } else if (type === "array") {
      kind = "array";
      extra.items = this.field("[]", child(here, "items"), true, side, n.stack);
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
    Object.assign(extra, this.constraints(n.at, s, kind));
    return { ...base, kind, ...extra } as FieldModel;
  }

  /**
   * The value constraints of one field, for the kinds they apply to (the
   * emulator checks string rules on strings, number rules on numbers, item
   * rules on arrays). OpenAPI 3.0's boolean `exclusiveMinimum: true` next to
   * `minimum` becomes the numeric 3.1 form, so the model has one reading.
   */
  private constraints(
    at: Located,
    s: Record<string, unknown>,
    kind: FieldKind,
  ): Partial<FieldModel> {
    const out: Record<string, unknown> = {};
    const count = (key: string): number | undefined => {
      const v = s[key];
      if (v === undefined) return undefined;
      if (typeof v !== "number" || !Number.isInteger(v) || v < 0)
        this.fail(at, `\`${key}\` must be a non-negative integer, got ${JSON.stringify(v)}`);
      return v;
    };
    const number = (key: string): number | undefined => {
      const v = s[key];
      if (v === undefined || typeof v === "boolean") return undefined;
      if (typeof v !== "number" || !Number.isFinite(v))
        this.fail(at, `\`${key}\` must be a number, got ${JSON.stringify(v)}`);
      return v;
    };
    if (kind === "text" || kind === "enum") {
      const maxLength = count("maxLength");
      const minLength = count("minLength");
      if (maxLength !== undefined) out.maxLength = maxLength;
      if (minLength !== undefined) out.minLength = minLength;
      if (s.pattern !== undefined) {
        if (typeof s.pattern !== "string") this.fail(at, "`pattern` must be a string");
        try {
          new RegExp(s.pattern, "u");
        } catch (error) {
          this.fail(
            at,
            `\`pattern\` is not a valid regular expression: ${(error as Error).message}`,
          );
        }
        out.pattern = s.pattern;
      }
    }
    if (kind === "number" || kind === "integer" || kind === "enum") {
      let minimum = number("minimum");
      let maximum = number("maximum");
      let exclusiveMinimum = number("exclusiveMinimum");
      let exclusiveMaximum = number("exclusiveMaximum");
      if (s.exclusiveMinimum === true && minimum !== undefined) {
        exclusiveMinimum = minimum;
        minimum = undefined;
      }
      if (s.exclusiveMaximum === true && maximum !== undefined) {
        exclusiveMaximum = maximum;
        maximum = undefined;
      }
      const multipleOf = number("multipleOf");
      if (multipleOf !== undefined && multipleOf <= 0)
        this.fail(at, `\`multipleOf\` must be greater than 0, got ${multipleOf}`);
      if (minimum !== undefined) out.minimum = minimum;
      if (maximum !== undefined) out.maximum = maximum;
      if (exclusiveMinimum !== undefined) out.exclusiveMinimum = exclusiveMinimum;
      if (exclusiveMaximum !== undefined) out.exclusiveMaximum = exclusiveMaximum;
      if (multipleOf !== undefined) out.multipleOf = multipleOf;
    }
    if (kind === "array" || kind === "files") {
      const minItems = count("minItems");
      const maxItems = count("maxItems");
      if (minItems !== undefined) out.minItems = minItems;
      if (maxItems !== undefined) out.maxItems = maxItems;
      if (s.uniqueItems === true) out.uniqueItems = true;
    }
    if (kind === "object") {
      const minProperties = count("minProperties");
      const maxProperties = count("maxProperties");
      if (minProperties !== undefined) out.minProperties = minProperties;
      if (maxProperties !== undefined) out.maxProperties = maxProperties;
    }
    return out as Partial<FieldModel>;
  }

  /**
   * Keywords the model cannot express fail here, naming the file and
   * pointer, instead of silently becoming `unknown`. A schema with none of
   * them (`{}`, `true`) is any JSON value on purpose.
   */
  private unsupported(at: Located, s: Record<string, unknown>): void {
    for (const keyword of this.unsupportedKeywords()) {
      if (Object.hasOwn(s, keyword))
        this.fail(
          at,
          `\`${keyword}\` is not supported (it has no TypeScript type or input rule in the model); use \`type\`, \`enum\`, \`allOf\`, \`oneOf\`/\`anyOf\` or a \`$ref\``,
        );
    }
    if (s.type !== undefined)
      this.fail(at, `\`type: ${JSON.stringify(s.type)}\` is not a supported type`);
  }

  private itemsAreFiles(at: Located): boolean {
    const items = this.resolver.deref(child(at, "items")).node;
    return (
      isRecord(items) && (items["x-input-type"] === "file" || items["x-output-type"] === "file")
    );
  }
}

/** The JSON type shared by enum values: `json` for objects, arrays or a mix of types. */
function jsonTypeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v === "object" ? "object" : typeof v;
}

function enumBase(
  type: unknown,
  values: readonly EnumValue[],
): NonNullable<FieldModel["enumBase"]> {
  const kinds = new Set(
    values.map((v) =>
      typeof v === "string"
        ? "text"
        : typeof v === "boolean"
          ? "boolean"
          : typeof v === "number"
            ? Number.isInteger(v) && type === "integer"
              ? "integer"
              : "number"
            : "json",
    ),
  );
  if (kinds.size !== 1) return "json";
  return [...kinds][0] as NonNullable<FieldModel["enumBase"]>;
}
