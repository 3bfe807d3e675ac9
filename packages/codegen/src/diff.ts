// The breaking-change diff: a pure function over two normalized models.
//
// Every change is judged from the point of view of a caller written against
// the OLD definition: inputs break when the service now rejects something the
// caller sends (or requires something it does not send); outputs break when a
// reader can now receive a value it did not expect, or a field it read is gone
// or may be missing.

import { kindLabel } from "./field-kinds.js";
import type { EnvironmentModel, FieldKind, FieldModel, WorkflowModel } from "./model.js";

export type DiffSeverity = "breaking" | "non-breaking";

export interface DiffChange {
  /** The workflow's id in the new definition (the old one when the workflow was removed). */
  readonly workflowId: string;
  readonly workflowName: string;
  readonly severity: DiffSeverity;
  /** A stable kebab-case code, for example `input-removed`. */
  readonly kind: string;
  /** `inputs.vendor_name`, `outputs.ledger_lines[].account`, or null for a workflow-level change. */
  readonly path: string | null;
  /** One human sentence. */
  readonly message: string;
  readonly before?: unknown;
  readonly after?: unknown;
}

export interface DiffSide {
  readonly environment: string;
  readonly sourceFile: string;
}

export interface DiffReport {
  readonly old: DiffSide;
  readonly new: DiffSide;
  readonly changes: readonly DiffChange[];
  readonly summary: { readonly breaking: number; readonly nonBreaking: number };
}

export interface DiffOptions {
  /**
   * How workflows are paired. `id` (default) for two versions of one
   * environment; `name` for two environments (ids differ), falling back to the
   * workflow's identifier when a name is not unique or not found.
   */
  readonly matchBy?: "id" | "name";
}

type Emit = (
  severity: DiffSeverity,
  kind: string,
  path: string | null,
  message: string,
  before?: unknown,
  after?: unknown,
) => void;

/** Compares two environments' models and classifies every change per workflow. */
export function diffEnvironments(
  oldModel: EnvironmentModel,
  newModel: EnvironmentModel,
  options: DiffOptions = {},
): DiffReport {
  const matchBy = options.matchBy ?? "id";
  const { pairs, removed, added } = matchWorkflows(oldModel.workflows, newModel.workflows, matchBy);
  const changes: DiffChange[] = [];

  for (const wf of removed) {
    changes.push({
      workflowId: wf.id,
      workflowName: wf.name,
      severity: "breaking",
      kind: "workflow-removed",
      path: null,
      message: `Workflow "${wf.name}" was removed.`,
      before: wf.id,
    });
  }
  for (const wf of added) {
    changes.push({
      workflowId: wf.id,
      workflowName: wf.name,
      severity: "non-breaking",
      kind: "workflow-added",
      path: null,
      message: `Workflow "${wf.name}" was added (${wf.state}).`,
      after: wf.id,
    });
  }
  for (const [before, after] of pairs) {
    const emit: Emit = (severity, kind, path, message, b, a) => {
      const change: {
        -readonly [K in keyof DiffChange]: DiffChange[K];
      } = { workflowId: after.id, workflowName: after.name, severity, kind, path, message };
      if (b !== undefined) change.before = b;
      if (a !== undefined) change.after = a;
      changes.push(change);
    };
    diffWorkflow(before, after, emit);
  }

  changes.sort(compareChanges);
  const breaking = changes.filter((c) => c.severity === "breaking").length;
  return {
    old: { environment: oldModel.name, sourceFile: oldModel.sourceFile },
    new: { environment: newModel.name, sourceFile: newModel.sourceFile },
    changes,
    summary: { breaking, nonBreaking: changes.length - breaking },
  };
}

