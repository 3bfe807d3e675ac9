// Rules over value constraints: lengths, item counts, bounds, multipleOf, uniqueItems, pattern.
//
// Inputs break when the service now rejects a value it accepted (the accepted
// set narrowed); outputs break when a reader can now receive a value the old
// definition excluded (the set widened). The same rule as oasdiff's
// request/response property checks.
//
// | constraint                                   | narrowed when                               |
// |----------------------------------------------|---------------------------------------------|
// | maxLength, maxItems                          | added, or lowered                           |
// | minLength, minItems                          | added, or raised                            |
// | maximum / exclusiveMaximum (one upper bound) | added, lowered, or made exclusive           |
// | minimum / exclusiveMinimum (one lower bound) | added, raised, or made exclusive            |
// | multipleOf                                   | added, or the old step is not a multiple of the new one |
// | uniqueItems                                  | made true                                   |
// | pattern                                      | added (changed: both ways, so breaking on either side) |
//
// The opposite change (removed, loosened) widens.

import type { FieldModel } from "../model.js";
import { type FieldContext, type Finding, fieldRule } from "./rule.js";

/** The severities of a narrowing and of a widening. */
const NARROWED = { input: "breaking", output: "non-breaking" } as const;
const WIDENED = { input: "non-breaking", output: "breaking" } as const;

type Direction = "narrowed" | "widened";

/** A count limit: the length of a text, the number of items of an array or properties of an object. */
type CountKey =
  | "maxLength"
  | "minLength"
  | "maxItems"
  | "minItems"
  | "maxProperties"
  | "minProperties";

const COUNT_WHAT: Record<CountKey, string> = {
  maxLength: "maximum length",
  minLength: "minimum length",
  maxItems: "maximum number of items",
  minItems: "minimum number of items",
  maxProperties: "maximum number of properties",
  minProperties: "minimum number of properties",
};

function countDirection(key: CountKey, b: FieldModel, a: FieldModel): Direction | undefined {
  const before = b[key];
  const after = a[key];
  if (before === after) return undefined;
  const upper = key === "maxLength" || key === "maxItems" || key === "maxProperties";
  const narrowed =
    after !== undefined && (before === undefined || (upper ? after < before : after > before));
  return narrowed ? "narrowed" : "widened";
}

function countRule<const I extends string, const O extends string>(
  key: CountKey,
  direction: Direction,
  codes: { readonly input: I; readonly output: O },
) {
  const severity = direction === "narrowed" ? NARROWED : WIDENED;
  return fieldRule({
    id: codes.input.replace(/^input-/, ""),
    compares: `\`${key}\`, ${direction === "narrowed" ? "added or tightened" : "removed or loosened"}`,
    sides: {
      input: { code: codes.input, severity: severity.input },
      output: { code: codes.output, severity: severity.output },
    },
    detect: (b, a, { side, path, label }) => {
      if (countDirection(key, b, a) !== direction) return undefined;
      const before = b[key];
      const after = a[key];
      const what = COUNT_WHAT[key];
      return {
        message:
          after === undefined
            ? `${label} \`${path}\` no longer has a ${what} (was ${before}).`
            : before === undefined
              ? `${label} \`${path}\` now has a ${what} of ${after}.`
              : `The ${what} of ${side} \`${path}\` changed from ${before} to ${after}.`,
        before,
        after,
      };
    },
  });
}

/** A numeric bound: `minimum` and `exclusiveMinimum` are one lower bound, the larger (exclusive on a tie) wins. */
interface Bound {
  readonly value: number;
  readonly exclusive: boolean;
}

function lowerBound(f: FieldModel): Bound | undefined {
  const { minimum: inclusive, exclusiveMinimum: exclusive } = f;
  if (exclusive !== undefined && (inclusive === undefined || exclusive >= inclusive))
    return { value: exclusive, exclusive: true };
  return inclusive === undefined ? undefined : { value: inclusive, exclusive: false };
}

function upperBound(f: FieldModel): Bound | undefined {
  const { maximum: inclusive, exclusiveMaximum: exclusive } = f;
  if (exclusive !== undefined && (inclusive === undefined || exclusive <= inclusive))
    return { value: exclusive, exclusive: true };
  return inclusive === undefined ? undefined : { value: inclusive, exclusive: false };
}

function boundText(bound: Bound): string {
  return `${bound.value}${bound.exclusive ? " (exclusive)" : ""}`;
}

