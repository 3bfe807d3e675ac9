// The breaking-change diff: a pure function over two normalized models. This
// file pairs workflows and fields and walks into nested schemas; what counts
// as a change, its code and its severity are the rules in diff-rules/.
import { sameJson } from "@wfr/definition-reader";

import {
  type DiffChangeKind,
  type DiffSeverity,
  defineKey,
  describeField,
  FIELD_RULES,
  type FieldContext,
  type Finding,
  PRESENCE_RULES,
  pairVariants,
  SCHEMA_CHANGED,
  type Side,
  type SideCode,
  WORKFLOW_ADDED,
  WORKFLOW_REMOVED,
  WORKFLOW_RULES,
} from "./diff-rules/index.js";
import { kindLabel } from "./field-kinds.js";
import type { EnvironmentModel, FieldModel, WorkflowModel } from "./model.js";

export type { DiffChangeKind, DiffSeverity } from "./diff-rules/index.js";

export interface DiffChange {
  /** The workflow's id in the new definition (the old one when the workflow was removed). */
  readonly workflowId: string;
  readonly workflowName: string;
  readonly severity: DiffSeverity;
  /** A stable kebab-case code, for example `input-removed` (the catalogue: codegen README). */
  readonly kind: DiffChangeKind;
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
  kind: DiffChangeKind,
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
      severity: WORKFLOW_REMOVED.severity,
      kind: WORKFLOW_REMOVED.code,
      path: null,
      message: `Workflow "${wf.name}" was removed.`,
      before: wf.id,
    });
  }
  for (const wf of added) {
    changes.push({
      workflowId: wf.id,
      workflowName: wf.name,
      severity: WORKFLOW_ADDED.severity,
      kind: WORKFLOW_ADDED.code,
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

/** Applies every workflow rule to a pair, then the field rules to its inputs and outputs. */
function diffWorkflow(before: WorkflowModel, after: WorkflowModel, emit: Emit): void {
  const name = `"${after.name}"`;
  for (const rule of WORKFLOW_RULES)
    report(rule.side, rule.detect(before, after, name), rule.path, emit);
  recursion = { before: typesByName(before), after: typesByName(after), compared: new Set() };
  try {
    diffFieldLists("input", "inputs", before.inputs, after.inputs, emit);
    diffFieldLists("output", "outputs", before.outputs, after.outputs, emit);
  } finally {
    recursion = undefined;
  }
}

/**
 * The recursive types of the workflows being compared, and the pairs of them
 * compared already: a recursive type is compared where it is first met (at
 * that path), once, so a schema that contains itself is compared in finite time.
 */
let recursion:
  | {
      readonly before: ReadonlyMap<string, FieldModel>;
      readonly after: ReadonlyMap<string, FieldModel>;
      readonly compared: Set<string>;
    }
  | undefined;

function typesByName(wf: WorkflowModel): Map<string, FieldModel> {
  return new Map((wf.recursiveTypes ?? []).map((t) => [t.name, t.field]));
}

/** Emits what a rule found with the rule's code and severity on this side. */
function report(
  side: SideCode | undefined,
  found: Finding | readonly Finding[] | undefined,
  path: string | null,
  emit: Emit,
): void {
  if (side === undefined || found === undefined) return;
  for (const finding of Array.isArray(found) ? found : [found as Finding]) {
    const severity = side.severity === "depends" ? finding.severity : side.severity;
    if (severity === undefined) throw new Error(`diff rule ${side.code} did not say its severity`);
    emit(
      severity,
      side.code as DiffChangeKind,
      path,
      finding.message,
      finding.before,
      finding.after,
    );
  }
}

function context(side: Side, path: string): FieldContext {
  return { side, path, label: side === "input" ? "Input" : "Output" };
}

function byName(fields: readonly FieldModel[]): Map<string, FieldModel> {
  const map = new Map<string, FieldModel>();
  for (const f of fields) map.set(f.name, f);
  return map;
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
  const names = [...beforeMap.keys(), ...[...afterMap.keys()].filter((n) => !beforeMap.has(n))];
  for (const name of names) {
    const b = beforeMap.get(name);
    const a = afterMap.get(name);
    const ctx = context(side, `${parentPath}.${name}`);
    if (b && a) {
      diffField(side, ctx.path, b, a, emit);
      continue;
    }
    for (const rule of PRESENCE_RULES)
      report(
        (rule.sides as Partial<Record<Side, SideCode>>)[side],
        rule.detect(b, a, ctx),
        ctx.path,
        emit,
      );
  }
}

/** Applies every field rule, then walks into what the field contains. */
function diffField(side: Side, path: string, b: FieldModel, a: FieldModel, emit: Emit): void {
  const ctx = context(side, path);
  for (const rule of FIELD_RULES)
    report(
      (rule.sides as Partial<Record<Side, SideCode>>)[side],
      rule.detect(b, a, ctx),
      path,
      emit,
    );

  // Nested objects, map values and array items are compared like fields.
  if (b.kind === "object" && a.kind === "object") {
    diffFieldLists(side, path, b.fields ?? [], a.fields ?? [], emit);
    if (b.values && a.values) diffPart(side, `${path}{}`, b.values, a.values, emit);
  }
  if (b.kind === "array" && a.kind === "array" && b.items && a.items)
    diffPart(side, `${path}[]`, b.items, a.items, emit);
  // Alternatives of two unions paired by kind; the unpaired ones are alternative-removed / -added.
  if (b.kind === "union" && a.kind === "union")
    for (const [variant, match] of pairVariants(b, a).pairs)
      diffPart(side, `${path}(one of ${kindLabel(variant)})`, variant, match, emit);
  if (b.kind === "all" && a.kind === "all") diffAllParts(side, path, b, a, emit);
  if (b.kind === "ref" && a.kind === "ref") {
    const pair = `${side} ${b.ref} ${a.ref}`;
    const before = recursion?.before.get(b.ref ?? "");
    const after = recursion?.after.get(a.ref ?? "");
    if (before && after && !recursion?.compared.has(pair)) {
      recursion?.compared.add(pair);
      diffPart(side, path, before, after, emit);
    }
  }
  diffUnclassifiedKeys(side, path, b, a, emit);
}

/**
 * The parts of a schema whose every part must hold (kind `all`): compared part by part with every
 * rule when both sides have as many parts (path `inputs.a(all of 2)`); a part added or removed is
 * `<side>-schema-changed`, breaking: whether that narrows or widens is not decided here.
 */
function diffAllParts(side: Side, path: string, b: FieldModel, a: FieldModel, emit: Emit): void {
  const before = b.variants ?? [];
  const after = a.variants ?? [];
  if (before.length === after.length) {
    for (const [i, part] of before.entries())
      diffPart(side, `${path}(all of ${i + 1})`, part, after[i] as FieldModel, emit);
    return;
  }
  report(
    SCHEMA_CHANGED.sides[side],
    {
      message: `The parts of ${side} \`${path}\` that must all hold changed (${before.length} -> ${after.length}); review it by hand.`,
      before: before.map(describeField),
      after: after.map(describeField),
    },
    path,
    emit,
  );
}

/** A part of a field (items, map values, an alternative) is always there when the field is. */
function diffPart(side: Side, path: string, b: FieldModel, a: FieldModel, emit: Emit): void {
  diffField(side, path, { ...b, required: true }, { ...a, required: true }, emit);
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
  // No dedicated rule yet: any change is reported for review (diffUnclassifiedKeys).
  patternValues: "parts",
  propertyNames: "parts",
  conditions: "parts",
  prefixItems: "parts",
  items: "compared",
  variants: "compared",
  exclusive: "compared",
  // The name of a recursive type: what it accepts is compared through the type (diffField).
  ref: "location",
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
        diffPart(side, `${path}(${key} ${i + 1})`, part, after[i] as FieldModel, emit);
      });
      continue;
    }
    report(
      SCHEMA_CHANGED.sides[side],
      {
        message: `The \`${key}\` of ${side} \`${path}\` changed in a way this diff does not classify; review it by hand.`,
        before,
        after,
      },
      path,
      emit,
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