/** Plain code-unit comparison: the same order on every machine and locale. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareChanges(a: DiffChange, b: DiffChange): number {
  return (
    compareStrings(a.workflowName, b.workflowName) ||
    compareStrings(a.workflowId, b.workflowId) ||
    severityRank(a.severity) - severityRank(b.severity) ||
    compareStrings(a.path ?? "", b.path ?? "") ||
    compareStrings(a.kind, b.kind) ||
    compareStrings(a.message, b.message)
  );
}

function severityRank(severity: DiffSeverity): number {
  return severity === "breaking" ? 0 : 1;
}

interface Matching {
  pairs: [WorkflowModel, WorkflowModel][];
  removed: WorkflowModel[];
  added: WorkflowModel[];
}

function matchWorkflows(
  oldList: readonly WorkflowModel[],
  newList: readonly WorkflowModel[],
  matchBy: "id" | "name",
): Matching {
  const pairs: [WorkflowModel, WorkflowModel][] = [];
  const oldLeft = new Set(oldList);
  const newLeft = new Set(newList);

  const pairBy = (key: (wf: WorkflowModel) => string) => {
    const oldIndex = uniqueIndex([...oldLeft], key);
    const newIndex = uniqueIndex([...newLeft], key);
    for (const [k, before] of oldIndex) {
      const after = newIndex.get(k);
      if (after) {
        pairs.push([before, after]);
        oldLeft.delete(before);
        newLeft.delete(after);
      }
    }
  };

  if (matchBy === "id") {
    pairBy((wf) => wf.id);
  } else {
    pairBy((wf) => wf.name);
    pairBy((wf) => wf.identifier);
  }
  return { pairs, removed: [...oldLeft], added: [...newLeft] };
}

/** Maps key -> workflow for keys held by exactly one workflow (ambiguous keys are not matched). */
function uniqueIndex(
  list: readonly WorkflowModel[],
  key: (wf: WorkflowModel) => string,
): Map<string, WorkflowModel> {
  const index = new Map<string, WorkflowModel>();
  const dup = new Set<string>();
  for (const wf of list) {
    const k = key(wf);
    if (index.has(k)) dup.add(k);
    else index.set(k, wf);
  }
  for (const k of dup) index.delete(k);
  return index;
}

function diffWorkflow(before: WorkflowModel, after: WorkflowModel, emit: Emit): void {
  const wfName = `"${after.name}"`;
  if (before.name !== after.name) {
    emit(
      "non-breaking",
      "workflow-renamed",
      null,
      `Workflow "${before.name}" was renamed to ${wfName}.`,
      before.name,
      after.name,
    );
  }
  if (before.identifier !== after.identifier) {
    emit(
      "breaking",
      "workflow-identifier-changed",
      null,
      `The generated identifier of ${wfName} changed from ${before.identifier} to ${after.identifier}.`,
      before.identifier,
      after.identifier,
    );
  }
  if (before.state !== after.state) {
    if (before.state === "enabled") {
      emit(
        "breaking",
        after.state === "draft" ? "workflow-made-draft" : "workflow-disabled",
        null,
        `Workflow ${wfName} can no longer be launched: its state changed from enabled to ${after.state}.`,
        before.state,
        after.state,
      );
    } else if (after.state === "enabled") {
      emit(
        "non-breaking",
        "workflow-enabled",
        null,
        `Workflow ${wfName} was enabled (was ${before.state}).`,
        before.state,
        after.state,
      );
    } else {
      emit(
        "non-breaking",
        "workflow-state-changed",
        null,
        `Workflow ${wfName} changed state from ${before.state} to ${after.state}; it was not launchable before either.`,
        before.state,
        after.state,
      );
    }
  }
  if (before.revision !== after.revision) {
    emit(
      "non-breaking",
      "workflow-revision-changed",
      null,
      `Workflow ${wfName} revision changed from ${before.revision} to ${after.revision}.`,
      before.revision,
      after.revision,
    );
  }
  if (before.description !== after.description) {
    emit(
      "non-breaking",
      "workflow-description-changed",
      null,
      `The description of workflow ${wfName} changed.`,
      before.description,
      after.description,
    );
  }
  if (before.modelExposed && !after.modelExposed) {
    emit(
      "breaking",
      "model-exposure-removed",
      null,
      `Workflow ${wfName} no longer accepts \`model\` in the launch body.`,
      true,
      false,
    );
  } else if (!before.modelExposed && after.modelExposed) {
    emit(
      "non-breaking",
      "model-exposure-added",
      null,
      `Workflow ${wfName} now accepts \`model\` in the launch body.`,
      false,
      true,
    );
  }

  diffFieldLists("input", "inputs", before.inputs, after.inputs, emit);
  diffFieldLists("output", "outputs", before.outputs, after.outputs, emit);
  if (before.outputsClosed !== after.outputsClosed) {
    emit(
      "non-breaking",
      after.outputsClosed ? "outputs-closed" : "outputs-opened",
      "outputs",
      after.outputsClosed
        ? `The outputs of ${wfName} now declare no undeclared fields.`
        : `The outputs of ${wfName} may now carry undeclared fields.`,
      before.outputsClosed,
      after.outputsClosed,
    );
  }
}