function boundRule<const I extends string, const O extends string>(
  which: "minimum" | "maximum",
  direction: Direction,
  codes: { readonly input: I; readonly output: O },
) {
  const severity = direction === "narrowed" ? NARROWED : WIDENED;
  const upper = which === "maximum";
  const boundOf = upper ? upperBound : lowerBound;
  return fieldRule({
    id: codes.input.replace(/^input-/, ""),
    compares: `${upper ? "`maximum` / `exclusiveMaximum`" : "`minimum` / `exclusiveMinimum`"} (one bound), ${direction === "narrowed" ? "added or tightened" : "removed or loosened"}`,
    sides: {
      input: { code: codes.input, severity: severity.input },
      output: { code: codes.output, severity: severity.output },
    },
    detect: (b, a, { side, path, label }) => {
      const before = boundOf(b);
      const after = boundOf(a);
      if (before?.value === after?.value && before?.exclusive === after?.exclusive)
        return undefined;
      const narrowed =
        after !== undefined &&
        (before === undefined ||
          (upper ? after.value < before.value : after.value > before.value) ||
          (after.value === before.value && after.exclusive && !before.exclusive));
      if ((narrowed ? "narrowed" : "widened") !== direction) return undefined;
      return {
        message:
          after === undefined
            ? `${label} \`${path}\` no longer has a ${which} (was ${boundText(before as Bound)}).`
            : before === undefined
              ? `${label} \`${path}\` now has a ${which} of ${boundText(after)}.`
              : `The ${which} of ${side} \`${path}\` changed from ${boundText(before)} to ${boundText(after)}.`,
        before: before && boundText(before),
        after: after && boundText(after),
      };
    },
  });
}

/** Whether `multipleOf: wide` accepts every value `multipleOf: narrow` does (narrow is a whole multiple of wide). */
function multipleAccepts(wide: number, narrow: number): boolean {
  const ratio = narrow / wide;
  return Math.abs(ratio - Math.round(ratio)) < 1e-9;
}

/** How `multipleOf` changed: `changed` when neither step accepts all of the other's values. */
function multipleOfChange(b: FieldModel, a: FieldModel): Direction | "changed" | undefined {
  const before = b.multipleOf;
  const after = a.multipleOf;
  if (before === after) return undefined;
  if (
    before !== undefined &&
    after !== undefined &&
    !multipleAccepts(after, before) &&
    !multipleAccepts(before, after)
  )
    return "changed";
  return after !== undefined && (before === undefined || !multipleAccepts(after, before))
    ? "narrowed"
    : "widened";
}

function multipleOfMessage(b: FieldModel, a: FieldModel, { path, label }: FieldContext): Finding {
  const before = b.multipleOf;
  const after = a.multipleOf;
  return {
    message:
      after === undefined
        ? `${label} \`${path}\` no longer has to be a multiple of ${before}.`
        : before === undefined
          ? `${label} \`${path}\` must now be a multiple of ${after}.`
          : `${label} \`${path}\` must now be a multiple of ${after} (was ${before}).`,
    before,
    after,
  };
}

