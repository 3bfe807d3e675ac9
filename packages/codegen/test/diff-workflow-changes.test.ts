// How the diff classifies changes of a workflow itself: removed, added, state,
// revision, description, model exposure, identifier, outputs closed.
import { describe } from "vitest";
import { type ClassificationRow, classifies, workflow } from "./diff-factory.js";

const rows: ClassificationRow[] = [
  {
    name: "workflow removed",
    before: [workflow()],
    after: [],
    severity: "breaking",
    kind: "workflow-removed",
    path: null,
  },
  {
    name: "workflow added",
    before: [],
    after: [workflow()],
    severity: "non-breaking",
    kind: "workflow-added",
    path: null,
  },
  {
    name: "workflow disabled",
    before: [workflow()],
    after: [workflow({ state: "disabled" })],
    severity: "breaking",
    kind: "workflow-disabled",
    path: null,
  },
  {
    name: "workflow made draft",
    before: [workflow()],
    after: [workflow({ state: "draft" })],
    severity: "breaking",
    kind: "workflow-made-draft",
    path: null,
  },
  {
    name: "workflow enabled",
    before: [workflow({ state: "draft" })],
    after: [workflow()],
    severity: "non-breaking",
    kind: "workflow-enabled",
    path: null,
  },
  {
    name: "revision bump",
    before: [workflow()],
    after: [workflow({ revision: 2 })],
    severity: "non-breaking",
    kind: "workflow-revision-changed",
    path: null,
  },
  {
    name: "workflow description changed",
    before: [workflow()],
    after: [workflow({ description: "Books invoices" })],
    severity: "non-breaking",
    kind: "workflow-description-changed",
    path: null,
  },
  {
    name: "model exposure removed",
    before: [workflow({ modelExposed: true })],
    after: [workflow()],
    severity: "breaking",
    kind: "model-exposure-removed",
    path: null,
  },
  {
    name: "model exposure added",
    before: [workflow()],
    after: [workflow({ modelExposed: true })],
    severity: "non-breaking",
    kind: "model-exposure-added",
    path: null,
  },
  {
    name: "workflow state draft -> disabled (launchable neither before nor after)",
    before: [workflow({ state: "draft" })],
    after: [workflow({ state: "disabled" })],
    severity: "non-breaking",
    kind: "workflow-state-changed",
    path: null,
  },
  {
    name: "generated identifier changed",
    before: [workflow()],
    after: [workflow({ identifier: "invoiceIntakeP7qd2l" })],
    severity: "breaking",
    kind: "workflow-identifier-changed",
    path: null,
  },
  {
    name: "outputs closed to undeclared fields",
    before: [workflow()],
    after: [workflow({ outputsClosed: true })],
    severity: "non-breaking",
    kind: "outputs-closed",
    path: "outputs",
  },
];

describe("diffEnvironments classification: workflows", () => {
  classifies(rows);
});