type Side = "input" | "output";

function byName(fields: readonly FieldModel[]): Map<string, FieldModel> {
  const map = new Map<string, FieldModel>();
  for (const f of fields) map.set(f.name, f);
  return map;
}

function childPath(parent: string, name: string): string {
  return `${parent}.${name}`;
}

/** Whether a caller must send this input (required and no saved default). */
function callerMustSend(field: FieldModel): boolean {
  return field.required && !field.hasDefault;
}

function diffFieldLists(
  side: Side,
  parentPath: string,
  beforeFields: readonly FieldModel[],
  afterFields: readonly FieldModel[],
  emit: Emit,
): void {
  const beforeMap = byName(beforeFields);
  const afterMap = byName(afterFields);
  for (const [name, b] of beforeMap) {
    const path = childPath(parentPath, name);
    const a = afterMap.get(name);
    if (!a) {
      if (side === "input") {
        emit(
          "breaking",
          "input-removed",
          path,
          `Input \`${path}\` was removed; a caller that still sends it is rejected (undeclared keys are not accepted).`,
          describeField(b),
        );
      } else {
        emit(
          "breaking",
          "output-removed",
          path,
          `Output \`${path}\` was removed; a reader that uses it gets nothing.`,
          describeField(b),
        );
      }
      continue;
    }
    diffField(side, path, b, a, emit);
  }
  for (const [name, a] of afterMap) {
    if (beforeMap.has(name)) continue;
    const path = childPath(parentPath, name);
    if (side === "input") {
      if (callerMustSend(a)) {
        emit(
          "breaking",
          "input-added-required",
          path,
          `Required input \`${path}\` was added without a default; existing callers do not send it.`,
          undefined,
          describeField(a),
        );
      } else {
        emit(
          "non-breaking",
          "input-added-optional",
          path,
          `Optional input \`${path}\` was added.`,
          undefined,
          describeField(a),
        );
      }
    } else {
      emit(
        "non-breaking",
        "output-added",
        path,
        `Output \`${path}\` was added.`,
        undefined,
        describeField(a),
      );
    }
  }
}

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