export const CONSTRAINT_RULES = [
  countRule("maxLength", "narrowed", {
    input: "input-max-length-narrowed",
    output: "output-max-length-narrowed",
  }),
  countRule("maxLength", "widened", {
    input: "input-max-length-widened",
    output: "output-max-length-widened",
  }),
  countRule("minLength", "narrowed", {
    input: "input-min-length-narrowed",
    output: "output-min-length-narrowed",
  }),
  countRule("minLength", "widened", {
    input: "input-min-length-widened",
    output: "output-min-length-widened",
  }),
  countRule("maxItems", "narrowed", {
    input: "input-max-items-narrowed",
    output: "output-max-items-narrowed",
  }),
  countRule("maxItems", "widened", {
    input: "input-max-items-widened",
    output: "output-max-items-widened",
  }),
  countRule("minItems", "narrowed", {
    input: "input-min-items-narrowed",
    output: "output-min-items-narrowed",
  }),
  countRule("minItems", "widened", {
    input: "input-min-items-widened",
    output: "output-min-items-widened",
  }),
  countRule("maxProperties", "narrowed", {
    input: "input-max-properties-narrowed",
    output: "output-max-properties-narrowed",
  }),
  countRule("maxProperties", "widened", {
    input: "input-max-properties-widened",
    output: "output-max-properties-widened",
  }),
  countRule("minProperties", "narrowed", {
    input: "input-min-properties-narrowed",
    output: "output-min-properties-narrowed",
  }),
  countRule("minProperties", "widened", {
    input: "input-min-properties-widened",
    output: "output-min-properties-widened",
  }),
  boundRule("minimum", "narrowed", {
    input: "input-minimum-narrowed",
    output: "output-minimum-narrowed",
  }),
  boundRule("minimum", "widened", {
    input: "input-minimum-widened",
    output: "output-minimum-widened",
  }),
  boundRule("maximum", "narrowed", {
    input: "input-maximum-narrowed",
    output: "output-maximum-narrowed",
  }),
  boundRule("maximum", "widened", {
    input: "input-maximum-widened",
    output: "output-maximum-widened",
  }),
  fieldRule({
    id: "multiple-of-narrowed",
    compares: "`multipleOf`, added, or the old step is not a multiple of the new one",
    sides: {
      input: { code: "input-multiple-of-narrowed", severity: NARROWED.input },
      output: { code: "output-multiple-of-narrowed", severity: NARROWED.output },
    },
    detect: (b, a, ctx) =>
      multipleOfChange(b, a) === "narrowed" ? multipleOfMessage(b, a, ctx) : undefined,
  }),
  fieldRule({
    id: "multiple-of-widened",
    compares: "`multipleOf`, removed, or the new step divides the old one",
    sides: {
      input: { code: "input-multiple-of-widened", severity: WIDENED.input },
      output: { code: "output-multiple-of-widened", severity: WIDENED.output },
    },
    detect: (b, a, ctx) =>
      multipleOfChange(b, a) === "widened" ? multipleOfMessage(b, a, ctx) : undefined,
  }),
  fieldRule({
    id: "multiple-of-changed",
    compares: "`multipleOf`, changed so that neither step accepts all of the other's values",
    sides: {
      // Some old values are rejected (breaks inputs) and some new ones are unexpected (breaks outputs).
      input: { code: "input-multiple-of-changed", severity: "breaking" },
      output: { code: "output-multiple-of-changed", severity: "breaking" },
    },
    detect: (b, a, { path, label }) =>
      multipleOfChange(b, a) === "changed"
        ? {
            message: `${label} \`${path}\` must now be a multiple of ${a.multipleOf} instead of ${b.multipleOf}.`,
            before: b.multipleOf,
            after: a.multipleOf,
          }
        : undefined,
  }),
  fieldRule({
    id: "unique-items-narrowed",
    compares: "`uniqueItems`, made true",
    sides: {
      input: { code: "input-unique-items-narrowed", severity: NARROWED.input },
      output: { code: "output-unique-items-narrowed", severity: NARROWED.output },
    },
    detect: (b, a, { path, label }) =>
      b.uniqueItems !== true && a.uniqueItems === true
        ? {
            message: `${label} \`${path}\` must now hold unique items.`,
            before: false,
            after: true,
          }
        : undefined,
  }),
  fieldRule({
    id: "unique-items-widened",
    compares: "`uniqueItems`, made false or removed",
    sides: {
      input: { code: "input-unique-items-widened", severity: WIDENED.input },
      output: { code: "output-unique-items-widened", severity: WIDENED.output },
    },
    detect: (b, a, { path, label }) =>
      b.uniqueItems === true && a.uniqueItems !== true
        ? {
            message: `${label} \`${path}\` may now hold repeated items.`,
            before: true,
            after: false,
          }
        : undefined,
  }),
  fieldRule({
    id: "pattern-added",
    compares: "`pattern`, added",
    sides: {
      input: { code: "input-pattern-added", severity: NARROWED.input },
      output: { code: "output-pattern-added", severity: NARROWED.output },
    },
    detect: (b, a, { path, label }) =>
      b.pattern === undefined && a.pattern !== undefined
        ? {
            message: `${label} \`${path}\` must now match the pattern ${a.pattern}.`,
            before: b.pattern,
            after: a.pattern,
          }
        : undefined,
  }),
  fieldRule({
    id: "pattern-removed",
    compares: "`pattern`, removed",
    sides: {
      input: { code: "input-pattern-removed", severity: WIDENED.input },
      output: { code: "output-pattern-removed", severity: WIDENED.output },
    },
    detect: (b, a, { path, label }) =>
      b.pattern !== undefined && a.pattern === undefined
        ? {
            message: `${label} \`${path}\` no longer has to match the pattern ${b.pattern}.`,
            before: b.pattern,
            after: a.pattern,
          }
        : undefined,
  }),
  fieldRule({
    id: "pattern-changed",
    // Whether one regular expression accepts all that another does is not decidable here.
    compares: "`pattern`, changed (breaking on both sides: the two sets are not compared)",
    sides: {
      input: { code: "input-pattern-changed", severity: "breaking" },
      output: { code: "output-pattern-changed", severity: "breaking" },
    },
    detect: (b, a, { side, path }) =>
      b.pattern !== undefined && a.pattern !== undefined && b.pattern !== a.pattern
        ? {
            message: `The pattern of ${side} \`${path}\` changed from ${b.pattern} to ${a.pattern}.`,
            before: b.pattern,
            after: a.pattern,
          }
        : undefined,
  }),
] as const;
