// What one draft saved by an agent may cost. A draft becomes part of the environment's
// definition, which every caller downloads and which the journal keeps: one save of 150,000
// fields made every definition download 12.4 MiB and blocked other callers for seconds. So a
// draft is measured before anything is stored or journalled, and refused whole when it is over.
//
// The numbers are ours, not the specification's, and generous: the largest workflows of the
// catalogs we know have tens of fields, and a scenario of a few hundred steps is a long one.
// - 2,000 fields (inputs and outputs together): a hundred times a large real form.
// - 1 MiB for the whole draft as JSON: a definition stays a file one downloads without noticing.
// - nesting depth 32 (of the scenario's JSON): recorded events are shallow; a deeper value is
//   a stack-depth attack on every later reader, not a workflow.
import { isObject } from "../model/json-text.js";

/** What is over the budget: a JSON pointer into the request and why. */
export interface DraftBudgetProblem {
  readonly pointer: string;
  readonly message: string;
}

export const DRAFT_BUDGET = {
  fields: 2_000,
  bytes: 1024 * 1024,
  depth: 32,
} as const;

/** The nesting depth of a JSON value, counted without recursion and stopping past `limit`. */
function depthBeyond(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (!Array.isArray(current) && !isObject(current)) continue;
    if (depth > limit) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Over the field budget with this many inputs and outputs, or undefined. */
export function fieldCountProblem(inputs: number, outputs: number): DraftBudgetProblem | undefined {
  const fields = inputs + outputs;
  if (fields <= DRAFT_BUDGET.fields) return undefined;
  return {
    pointer: inputs > DRAFT_BUDGET.fields ? "/inputs" : "/outputs",
    message: `${fields} fields; a draft has at most ${DRAFT_BUDGET.fields} (inputs and outputs together)`,
  };
}

/** What is over the budget in a draft request (authoring.ts refuses it), or undefined. */
export function draftBudgetProblem(request: {
  readonly inputs?: unknown;
  readonly outputs?: unknown;
  readonly scenario?: unknown;
}): DraftBudgetProblem | undefined {
  const count = (list: unknown) => (Array.isArray(list) ? list.length : 0);
  const tooMany = fieldCountProblem(count(request.inputs), count(request.outputs));
  if (tooMany) return tooMany;
  if (depthBeyond(request.scenario, DRAFT_BUDGET.depth)) {
    return { pointer: "/scenario", message: `nested deeper than ${DRAFT_BUDGET.depth} levels` };
  }
  const bytes = Buffer.byteLength(JSON.stringify(request));
  if (bytes > DRAFT_BUDGET.bytes) {
    return {
      pointer: "/",
      message: `the draft is ${bytes} bytes as JSON; at most ${DRAFT_BUDGET.bytes} (1 MiB)`,
    };
  }
  return undefined;
}