function diffField(side: Side, path: string, b: FieldModel, a: FieldModel, emit: Emit): void {
  const label = side === "input" ? "Input" : "Output";
  const cap = side;

  // Kind.
  if (
    b.kind !== a.kind ||
    (b.kind === "enum" && (b.enumBase ?? "text") !== (a.enumBase ?? "text"))
  ) {
    const bk = kindLabel(b);
    const ak = kindLabel(a);
    // Inputs break when the new kind accepts less; outputs break when it can hold more.
    const compatible = side === "input" ? kindAccepts(a, b) : kindAccepts(b, a);
    if (compatible) {
      emit(
        "non-breaking",
        side === "input" ? "input-type-widened" : "output-type-narrowed",
        path,
        `${label} \`${path}\` changed type from ${bk} to ${ak}, which ${side === "input" ? "still accepts every value callers send" : "only returns values readers already handle"}.`,
        bk,
        ak,
      );
    } else {
      emit(
        "breaking",
        `${cap}-type-changed`,
        path,
        `${label} \`${path}\` changed type from ${bk} to ${ak}.`,
        bk,
        ak,
      );
    }
  }

  // Required / defaults.
  if (side === "input") {
    const mustBefore = callerMustSend(b);
    const mustAfter = callerMustSend(a);
    if (b.hasDefault && !a.hasDefault) {
      emit(
        mustAfter ? "breaking" : "non-breaking",
        "input-default-removed",
        path,
        mustAfter
          ? `Input \`${path}\` lost its saved default and is now required; callers that relied on the default are rejected.`
          : `Input \`${path}\` lost its saved default; it stays optional.`,
        b.default,
        undefined,
      );
    } else if (!b.hasDefault && a.hasDefault) {
      emit(
        "non-breaking",
        "input-default-added",
        path,
        `Input \`${path}\` gained a saved default.`,
        undefined,
        a.default,
      );
    } else if (b.hasDefault && a.hasDefault && !sameJson(b.default, a.default)) {
      emit(
        "non-breaking",
        "input-default-changed",
        path,
        `The saved default of input \`${path}\` changed.`,
        b.default,
        a.default,
      );
    }
    if (!mustBefore && mustAfter && !(b.hasDefault && !a.hasDefault)) {
      emit(
        "breaking",
        "input-made-required",
        path,
        `Input \`${path}\` was optional and is now required.`,
        false,
        true,
      );
    } else if (mustBefore && !mustAfter && !(!b.hasDefault && a.hasDefault)) {
      emit(
        "non-breaking",
        "input-made-optional",
        path,
        `Input \`${path}\` was required and is now optional.`,
        true,
        false,
      );
    }
  } else if (b.required !== a.required) {
    if (b.required) {
      emit(
        "breaking",
        "output-made-optional",
        path,
        `Output \`${path}\` is no longer always returned; a reader that relies on it may get nothing.`,
        true,
        false,
      );
    } else {
      emit(
        "non-breaking",
        "output-made-required",
        path,
        `Output \`${path}\` is now always returned.`,
        false,
        true,
      );
    }
  }

  // Nullability.
  if (b.nullable !== a.nullable) {
    const widened = a.nullable;
    const breaking = side === "input" ? !widened : widened;
    emit(
      breaking ? "breaking" : "non-breaking",
      `${cap}-nullability-${widened ? "widened" : "narrowed"}`,
      path,
      widened
        ? `${label} \`${path}\` can now be null.`
        : `${label} \`${path}\` can no longer be null.`,
      b.nullable,
      a.nullable,
    );
  }

  // Format.
  if (b.format !== a.format) {
    if (b.format === undefined) {
      emit(
        side === "input" ? "breaking" : "non-breaking",
        `${cap}-format-added`,
        path,
        `${label} \`${path}\` now has format ${a.format}.`,
        undefined,
        a.format,
      );
    } else if (a.format === undefined) {
      emit(
        side === "input" ? "non-breaking" : "breaking",
        `${cap}-format-removed`,
        path,
        `${label} \`${path}\` no longer has format ${b.format}.`,
        b.format,
        undefined,
      );
    } else {
      emit(
        "breaking",
        `${cap}-format-changed`,
        path,
        `${label} \`${path}\` changed format from ${b.format} to ${a.format}.`,
        b.format,
        a.format,
      );
    }
  }

  // Enum values (only when both sides are enums: a kind change was reported above).
  if (b.kind === "enum" && a.kind === "enum") {
    const bv = b.enumValues ?? [];
    const av = a.enumValues ?? [];
    for (const v of bv) {
      if (av.some((w) => sameJson(v, w))) continue;
      emit(
        side === "input" ? "breaking" : "non-breaking",
        `${cap}-enum-value-removed`,
        path,
        `${label} \`${path}\` no longer ${side === "input" ? "accepts" : "returns"} ${JSON.stringify(v)}.`,
        v,
        undefined,
      );
    }
    for (const v of av) {
      if (bv.some((w) => sameJson(v, w))) continue;
      emit(
        side === "input" ? "non-breaking" : "breaking",
        `${cap}-enum-value-added`,
        path,
        side === "input"
          ? `Input \`${path}\` now also accepts ${JSON.stringify(v)}.`
          : `Output \`${path}\` can now return ${JSON.stringify(v)}, which existing readers do not expect.`,
        undefined,
        v,
      );
    }
  }

  // Value constraints (lengths, bounds, counts, multipleOf, uniqueItems, pattern).
  diffValueConstraints(side, path, b, a, emit);

  // Description.
  if (b.description !== a.description) {
    emit(
      "non-breaking",
      `${cap}-description-changed`,
      path,
      `The description of ${side} \`${path}\` changed.`,
      b.description,
      a.description,
    );
  }

  // Nested objects and arrays.
  if (b.kind === "object" && a.kind === "object") {
    diffFieldLists(side, path, b.fields ?? [], a.fields ?? [], emit);
    const bOpen = b.additionalProperties ?? false;
    const aOpen = a.additionalProperties ?? false;
    if (bOpen !== aOpen) {
      // Inputs: closing rejects extra keys callers may send. Outputs: opening lets
      // unknown keys through, which a tolerant reader ignores.
      emit(
        side === "input" && !aOpen ? "breaking" : "non-breaking",
        `${cap}-additional-properties-${aOpen ? "allowed" : "closed"}`,
        path,
        aOpen
          ? `${label} \`${path}\` now accepts undeclared keys.`
          : `${label} \`${path}\` no longer accepts undeclared keys.`,
        bOpen,
        aOpen,
      );
    }
  }
  // Map values (`additionalProperties: <schema>`) are compared like array items.
  if (b.kind === "object" && a.kind === "object" && b.values && a.values) {
    diffField(
      side,
      `${path}{}`,
      { ...b.values, required: true },
      { ...a.values, required: true },
      emit,
    );
  }
  if (b.kind === "array" && a.kind === "array" && b.items && a.items) {
    diffField(
      side,
      `${path}[]`,
      { ...b.items, required: true },
      { ...a.items, required: true },
      emit,
    );
  }
  if (b.kind === "union" && a.kind === "union") diffUnionVariants(side, path, b, a, emit);
  if (b.kind === "all" && a.kind === "all") diffAllParts(side, path, b, a, emit);
  diffUnclassifiedKeys(side, path, b, a, emit);
}

