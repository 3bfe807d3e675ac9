// The rules of the breaking-change diff, one small named entry each: what it
// compares, the code it reports on inputs and on outputs (written out in full,
// so that a code seen in a pull-request comment is found by searching for it),
// the severity on each side, and the sentence it reports. `../diff.ts` walks the
// two models and applies every rule; the codes form a closed union derived
// from these tables, and the catalogue in the codegen README is rendered from
// them (`../diff-catalogue.ts`).
//
// Every change is judged from the point of view of a caller written against
// the OLD definition: inputs break when the service now rejects something the
// caller sends (or requires something it does not send); outputs break when a
// reader can now receive a value it did not expect, or a field it read is gone
// or may be missing.

import { CONSTRAINT_RULES } from "./constraint-rules.js";
import {
  FORMAT_ENUM_DESCRIPTION_RULES,
  KIND_AND_PRESENCE_RULES,
  OBJECT_AND_UNION_RULES,
} from "./field-rules.js";
import type { PRESENCE_RULES } from "./presence-rules.js";
import type { Side, SideCode } from "./rule.js";
import type { WORKFLOW_ADDED, WORKFLOW_REMOVED, WORKFLOW_RULES } from "./workflow-rules.js";

export { defineKey, describeField } from "./describe-field.js";
export { pairVariants } from "./field-rules.js";
export { callerMustSend, PRESENCE_RULES } from "./presence-rules.js";
export type { DiffSeverity, FieldContext, Finding, Side, SideCode } from "./rule.js";
export { WORKFLOW_ADDED, WORKFLOW_REMOVED, WORKFLOW_RULES } from "./workflow-rules.js";

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
