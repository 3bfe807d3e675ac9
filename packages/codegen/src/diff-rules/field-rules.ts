// Rules over one field on both sides: its kind, required and default, nullability, format, enum
// values, description, closed objects, and the alternatives of unions.
import { sameJson } from "@wfr/definition-reader";

import { kindLabel } from "../field-kinds.js";
import type { FieldKind, FieldModel } from "../model.js";
import { describeField } from "./describe-field.js";
import { callerMustSend } from "./presence-rules.js";
import { fieldRule, type Side } from "./rule.js";

/** The base kind of a value set, used to compare kinds: an enum of text is "text"-like. */
function baseOf(field: FieldModel): FieldKind {
  return field.kind === "enum" ? (field.enumBase ?? "text") : field.kind;
}

/**
 * Whether every value of `narrow` is also a value of `wide`, looking only at
 * the kinds (enum values, formats, nullability and lengths are compared
 * separately).
 */
function kindAccepts(wide: FieldModel, narrow: FieldModel): boolean {
  // A union holds what any alternative holds; a union is held when every alternative is.
  if (narrow.kind === "union") return (narrow.variants ?? []).every((v) => kindAccepts(wide, v));
  if (wide.kind === "union") return (wide.variants ?? []).some((v) => kindAccepts(v, narrow));
  if (wide.kind === narrow.kind) return true;
  if (wide.kind === "unknown") return true;
  const w = wide.kind;
  const n = baseOf(narrow);
  if (w === "enum") return false;
  if (w === n) return true; // text ⊇ enum of text, number ⊇ enum of numbers
  if (w === "number" && n === "integer") return true;
  if (w === "json" && (narrow.kind === "object" || narrow.kind === "array")) return true;
  return false;
}

function kindChanged(b: FieldModel, a: FieldModel): boolean {
  return (
    b.kind !== a.kind || (b.kind === "enum" && (b.enumBase ?? "text") !== (a.enumBase ?? "text"))
  );
}

/** Inputs: the new kind accepts every old value. Outputs: the new kind returns only old values. */
function kindCompatible(b: FieldModel, a: FieldModel, side: Side): boolean {
  return side === "input" ? kindAccepts(a, b) : kindAccepts(b, a);
}

/**
 * The alternatives of two unions paired by kind (`inputs.amount(one of text)`):
 * the pairs are compared with every rule, the rest were removed or added.
 */
export function pairVariants(
  b: FieldModel,
  a: FieldModel,
): {
  readonly pairs: readonly (readonly [FieldModel, FieldModel])[];
  readonly removed: readonly FieldModel[];
  readonly added: readonly FieldModel[];
} {
  const after = [...(a.variants ?? [])];
  const pairs: (readonly [FieldModel, FieldModel])[] = [];
  const removed: FieldModel[] = [];
  for (const variant of b.variants ?? []) {
    const i = after.findIndex((v) => kindLabel(v) === kindLabel(variant));
    if (i === -1) removed.push(variant);
    else pairs.push([variant, after.splice(i, 1)[0] as FieldModel]);
  }
  return { pairs, removed, added: after };
}

const bothUnions = (b: FieldModel, a: FieldModel) => b.kind === "union" && a.kind === "union";
const bothObjects = (b: FieldModel, a: FieldModel) => b.kind === "object" && a.kind === "object";

