// The part of the field reader that reads recursive schemas: a side read
// again each time a `$ref` turns out to reach a schema that contains it
// (recursive-types.ts), and a field of kind `ref` where such a `$ref` is,
// its schema read once per side as a named type.
import { isRecord, type Located, standInTarget } from "@wfr/definition-reader";
import type { Side } from "../field-kinds.js";
import type { FieldModel, RecursiveType } from "../model.js";
import { RecursionFound, recursiveTypeName } from "./recursive-types.js";
import { type NormalizedAt, SchemaNormalizer } from "./schema-normalizer.js";

export abstract class RecursiveTypeReader extends SchemaNormalizer {
  /** Reads one schema into a field of the model (field-reader.ts). */
  abstract field(
    name: string,
    at: Located,
    inRequired: boolean,
    side: Side,
    stack: readonly string[],
  ): FieldModel;

  /** The named recursive types read so far for the workflow being read, by side and `file#pointer`. */
  private readonly recursiveTypes = new Map<
    string,
    { name: string; side: Side; start: number; field?: FieldModel }
  >();

  /**
   * Reads one side of a workflow (`read`), again each time a `$ref` turns out
   * to reach a schema that contains it, with that schema named
   * (recursive-types.ts); the types named so far are kept for the next side.
   */
  readSide(read: () => FieldModel[]): FieldModel[] {
    for (;;) {
      const before = new Map(this.recursiveTypes);
      try {
        return read();
      } catch (error) {
        if (!(error instanceof RecursionFound) || this.recursiveKeys.has(error.key)) throw error;
        this.recursiveKeys.add(error.key);
        this.recursiveTypes.clear();
        for (const [k, v] of before) this.recursiveTypes.set(k, v);
      }
    }
  }

  /** The recursive types the workflow read since the last call, and a fresh start for the next one. */
  takeRecursiveTypes(): RecursiveType[] {
    const types = [...this.recursiveTypes.values()].map(({ name, side, field }) => ({
      name,
      side,
      field: field as FieldModel,
    }));
    this.recursiveTypes.clear();
    return types;
  }

  /**
   * A field whose schema is a `$ref` to a recursive schema: kind `ref`, naming
   * the type, which is read (once per side) where it is first met. A `$ref`
   * that comes back to its schema without going into a property or an item
   * (the schema is its own alternative or part) is refused: no value would
   * ever finish being checked against it.
   */
  protected recursiveField(
    name: string,
    at: Located,
    inRequired: boolean,
    side: Side,
    n: NormalizedAt,
  ): FieldModel {
    const { key, at: holder } = n.recursive as { key: string; at: Located };
    const id = `${side} ${key}`;
    let type = this.recursiveTypes.get(id);
    if (type === undefined) {
      type = {
        name: recursiveTypeName(key, side, this.recursiveTypes.values()),
        side,
        start: this.reading.length,
      };
      this.recursiveTypes.set(id, type);
      type.field = this.field("|", this.resolver.refTarget(holder).target, true, side, []);
    } else if (
      type.field === undefined &&
      this.reading.slice(type.start).every((r) => r.name === "|")
    )
      this.fail(
        holder,
        `\`$ref\` comes back to ${this.resolver.display(key.slice(0, key.indexOf("#")))}${key.slice(key.indexOf("#"))} without going into a property or an item: a schema that is its own alternative or part has no value that ever finishes being checked`,
      );
    const raw = standInTarget(at.node)?.node ?? at.node;
    const own: Record<string, unknown> = isRecord(raw) ? raw : {};
    const annotated: Record<string, unknown> = isRecord(holder.node)
      ? { ...holder.node, ...own }
      : own;
    const hasDefault = Object.hasOwn(annotated, "default");
    return {
      name,
      kind: "ref",
      ref: type.name,
      required: side === "input" ? inRequired && !hasDefault : inRequired,
      nullable: n.nullable,
      hasDefault,
      ...(hasDefault ? { default: annotated.default } : {}),
      ...(typeof annotated.description === "string" ? { description: annotated.description } : {}),
      pointer: standInTarget(at.node)?.pointer ?? at.pointer,
    };
  }
}
