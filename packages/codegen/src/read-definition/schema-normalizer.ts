// What every field's schema goes through before it is read: `$ref`s followed
// (3.1: keywords beside a `$ref` hold with it, as an `allOf`; 3.0: ignored),
// the nullable wrappers of both OpenAPI styles stripped, `allOf` merged (or
// kept as parts that must each hold), unsupported keywords refused and the
// nesting limit kept (docs/definition-format.md#schema-nesting).
import {
  child,
  DefinitionError,
  DRAFT4_UNSUPPORTED_KEYWORDS,
  foreignDialect,
  isConstraining,
  isNullOnlySchema,
  isRecord,
  type Located,
  MAX_SCHEMA_NESTING,
  mergeAllOf,
  nestingLimitDetail,
  type RefResolver,
  refuseIdentityInDefinitions,
  type SchemaPart,
  splitNullType,
  standInTarget,
  UNSUPPORTED_KEYWORDS,
  usesRefusedKeyword,
} from "@wfr/definition-reader";
import type { Side } from "../field-kinds.js";
import { RecursionFound } from "./recursive-types.js";

/** A schema ready to be read: no `$ref`, no nullable wrapper, `allOf` merged. */
export interface Normalized {
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
  /** A `$ref` to a recursive schema (`key`, `file#pointer`), not followed: `at` is the node holding the `$ref`. */
  readonly recursive?: { readonly key: string; readonly at: Located };
}

/** A normalized schema and the `$ref`s that led to it (to refuse recursion). */
export type NormalizedAt = Normalized & { readonly stack: readonly string[] };

/**
 * The part of the field reader that prepares schemas; `FieldReader`
 * (field-reader.ts) reads the prepared schema into a field.
 */
export class SchemaNormalizer {
  /** The fields being read, outermost first, so errors can name the field that reached them. */
  protected readonly reading: { readonly side: Side; readonly name: string }[] = [];
  /** How many branches (`allOf`, a lone non-null alternative) deep `normalize` is, inside the fields being read. */
  protected branchDepth = 0;
  /** The `$ref` targets (`file#pointer`) found to contain themselves: read as named types, never inlined. */
  protected readonly recursiveKeys = new Set<string>();

  constructor(
    readonly resolver: RefResolver,
    /** OpenAPI 3.0: keywords beside a `$ref` are ignored, as its specification says (draft 4). */
    protected readonly openapi30: boolean,
  ) {
    resolver.siblingRule = openapi30 ? "ignore" : "stop";
  }

  /**
   * Refuses an unsupported keyword on a schema before its `$ref` is followed,
   * and an identity keyword (`$id`, `$anchor`) in the definitions it carries
   * (`$defs`, `definitions`), which would change what a reference names; the
   * rest of a definition is read only where a `$ref` reaches it.
   */
  protected refuseUnsupportedIn(at: Located): void {
    let raw = at;
    for (let next = standInTarget(raw.node); next !== undefined; next = standInTarget(raw.node))
      raw = next;
    if (!isRecord(raw.node)) return;
    for (const keyword of this.unsupportedKeywords())
      if (usesRefusedKeyword(raw.node, keyword)) this.unsupported(raw, raw.node);
    const foreign = foreignDialect(raw.node, this.openapi30 ? "draft-04" : "2020-12");
    if (foreign !== undefined) this.fail(child(raw, "$schema"), foreign);
    refuseIdentityInDefinitions(raw, (file) => this.resolver.display(file), this.openapi30);
  }

  /** The unsupported keywords of this definition's version (`id` is draft 4's `$id`). */
  protected unsupportedKeywords(): readonly string[] {
    return this.openapi30 ? DRAFT4_UNSUPPORTED_KEYWORDS : UNSUPPORTED_KEYWORDS;
  }