export const KIND_AND_PRESENCE_RULES = [
  fieldRule({
    id: "type-compatible",
    compares:
      "the type (kind); the new one still accepts what callers send / returns what readers handle",
    sides: {
      input: { code: "input-type-widened", severity: "non-breaking" },
      output: { code: "output-type-narrowed", severity: "non-breaking" },
    },
    detect: (b, a, { side, path, label }) =>
      kindChanged(b, a) && kindCompatible(b, a, side)
        ? {
            message: `${label} \`${path}\` changed type from ${kindLabel(b)} to ${kindLabel(a)}, which ${side === "input" ? "still accepts every value callers send" : "only returns values readers already handle"}.`,
            before: kindLabel(b),
            after: kindLabel(a),
          }
        : undefined,
  }),
  fieldRule({
    id: "type-changed",
    compares: "the type (kind), changed incompatibly",
    sides: {
      input: { code: "input-type-changed", severity: "breaking" },
      output: { code: "output-type-changed", severity: "breaking" },
    },
    detect: (b, a, { side, path, label }) =>
      kindChanged(b, a) && !kindCompatible(b, a, side)
        ? {
            message: `${label} \`${path}\` changed type from ${kindLabel(b)} to ${kindLabel(a)}.`,
            before: kindLabel(b),
            after: kindLabel(a),
          }
        : undefined,
  }),
  fieldRule({
    id: "input-default-removed",
    compares: "an input's saved `default`, removed (breaking when the input is now required)",
    sides: { input: { code: "input-default-removed", severity: "depends" } },
    detect: (b, a, { path }) => {
      if (!b.hasDefault || a.hasDefault) return undefined;
      const nowRequired = callerMustSend(a);
      return {
        severity: nowRequired ? "breaking" : "non-breaking",
        message: nowRequired
          ? `Input \`${path}\` lost its saved default and is now required; callers that relied on the default are rejected.`
          : `Input \`${path}\` lost its saved default; it stays optional.`,
        before: b.default,
        after: undefined,
      };
    },
  }),
  fieldRule({
    id: "input-default-added",
    compares: "an input's saved `default`, added",
    sides: { input: { code: "input-default-added", severity: "non-breaking" } },
    detect: (b, a, { path }) =>
      !b.hasDefault && a.hasDefault
        ? {
            message: `Input \`${path}\` gained a saved default.`,
            before: undefined,
            after: a.default,
          }
        : undefined,
  }),
  fieldRule({
    id: "input-default-changed",
    compares: "an input's saved `default`, changed",
    sides: { input: { code: "input-default-changed", severity: "non-breaking" } },
    detect: (b, a, { path }) =>
      b.hasDefault && a.hasDefault && !sameJson(b.default, a.default)
        ? {
            message: `The saved default of input \`${path}\` changed.`,
            before: b.default,
            after: a.default,
          }
        : undefined,
  }),
  fieldRule({
    id: "input-made-required",
    compares: "`required` of an input (a removed default is reported by input-default-removed)",
    sides: { input: { code: "input-made-required", severity: "breaking" } },
    detect: (b, a, { path }) =>
      !callerMustSend(b) && callerMustSend(a) && !(b.hasDefault && !a.hasDefault)
        ? {
            message: `Input \`${path}\` was optional and is now required.`,
            before: false,
            after: true,
          }
        : undefined,
  }),
  fieldRule({
    id: "input-made-optional",
    compares: "`required` of an input (an added default is reported by input-default-added)",
    sides: { input: { code: "input-made-optional", severity: "non-breaking" } },
    detect: (b, a, { path }) =>
      callerMustSend(b) && !callerMustSend(a) && !(!b.hasDefault && a.hasDefault)
        ? {
            message: `Input \`${path}\` was required and is now optional.`,
            before: true,
            after: false,
          }
        : undefined,
  }),
  fieldRule({
    id: "output-made-optional",
    compares: "`required` of an output",
    sides: { output: { code: "output-made-optional", severity: "breaking" } },
    detect: (b, a, { path }) =>
      b.required && !a.required
        ? {
            message: `Output \`${path}\` is no longer always returned; a reader that relies on it may get nothing.`,
            before: true,
            after: false,
          }
        : undefined,
  }),
  fieldRule({
    id: "output-made-required",
    compares: "`required` of an output",
    sides: { output: { code: "output-made-required", severity: "non-breaking" } },
    detect: (b, a, { path }) =>
      !b.required && a.required
        ? { message: `Output \`${path}\` is now always returned.`, before: false, after: true }
        : undefined,
  }),
  fieldRule({
    id: "nullability-widened",
    compares: "nullability: null now allowed",
    sides: {
      input: { code: "input-nullability-widened", severity: "non-breaking" },
      output: { code: "output-nullability-widened", severity: "breaking" },
    },
    detect: (b, a, { path, label }) =>
      !b.nullable && a.nullable
        ? { message: `${label} \`${path}\` can now be null.`, before: false, after: true }
        : undefined,
  }),
  fieldRule({
    id: "nullability-narrowed",
    compares: "nullability: null no longer allowed",
    sides: {
      input: { code: "input-nullability-narrowed", severity: "breaking" },
      output: { code: "output-nullability-narrowed", severity: "non-breaking" },
    },
    detect: (b, a, { path, label }) =>
      b.nullable && !a.nullable
        ? { message: `${label} \`${path}\` can no longer be null.`, before: true, after: false }
        : undefined,
  }),
] as const;