/**
 * The parts of a schema whose every part must hold (kind `all`): compared
 * part by part with every rule when both sides have as many parts (path
 * `inputs.a(all of 2)`); a part added or removed is reported as breaking.
 */
function diffAllParts(side: Side, path: string, b: FieldModel, a: FieldModel, emit: Emit): void {
  const before = b.variants ?? [];
  const after = a.variants ?? [];
  if (before.length === after.length) {
    for (const [i, part] of before.entries())
      diffField(
        side,
        `${path}(all of ${i + 1})`,
        { ...part, required: true },
        { ...(after[i] as FieldModel), required: true },
        emit,
      );
    return;
  }
  emit(
    "breaking",
    `${side}-schema-changed`,
    path,
    `The parts of ${side} \`${path}\` that must all hold changed (${before.length} -> ${after.length}); review it by hand.`,
    before.map(describeField),
    after.map(describeField),
  );
}

/**
 * The alternatives of a `oneOf` / `anyOf` / type list, paired by kind
 * (`inputs.amount(one of text)`): an alternative added widens, one removed
 * narrows, and a pair is compared with every rule. `anyOf` becoming `oneOf`
 * narrows (a value matching two alternatives is now refused).
 */
function diffUnionVariants(
  side: Side,
  path: string,
  b: FieldModel,
  a: FieldModel,
  emit: Emit,
): void {
  const label = side === "input" ? "Input" : "Output";
  const after = [...(a.variants ?? [])];
  const widened = side === "input" ? "non-breaking" : "breaking";
  const narrowed = side === "input" ? "breaking" : "non-breaking";
  for (const variant of b.variants ?? []) {
    const i = after.findIndex((v) => kindLabel(v) === kindLabel(variant));
    const partPath = `${path}(one of ${kindLabel(variant)})`;
    if (i === -1) {
      emit(
        narrowed,
        `${side}-alternative-removed`,
        path,
        `${label} \`${path}\` no longer ${side === "input" ? "accepts" : "returns"} the ${kindLabel(variant)} alternative.`,
        describeField(variant),
        undefined,
      );
      continue;
    }
    const [match] = after.splice(i, 1);
    diffField(
      side,
      partPath,
      { ...variant, required: true },
      { ...(match as FieldModel), required: true },
      emit,
    );
  }
  for (const variant of after)
    emit(
      widened,
      `${side}-alternative-added`,
      path,
      side === "input"
        ? `Input \`${path}\` now also accepts a ${kindLabel(variant)} value.`
        : `Output \`${path}\` can now return a ${kindLabel(variant)} value, which existing readers do not expect.`,
      undefined,
      describeField(variant),
    );
  if (b.exclusive !== a.exclusive)
    emit(
      a.exclusive ? narrowed : widened,
      `${side}-alternatives-${a.exclusive ? "made-exclusive" : "made-inclusive"}`,
      path,
      a.exclusive
        ? `${label} \`${path}\` now matches exactly one alternative (oneOf): a value that matches several is refused.`
        : `${label} \`${path}\` now matches any number of alternatives (anyOf).`,
      b.exclusive ?? false,
      a.exclusive ?? false,
    );
}

