// The rules of the breaking-change diff, one small named entry each: what it
// compares, the code it reports on inputs and on outputs (written out in full,
// so that a code seen in a pull-request comment is found by searching for it),
// the severity on each side, and the sentence it reports. `diff.ts` walks the
// two models and applies every rule; the codes form a closed union derived
// from these tables, and the catalogue in the codegen README is rendered from
// them (`diff-catalogue.ts`).
//
// Every change is judged from the point of view of a caller written against
// the OLD definition: inputs break when the service now rejects something the
// caller sends (or requires something it does not send); outputs break when a
// reader can now receive a value it did not expect, or a field it read is gone
// or may be missing.

import { kindLabel } from "./field-kinds.js";
import { sameJson } from "./json-equal.js";
import type { FieldKind, FieldModel, WorkflowModel } from "./model.js";

export type DiffSeverity = "breaking" | "non-breaking";

/** What one rule found: the sentence and the two values. */
export interface Finding {
  readonly message: string;
  readonly before?: unknown;
  readonly after?: unknown;
  /** Only for a rule whose severity is `"depends"` on the field. */
  readonly severity?: DiffSeverity;
}

/** The code and severity a rule reports on one side. `depends`: the finding says which. */
export interface SideCode<Code extends string = string> {
  readonly code: Code;
  readonly severity: DiffSeverity | "depends";
}

export type Side = "input" | "output";

/** Where a field rule is applied: which side, the field's path, and "Input"/"Output". */
export interface FieldContext {
  readonly side: Side;
  readonly path: string;
  readonly label: "Input" | "Output";
}

type Found = Finding | readonly Finding[] | undefined;

interface RuleBase {
  /** The rule's name, unique in its table. */
  readonly id: string;
  /** What the rule compares, for the catalogue. */
  readonly compares: string;
}

export interface WorkflowRule<Code extends string = string> extends RuleBase {
  readonly side: SideCode<Code>;
  /** The path the change is reported at; null for the workflow itself. */
  readonly path: "outputs" | null;
  readonly detect: (before: WorkflowModel, after: WorkflowModel, name: string) => Found;
}

/** A field present on one side only: `before` or `after` is undefined. */
export interface PresenceRule<
  Codes extends Partial<Record<Side, SideCode>> = Partial<Record<Side, SideCode>>,
> extends RuleBase {
  readonly sides: Codes;
  readonly detect: (
    before: FieldModel | undefined,
    after: FieldModel | undefined,
    ctx: FieldContext,
  ) => Found;
}

export interface FieldRule<
  Codes extends Partial<Record<Side, SideCode>> = Partial<Record<Side, SideCode>>,
> extends RuleBase {
  readonly sides: Codes;
  readonly detect: (before: FieldModel, after: FieldModel, ctx: FieldContext) => Found;
}

const workflowRule = <const Code extends string>(rule: WorkflowRule<Code>) => rule;
const presenceRule = <const Codes extends Partial<Record<Side, SideCode>>>(
  rule: PresenceRule<Codes>,
) => rule;
const fieldRule = <const Codes extends Partial<Record<Side, SideCode>>>(rule: FieldRule<Codes>) =>
  rule;

// ---- workflows -------------------------------------------------------------

/** A workflow only in the old definition, or only in the new one (not a pair, so not a WorkflowRule). */
export const WORKFLOW_REMOVED = { code: "workflow-removed", severity: "breaking" } as const;
export const WORKFLOW_ADDED = { code: "workflow-added", severity: "non-breaking" } as const;

