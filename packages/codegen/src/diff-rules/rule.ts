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

import type { FieldModel, WorkflowModel } from "../model.js";

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

export const workflowRule = <const Code extends string>(rule: WorkflowRule<Code>) => rule;
export const presenceRule = <const Codes extends Partial<Record<Side, SideCode>>>(
  rule: PresenceRule<Codes>,
) => rule;
export const fieldRule = <const Codes extends Partial<Record<Side, SideCode>>>(
  rule: FieldRule<Codes>,
) => rule;