/**
 * Which FieldModel keys the rules above compare. A mapped type over every key
 * of FieldModel: a key added to the model without a decision here is a type
 * error, so no part of a schema (an allOf part, a oneOf branch, ...) can
 * become invisible to the diff by accident. `compared`: a rule above judges it;
 * `location`: where the schema is written, not what it accepts; `parts`: a
 * list of sub-schemas (allOf parts, oneOf branches) that `diffSchemaParts`
 * compares part by part with every rule, until a dedicated rule exists.
 */
type FieldKeyRule = "compared" | "location" | "parts";
const FIELD_KEYS: { readonly [K in keyof Required<FieldModel>]: FieldKeyRule } = {
  name: "compared",
  kind: "compared",
  required: "compared",
  nullable: "compared",
  hasDefault: "compared",
  default: "compared",
  format: "compared",
  description: "compared",
  enumValues: "compared",
  enumBase: "compared",
  maxLength: "compared",
  minLength: "compared",
  pattern: "compared",
  minimum: "compared",
  maximum: "compared",
  exclusiveMinimum: "compared",
  exclusiveMaximum: "compared",
  multipleOf: "compared",
  minItems: "compared",
  maxItems: "compared",
  uniqueItems: "compared",
  minProperties: "compared",
  maxProperties: "compared",
  fields: "compared",
  additionalProperties: "compared",
  values: "compared",
  items: "compared",
  variants: "compared",
  exclusive: "compared",
  pointer: "location",
};

/**
 * Model keys without a dedicated rule: `parts` keys, and at run time any key
 * this diff does not know. A list of sub-schemas of the same length on both
 * sides is compared part by part with every rule (path `inputs.a(oneOf 2)`);
 * anything else that differs (a part added or removed, where whether that
 * narrows or widens depends on the combinator) is reported as breaking:
 * silence would be worse.
 */
function diffUnclassifiedKeys(
  side: Side,
  path: string,
  b: FieldModel,
  a: FieldModel,
  emit: Emit,
): void {
  const keys = new Set([...Object.keys(b), ...Object.keys(a)]);
  for (const key of [...keys].sort(compareStrings)) {
    const rule: FieldKeyRule | undefined = Object.hasOwn(FIELD_KEYS, key)
      ? FIELD_KEYS[key as keyof FieldModel]
      : undefined;
    if (rule === "compared" || rule === "location") continue;
    const before = (b as unknown as Record<string, unknown>)[key];
    const after = (a as unknown as Record<string, unknown>)[key];
    if (sameJson(before, after)) continue;
    if (isFieldList(before) && isFieldList(after) && before.length === after.length) {
      before.forEach((part, i) => {
        const partPath = `${path}(${key} ${i + 1})`;
        diffField(
          side,
          partPath,
          { ...part, required: true },
          { ...(after[i] as FieldModel), required: true },
          emit,
        );
      });
      continue;
    }
    emit(
      "breaking",
      `${side}-schema-changed`,
      path,
      `The \`${key}\` of ${side} \`${path}\` changed in a way this diff does not classify; review it by hand.`,
      before,
      after,
    );
  }
}