export const WORKFLOW_RULES = [
  workflowRule({
    id: "workflow-renamed",
    compares: "`x-workflow.name`",
    side: { code: "workflow-renamed", severity: "non-breaking" },
    path: null,
    detect: (b, a, name) =>
      b.name === a.name
        ? undefined
        : {
            message: `Workflow "${b.name}" was renamed to ${name}.`,
            before: b.name,
            after: a.name,
          },
  }),
  workflowRule({
    id: "workflow-identifier-changed",
    compares: "the generated identifier (the key in `workflows`)",
    side: { code: "workflow-identifier-changed", severity: "breaking" },
    path: null,
    detect: (b, a, name) =>
      b.identifier === a.identifier
        ? undefined
        : {
            message: `The generated identifier of ${name} changed from ${b.identifier} to ${a.identifier}.`,
            before: b.identifier,
            after: a.identifier,
          },
  }),
  workflowRule({
    id: "workflow-made-draft",
    compares: "`x-workflow.state`: enabled to draft",
    side: { code: "workflow-made-draft", severity: "breaking" },
    path: null,
    detect: (b, a, name) => noLongerLaunchable(b, a, name, "draft"),
  }),
  workflowRule({
    id: "workflow-disabled",
    compares: "`x-workflow.state`: enabled to disabled",
    side: { code: "workflow-disabled", severity: "breaking" },
    path: null,
    detect: (b, a, name) => noLongerLaunchable(b, a, name, "disabled"),
  }),
  workflowRule({
    id: "workflow-enabled",
    compares: "`x-workflow.state`: draft or disabled to enabled",
    side: { code: "workflow-enabled", severity: "non-breaking" },
    path: null,
    detect: (b, a, name) =>
      b.state !== "enabled" && a.state === "enabled"
        ? {
            message: `Workflow ${name} was enabled (was ${b.state}).`,
            before: b.state,
            after: a.state,
          }
        : undefined,
  }),
  workflowRule({
    id: "workflow-state-changed",
    compares: "`x-workflow.state`: between draft and disabled",
    side: { code: "workflow-state-changed", severity: "non-breaking" },
    path: null,
    detect: (b, a, name) =>
      b.state !== a.state && b.state !== "enabled" && a.state !== "enabled"
        ? {
            message: `Workflow ${name} changed state from ${b.state} to ${a.state}; it was not launchable before either.`,
            before: b.state,
            after: a.state,
          }
        : undefined,
  }),
  workflowRule({
    id: "workflow-revision-changed",
    compares: "`x-workflow.revision`",
    side: { code: "workflow-revision-changed", severity: "non-breaking" },
    path: null,
    detect: (b, a, name) =>
      b.revision === a.revision
        ? undefined
        : {
            message: `Workflow ${name} revision changed from ${b.revision} to ${a.revision}.`,
            before: b.revision,
            after: a.revision,
          },
  }),
  workflowRule({
    id: "workflow-description-changed",
    compares: "the launch operation's description",
    side: { code: "workflow-description-changed", severity: "non-breaking" },
    path: null,
    detect: (b, a, name) =>
      b.description === a.description
        ? undefined
        : {
            message: `The description of workflow ${name} changed.`,
            before: b.description,
            after: a.description,
          },
  }),
  workflowRule({
    id: "model-exposure-removed",
    compares: "`model` in the launch body",
    side: { code: "model-exposure-removed", severity: "breaking" },
    path: null,
    detect: (b, a, name) =>
      b.modelExposed && !a.modelExposed
        ? {
            message: `Workflow ${name} no longer accepts \`model\` in the launch body.`,
            before: true,
            after: false,
          }
        : undefined,
  }),
  workflowRule({
    id: "model-exposure-added",
    compares: "`model` in the launch body",
    side: { code: "model-exposure-added", severity: "non-breaking" },
    path: null,
    detect: (b, a, name) =>
      !b.modelExposed && a.modelExposed
        ? {
            message: `Workflow ${name} now accepts \`model\` in the launch body.`,
            before: false,
            after: true,
          }
        : undefined,
  }),
  workflowRule({
    id: "outputs-closed",
    compares: "`additionalProperties` of the outputs object",
    side: { code: "outputs-closed", severity: "non-breaking" },
    path: "outputs",
    detect: (b, a, name) =>
      !b.outputsClosed && a.outputsClosed
        ? {
            message: `The outputs of ${name} now declare no undeclared fields.`,
            before: false,
            after: true,
          }
        : undefined,
  }),
  workflowRule({
    id: "outputs-opened",
    compares: "`additionalProperties` of the outputs object",
    side: { code: "outputs-opened", severity: "non-breaking" },
    path: "outputs",
    detect: (b, a, name) =>
      b.outputsClosed && !a.outputsClosed
        ? {
            message: `The outputs of ${name} may now carry undeclared fields.`,
            before: true,
            after: false,
          }
        : undefined,
  }),
] as const;

function noLongerLaunchable(
  b: WorkflowModel,
  a: WorkflowModel,
  name: string,
  state: "draft" | "disabled",
): Finding | undefined {
  if (b.state !== "enabled" || a.state !== state) return undefined;
  return {
    message: `Workflow ${name} can no longer be launched: its state changed from enabled to ${state}.`,
    before: b.state,
    after: a.state,
  };
}

// ---- fields present on one side only ------------------------------------------

/** Whether a caller must send this input (required and no saved default). */
export function callerMustSend(field: FieldModel): boolean {
  return field.required && !field.hasDefault;
}

export const PRESENCE_RULES = [
  presenceRule({
    id: "field-removed",
    compares: "a field in the old definition, missing from the new one",
    sides: {
      input: { code: "input-removed", severity: "breaking" },
      output: { code: "output-removed", severity: "breaking" },
    },
    detect: (b, a, { side, path }) =>
      b === undefined || a !== undefined
        ? undefined
        : {
            message:
              side === "input"
                ? `Input \`${path}\` was removed; a caller that still sends it is rejected (undeclared keys are not accepted).`
                : `Output \`${path}\` was removed; a reader that uses it gets nothing.`,
            before: describeField(b),
          },
  }),
  presenceRule({
    id: "input-added-required",
    compares: "a new input that callers must send (required, no saved default)",
    sides: { input: { code: "input-added-required", severity: "breaking" } },
    detect: (b, a, { path }) =>
      b === undefined && a !== undefined && callerMustSend(a)
        ? {
            message: `Required input \`${path}\` was added without a default; existing callers do not send it.`,
            after: describeField(a),
          }
        : undefined,
  }),
  presenceRule({
    id: "input-added-optional",
    compares: "a new input that callers may leave out",
    sides: { input: { code: "input-added-optional", severity: "non-breaking" } },
    detect: (b, a, { path }) =>
      b === undefined && a !== undefined && !callerMustSend(a)
        ? { message: `Optional input \`${path}\` was added.`, after: describeField(a) }
        : undefined,
  }),
  presenceRule({
    id: "output-added",
    compares: "a new output",
    sides: { output: { code: "output-added", severity: "non-breaking" } },
    detect: (b, a, { path }) =>
      b === undefined && a !== undefined
        ? { message: `Output \`${path}\` was added.`, after: describeField(a) }
        : undefined,
  }),
] as const;