export const FORMAT_ENUM_DESCRIPTION_RULES = [
  fieldRule({
    id: "format-added",
    compares: "`format`, added",
    sides: {
      input: { code: "input-format-added", severity: "breaking" },
      output: { code: "output-format-added", severity: "non-breaking" },
    },
    detect: (b, a, { path, label }) =>
      b.format === undefined && a.format !== undefined
        ? {
            message: `${label} \`${path}\` now has format ${a.format}.`,
            before: undefined,
            after: a.format,
          }
        : undefined,
  }),
  fieldRule({
    id: "format-removed",
    compares: "`format`, removed",
    sides: {
      input: { code: "input-format-removed", severity: "non-breaking" },
      output: { code: "output-format-removed", severity: "breaking" },
    },
    detect: (b, a, { path, label }) =>
      b.format !== undefined && a.format === undefined
        ? {
            message: `${label} \`${path}\` no longer has format ${b.format}.`,
            before: b.format,
            after: undefined,
          }
        : undefined,
  }),
  fieldRule({
    id: "format-changed",
    compares: "`format`, changed",
    sides: {
      input: { code: "input-format-changed", severity: "breaking" },
      output: { code: "output-format-changed", severity: "breaking" },
    },
    detect: (b, a, { path, label }) =>
      b.format !== undefined && a.format !== undefined && b.format !== a.format
        ? {
            message: `${label} \`${path}\` changed format from ${b.format} to ${a.format}.`,
            before: b.format,
            after: a.format,
          }
        : undefined,
  }),
  fieldRule({
    id: "enum-value-removed",
    compares: "`enum` / `const` values (both sides enums), one finding per value",
    sides: {
      input: { code: "input-enum-value-removed", severity: "breaking" },
      output: { code: "output-enum-value-removed", severity: "non-breaking" },
    },
    detect: (b, a, { side, path, label }) =>
      enumValuesOnlyIn(b, a).map((v) => ({
        message: `${label} \`${path}\` no longer ${side === "input" ? "accepts" : "returns"} ${JSON.stringify(v)}.`,
        before: v,
        after: undefined,
      })),
  }),
  fieldRule({
    id: "enum-value-added",
    compares: "`enum` / `const` values (both sides enums), one finding per value",
    sides: {
      input: { code: "input-enum-value-added", severity: "non-breaking" },
      output: { code: "output-enum-value-added", severity: "breaking" },
    },
    detect: (b, a, { side, path }) =>
      enumValuesOnlyIn(a, b).map((v) => ({
        message:
          side === "input"
            ? `Input \`${path}\` now also accepts ${JSON.stringify(v)}.`
            : `Output \`${path}\` can now return ${JSON.stringify(v)}, which existing readers do not expect.`,
        before: undefined,
        after: v,
      })),
  }),
  fieldRule({
    id: "description-changed",
    compares: "`description`",
    sides: {
      input: { code: "input-description-changed", severity: "non-breaking" },
      output: { code: "output-description-changed", severity: "non-breaking" },
    },
    detect: (b, a, { side, path }) =>
      b.description === a.description
        ? undefined
        : {
            message: `The description of ${side} \`${path}\` changed.`,
            before: b.description,
            after: a.description,
          },
  }),
] as const;

/** Enum values of `from` that `other` lacks (only when both are enums: a kind change is reported by itself). */
function enumValuesOnlyIn(from: FieldModel, other: FieldModel): readonly unknown[] {
  if (from.kind !== "enum" || other.kind !== "enum") return [];
  const others = other.enumValues ?? [];
  return (from.enumValues ?? []).filter((v) => !others.some((w) => sameJson(v, w)));
}