function isFieldList(value: unknown): value is readonly FieldModel[] {
  return (
    Array.isArray(value) &&
    value.every(
      (v) =>
        v !== null &&
        typeof v === "object" &&
        typeof v.kind === "string" &&
        typeof v.name === "string",
    )
  );
}

/**
 * How each value constraint is judged. Inputs break when the service now
 * rejects a value it accepted (the accepted set narrowed); outputs break when
 * a reader can now receive a value the old definition excluded (the set
 * widened). The same rule as oasdiff's request/response property checks.
 *
 * | constraint                                   | narrowed when                               |
 * |----------------------------------------------|---------------------------------------------|
 * | maxLength, maxItems                          | added, or lowered                           |
 * | minLength, minItems                          | added, or raised                            |
 * | maximum / exclusiveMaximum (one upper bound) | added, lowered, or made exclusive           |
 * | minimum / exclusiveMinimum (one lower bound) | added, raised, or made exclusive            |
 * | multipleOf                                   | added, or the old step is not a multiple of the new one |
 * | uniqueItems                                  | made true                                   |
 * | pattern                                      | added (changed: both ways, so breaking on either side) |
 *
 * The opposite change (removed, loosened) widens.
 */
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
  "minProperties",
  "maxProperties",
] as const satisfies readonly (keyof FieldModel)[];

/** A count limit: the length of a text, the number of items of an array. */
interface CountLimit {
  readonly key:
    | "maxLength"
    | "minLength"
    | "maxItems"
    | "minItems"
    | "maxProperties"
    | "minProperties";
  readonly slug: string;
  readonly what: string;
  /** An upper limit narrows when lowered; a lower one when raised. */
  readonly upper: boolean;
}

const COUNT_LIMITS: readonly CountLimit[] = [
  { key: "maxLength", slug: "max-length", what: "maximum length", upper: true },
  { key: "minLength", slug: "min-length", what: "minimum length", upper: false },
  { key: "maxItems", slug: "max-items", what: "maximum number of items", upper: true },
  { key: "minItems", slug: "min-items", what: "minimum number of items", upper: false },
  {
    key: "maxProperties",
    slug: "max-properties",
    what: "maximum number of properties",
    upper: true,
  },
  {
    key: "minProperties",
    slug: "min-properties",
    what: "minimum number of properties",
    upper: false,
  },
];

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

/** Whether `multipleOf: wide` accepts every value `multipleOf: narrow` does (narrow is a whole multiple of wide). */
function multipleAccepts(wide: number, narrow: number): boolean {
  const ratio = narrow / wide;
  return Math.abs(ratio - Math.round(ratio)) < 1e-9;
}

