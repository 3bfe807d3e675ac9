// Rules over a pair of workflows: name, identifier, state, revision, description, `model`, closed outputs.

import type { WorkflowModel } from "../model.js";
import { type Finding, workflowRule } from "./rule.js";

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