// ---- one field on both sides --------------------------------------------------

/** The base kind of a value set, used to compare kinds: an enum of text is "text"-like. */
function baseOf(field: FieldModel): FieldKind {
  return field.kind === "enum" ? (field.enumBase ?? "text") : field.kind;
}

/**
 * Whether every value of `narrow` is also a value of `wide`, looking only at
 * the kinds (enum values, formats, nullability and lengths are compared
 * separately).
 */
export function kindAccepts(wide: FieldModel, narrow: FieldModel): boolean {
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

const KIND_AND_PRESENCE_RULES = [
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

const FORMAT_ENUM_DESCRIPTION_RULES = [
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

const OBJECT_AND_UNION_RULES = [
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

// ---- value constraints ----------------------------------------------------------
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

/** The severities of a narrowing and of a widening. */
const NARROWED = { input: "breaking", output: "non-breaking" } as const;
const WIDENED = { input: "non-breaking", output: "breaking" } as const;

type Direction = "narrowed" | "widened";

/** A count limit: the length of a text, the number of items of an array. */
type CountKey = "maxLength" | "minLength" | "maxItems" | "minItems";

const COUNT_WHAT: Record<CountKey, string> = {
  maxLength: "maximum length",
  minLength: "minimum length",
  maxItems: "maximum number of items",
  minItems: "minimum number of items",
};

function countDirection(key: CountKey, b: FieldModel, a: FieldModel): Direction | undefined {
  const before = b[key];
  const after = a[key];
  if (before === after) return undefined;
  const upper = key === "maxLength" || key === "maxItems";
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

const CONSTRAINT_RULES = [
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

/**
 * A model key no rule compares changed in a way the diff cannot classify (see
 * `FIELD_KEYS` in diff.ts): reported as breaking, because silence would be
 * worse. `diff.ts` finds these; the entry gives them their code.
 */
export const SCHEMA_CHANGED = {
  id: "schema-changed",
  compares: "a part of a schema that no rule above compares",
  sides: {
    input: { code: "input-schema-changed", severity: "breaking" },
    output: { code: "output-schema-changed", severity: "breaking" },
  },
} as const;

export const FIELD_RULES = [
  ...KIND_AND_PRESENCE_RULES,
  ...FORMAT_ENUM_DESCRIPTION_RULES,
  ...OBJECT_AND_UNION_RULES,
  ...CONSTRAINT_RULES,
] as const;

type CodesOfSides<S> = S extends Partial<Record<Side, SideCode<infer C>>> ? C : never;

/** Every code the diff can report: a closed union derived from the tables above. */
export type DiffChangeKind =
  | typeof WORKFLOW_REMOVED.code
  | typeof WORKFLOW_ADDED.code
  | (typeof WORKFLOW_RULES)[number]["side"]["code"]
  | CodesOfSides<(typeof PRESENCE_RULES)[number]["sides"]>
  | CodesOfSides<(typeof FIELD_RULES)[number]["sides"]>
  | CodesOfSides<(typeof SCHEMA_CHANGED)["sides"]>;

// ---- summaries -------------------------------------------------------------------

/** A compact, JSON-friendly summary of a field for `before` / `after`. */
export function describeField(field: FieldModel): Record<string, unknown> {
  const out: Record<string, unknown> = { kind: field.kind, required: field.required };
  if (field.nullable) out.nullable = true;
  if (field.hasDefault) out.default = field.default;
  if (field.format !== undefined) out.format = field.format;
  if (field.enumValues !== undefined) out.enum = [...field.enumValues];
  for (const key of CONSTRAINT_KEYS) if (field[key] !== undefined) out[key] = field[key];
  if (field.items !== undefined) out.items = describeField(field.items);
  if (field.variants !== undefined) out.variants = field.variants.map(describeField);
  if (field.exclusive === true) out.exclusive = true;
  if (field.values !== undefined) out.values = describeField(field.values);
  if (field.fields !== undefined) {
    const props: Record<string, unknown> = {};
    for (const f of field.fields) defineKey(props, f.name, describeField(f));
    out.fields = props;
  }
  return out;
}

/** The value constraints `describeField` lists. */
const CONSTRAINT_KEYS = [
  "maxLength",
  "minLength",
  "pattern",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
  "uniqueItems",
] as const satisfies readonly (keyof FieldModel)[];

/** Sets an own key, safe for `__proto__` and friends. */
export function defineKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