export const OBJECT_AND_UNION_RULES = [
  fieldRule({
    id: "additional-properties-allowed",
    compares: "`additionalProperties` of a nested object: undeclared keys now allowed",
    sides: {
      input: { code: "input-additional-properties-allowed", severity: "non-breaking" },
      // Opening an output object lets unknown keys through, which a tolerant reader ignores.
      output: { code: "output-additional-properties-allowed", severity: "non-breaking" },
    },
    detect: (b, a, { path, label }) =>
      bothObjects(b, a) && !(b.additionalProperties ?? false) && (a.additionalProperties ?? false)
        ? {
            message: `${label} \`${path}\` now accepts undeclared keys.`,
            before: false,
            after: true,
          }
        : undefined,
  }),
  fieldRule({
    id: "additional-properties-closed",
    compares: "`additionalProperties` of a nested object: undeclared keys now refused",
    sides: {
      input: { code: "input-additional-properties-closed", severity: "breaking" },
      output: { code: "output-additional-properties-closed", severity: "non-breaking" },
    },
    detect: (b, a, { path, label }) =>
      bothObjects(b, a) && (b.additionalProperties ?? false) && !(a.additionalProperties ?? false)
        ? {
            message: `${label} \`${path}\` no longer accepts undeclared keys.`,
            before: true,
            after: false,
          }
        : undefined,
  }),
  fieldRule({
    id: "alternative-removed",
    compares: "the alternatives of `oneOf` / `anyOf` / a type list, paired by kind",
    sides: {
      input: { code: "input-alternative-removed", severity: "breaking" },
      output: { code: "output-alternative-removed", severity: "non-breaking" },
    },
    detect: (b, a, { side, path, label }) =>
      bothUnions(b, a)
        ? pairVariants(b, a).removed.map((variant) => ({
            message: `${label} \`${path}\` no longer ${side === "input" ? "accepts" : "returns"} the ${kindLabel(variant)} alternative.`,
            before: describeField(variant),
            after: undefined,
          }))
        : undefined,
  }),
  fieldRule({
    id: "alternative-added",
    compares: "the alternatives of `oneOf` / `anyOf` / a type list, paired by kind",
    sides: {
      input: { code: "input-alternative-added", severity: "non-breaking" },
      output: { code: "output-alternative-added", severity: "breaking" },
    },
    detect: (b, a, { side, path }) =>
      bothUnions(b, a)
        ? pairVariants(b, a).added.map((variant) => ({
            message:
              side === "input"
                ? `Input \`${path}\` now also accepts a ${kindLabel(variant)} value.`
                : `Output \`${path}\` can now return a ${kindLabel(variant)} value, which existing readers do not expect.`,
            before: undefined,
            after: describeField(variant),
          }))
        : undefined,
  }),
  fieldRule({
    id: "alternatives-made-exclusive",
    compares:
      "`anyOf` (or a type list) became `oneOf`: a value matching several alternatives is refused",
    sides: {
      input: { code: "input-alternatives-made-exclusive", severity: "breaking" },
      output: { code: "output-alternatives-made-exclusive", severity: "non-breaking" },
    },
    detect: (b, a, { path, label }) =>
      bothUnions(b, a) && !b.exclusive && a.exclusive === true
        ? {
            message: `${label} \`${path}\` now matches exactly one alternative (oneOf): a value that matches several is refused.`,
            before: false,
            after: true,
          }
        : undefined,
  }),
  fieldRule({
    id: "alternatives-made-inclusive",
    compares: "`oneOf` became `anyOf` (or a type list)",
    sides: {
      input: { code: "input-alternatives-made-inclusive", severity: "non-breaking" },
      output: { code: "output-alternatives-made-inclusive", severity: "breaking" },
    },
    detect: (b, a, { path, label }) =>
      bothUnions(b, a) && b.exclusive === true && !a.exclusive
        ? {
            message: `${label} \`${path}\` now matches any number of alternatives (anyOf).`,
            before: true,
            after: false,
          }
        : undefined,
  }),
] as const;