  /**
   * A `$ref` with sibling keywords that constrain: in 3.1 (JSON Schema
   * 2020-12) both hold, which is `{...siblings, allOf: [{$ref}]}` (the
   * resolver stops at such a node). In 3.0 the resolver has dropped them
   * already, as OpenAPI 3.0 says; annotations are merged over the target.
   */
  protected refSiblings(d: Located): Located {
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
  protected fieldLabel(): string {
    const first = this.reading[0];
    if (first === undefined) return "the schema";
    let path = "";
    for (const { name } of this.reading)
      path += name === "[]" || name === "{}" || path === "" ? name : `.${name}`;
    return `${first.side} \`${path}\``;
  }

  /** `input \`tree\``: the top-level field being read (a deep path would fill the message). */
  protected outermostLabel(): string {
    const first = this.reading[0];
    return first === undefined ? "the schema" : `${first.side} \`${first.name}\``;
  }

  protected fail(at: Located, message: string): never {
    throw new DefinitionError(this.resolver.display(at.file), at.pointer, message);
  }

  /**
   * Fails at `at` when the schemas being read nest deeper than the one limit
   * every reader keeps (docs/definition-format.md#schema-nesting): a field,
   * or a branch read into it, is one level.
   */
  protected checkNesting(at: Located): void {
    if (this.reading.length + this.branchDepth > MAX_SCHEMA_NESTING)
      this.fail(at, nestingLimitDetail(this.outermostLabel()));
  }

  /** `normalize` of a branch (`allOf`, the one non-null `anyOf`/`oneOf` alternative): a level deeper. */
  protected nested(at: Located, stack: readonly string[]): NormalizedAt {
    this.branchDepth++;
    try {
      this.checkNesting(at);
      return this.normalize(at, stack);
    } finally {
      this.branchDepth--;
    }
  }

  /**
   * The `$ref`s each merged `allOf` part (a stand-in for a property, item or
   * value schema of a branch) was read inside: reading it is inside them too,
   * so a `$ref` back to one of them is found to recurse (and no other is).
   */
  private readonly branchStacks = new WeakMap<object, readonly string[]>();

  private rememberBranchStacks(
    merged: Record<string, unknown>,
    branches: readonly NormalizedAt[],
  ): void {
    const remember = (node: unknown): void => {
      const target = standInTarget(node);
      if (target === undefined) return;
      const branch = branches.find(
        (b) =>
          b.at.file === target.file &&
          (target.pointer === b.at.pointer || target.pointer.startsWith(`${b.at.pointer}/`)),
      );
      if (branch !== undefined && branch.stack.length > 0)
        this.branchStacks.set(node as object, branch.stack);
    };
    for (const value of Object.values(merged)) {
      remember(value);
      if (Array.isArray(value)) value.forEach(remember);
      else if (isRecord(value)) Object.values(value).forEach(remember);
    }
  }

  /** Resolves `$ref`s, then strips the nullable wrappers of both OpenAPI styles. */
  protected normalize(at: Located, within: readonly string[]): NormalizedAt {
    const inBranch = isRecord(at.node) ? this.branchStacks.get(at.node) : undefined;
    const stack = inBranch === undefined ? within : [...new Set([...within, ...inBranch])];
    const key = this.resolver.refKey(at);
    if (key !== undefined && this.recursiveKeys.has(key)) {
      let holder = at;
      for (
        let next = standInTarget(holder.node);
        next !== undefined;
        next = standInTarget(holder.node)
      )
        holder = next;
      return { schema: {}, at, nullable: false, stack, recursive: { key, at: holder } };
    }
    // The side is read again with this schema named (recursive-types.ts).
    if (key !== undefined && stack.includes(key)) throw new RecursionFound(key);
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
        if (only.recursive !== undefined) {
          if (Object.keys(outer).some((k) => k !== "nullable" && isConstraining(k)))
            this.fail(
              d,
              "a nullable recursive `$ref` with other constraints beside it is not supported; put them in an `allOf` with the `anyOf`",
            );
          return { ...only, nullable: true, nullBeside: true };
        }
        // An allOf read as parts (or no value) keeps that reading, with null beside it.
        return {
          ...only,
          schema: { ...only.schema, ...outer },
          nullable: true,
          nullBeside: true,
        };
      }
      schema = { ...outer, [combiner]: nonNull.map((i) => branches[i]) };
    }
    if (Array.isArray(schema.allOf)) {
      const allOf = schema.allOf;
      const { allOf: _drop, nullable: _nullable, ...outer } = schema;
      const branches = allOf.map((_, i) => this.nested(child(d, "allOf", i), nextStack));
      const [lone] = branches;
      // `allOf: [{$ref: <recursive>}]` (3.0's way to put keywords beside a `$ref`): the reference.
      if (
        branches.length === 1 &&
        lone?.recursive !== undefined &&
        !Object.keys(outer).some(isConstraining)
      )
        return { ...lone, nullable: nullable || lone.nullable };
      if (branches.some((b) => b.never === true && !b.nullable))
        return { schema: {}, at: d, nullable: false, stack: nextStack, never: true };
      const parts: SchemaPart[] = [
        { schema: outer, at: d },
        ...branches.map((b) => ({ schema: b.schema, at: b.at })),
      ];
      const separately = (): NormalizedAt => ({
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
        branches.some(
          (b) => b.never === true || b.parts !== undefined || b.recursive !== undefined,
        ) ||
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
      this.rememberBranchStacks(merged, branches);
      return { schema: merged, at: d, nullable, stack: nextStack };
    }
    return { schema, at: d, nullable, nullBeside, stack: nextStack };
  }

  /**
   * Keywords the model cannot express fail here, naming the file and
   * pointer, instead of silently becoming `unknown`. A schema with none of
   * them (`{}`, `true`) is any JSON value on purpose.
   */
  protected unsupported(at: Located, s: Record<string, unknown>): void {
    for (const keyword of this.unsupportedKeywords()) {
      if (usesRefusedKeyword(s, keyword))
        this.fail(
          at,
          `\`${keyword}\` is not supported (it has no TypeScript type or input rule in the model); use \`type\`, \`enum\`, \`allOf\`, \`oneOf\`/\`anyOf\` or a \`$ref\``,
        );
    }
    if (s.type !== undefined)
      this.fail(at, `\`type: ${JSON.stringify(s.type)}\` is not a supported type`);
  }
}