function diffValueConstraints(
  side: Side,
  path: string,
  b: FieldModel,
  a: FieldModel,
  emit: Emit,
): void {
  const label = side === "input" ? "Input" : "Output";
  /** Narrowing breaks inputs, widening breaks outputs. */
  const severity = (narrowed: boolean): DiffSeverity =>
    (side === "input") === narrowed ? "breaking" : "non-breaking";
  const report = (
    slug: string,
    narrowed: boolean,
    message: string,
    before: unknown,
    after: unknown,
  ) =>
    emit(
      severity(narrowed),
      `${side}-${slug}-${narrowed ? "narrowed" : "widened"}`,
      path,
      message,
      before,
      after,
    );

  for (const limit of COUNT_LIMITS) {
    const before = b[limit.key];
    const after = a[limit.key];
    if (before === after) continue;
    const narrowed =
      after !== undefined &&
      (before === undefined || (limit.upper ? after < before : after > before));
    report(
      limit.slug,
      narrowed,
      after === undefined
        ? `${label} \`${path}\` no longer has a ${limit.what} (was ${before}).`
        : before === undefined
          ? `${label} \`${path}\` now has a ${limit.what} of ${after}.`
          : `The ${limit.what} of ${side} \`${path}\` changed from ${before} to ${after}.`,
      before,
      after,
    );
  }

  for (const [slug, what, boundOf, upper] of [
    ["minimum", "minimum", lowerBound, false],
    ["maximum", "maximum", upperBound, true],
  ] as const) {
    const before = boundOf(b);
    const after = boundOf(a);
    if (before?.value === after?.value && before?.exclusive === after?.exclusive) continue;
    const narrowed =
      after !== undefined &&
      (before === undefined ||
        (upper ? after.value < before.value : after.value > before.value) ||
        (after.value === before.value && after.exclusive && !before.exclusive));
    report(
      slug,
      narrowed,
      after === undefined
        ? `${label} \`${path}\` no longer has a ${what} (was ${boundText(before as Bound)}).`
        : before === undefined
          ? `${label} \`${path}\` now has a ${what} of ${boundText(after)}.`
          : `The ${what} of ${side} \`${path}\` changed from ${boundText(before)} to ${boundText(after)}.`,
      before && boundText(before),
      after && boundText(after),
    );
  }

  if (b.multipleOf !== a.multipleOf) {
    const before = b.multipleOf;
    const after = a.multipleOf;
    if (
      before !== undefined &&
      after !== undefined &&
      !multipleAccepts(after, before) &&
      !multipleAccepts(before, after)
    ) {
      // Neither accepts all of the other's values: some old values are rejected
      // (breaks inputs) and some new ones are unexpected (breaks outputs).
      emit(
        "breaking",
        `${side}-multiple-of-changed`,
        path,
        `${label} \`${path}\` must now be a multiple of ${after} instead of ${before}.`,
        before,
        after,
      );
    } else {
      const narrowed =
        after !== undefined && (before === undefined || !multipleAccepts(after, before));
      report(
        "multiple-of",
        narrowed,
        after === undefined
          ? `${label} \`${path}\` no longer has to be a multiple of ${before}.`
          : before === undefined
            ? `${label} \`${path}\` must now be a multiple of ${after}.`
            : `${label} \`${path}\` must now be a multiple of ${after} (was ${before}).`,
        before,
        after,
      );
    }
  }

  const uniqueBefore = b.uniqueItems === true;
  const uniqueAfter = a.uniqueItems === true;
  if (uniqueBefore !== uniqueAfter) {
    report(
      "unique-items",
      uniqueAfter,
      uniqueAfter
        ? `${label} \`${path}\` must now hold unique items.`
        : `${label} \`${path}\` may now hold repeated items.`,
      uniqueBefore,
      uniqueAfter,
    );
  }

  if (b.pattern !== a.pattern) {
    if (b.pattern === undefined || a.pattern === undefined) {
      const added = a.pattern !== undefined;
      emit(
        severity(added),
        `${side}-pattern-${added ? "added" : "removed"}`,
        path,
        added
          ? `${label} \`${path}\` must now match the pattern ${a.pattern}.`
          : `${label} \`${path}\` no longer has to match the pattern ${b.pattern}.`,
        b.pattern,
        a.pattern,
      );
    } else {
      // Whether one regular expression accepts all that another does is not decidable here.
      emit(
        "breaking",
        `${side}-pattern-changed`,
        path,
        `The pattern of ${side} \`${path}\` changed from ${b.pattern} to ${a.pattern}.`,
        b.pattern,
        a.pattern,
      );
    }
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return stableJson(a) === stableJson(b);
}

/** JSON with object keys sorted, for comparisons and stable output. */
export function stableJson(value: unknown, indent?: number): string {
  return JSON.stringify(sortKeys(value), null, indent);
}

export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort(compareStrings)) {
      defineKey(out, key, sortKeys((value as Record<string, unknown>)[key]));
    }
    return out;
  }
  return value;
}

/** Sets an own key, safe for `__proto__` and friends. */
function defineKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
