// Rules over a field present on one side only: removed, or added (required or optional).

import type { FieldModel } from "../model.js";
import { describeField } from "./describe-field.js";
import { presenceRule } from "./rule.js";

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
