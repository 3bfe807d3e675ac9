// Everything a wfr package throws at a caller is a WorkflowRunApiError with a code: the MCP
// backend's refusals too.
import { WorkflowRunApiError } from "@wfr/runtime";
import { expect, it } from "vitest";
import { BackendError } from "../src/index.js";

it("BackendError is a WorkflowRunApiError with the code and the status (null when local)", () => {
  const answered = new BackendError("RUN_NOT_FOUND", "run not found", 404);
  expect(answered).toBeInstanceOf(WorkflowRunApiError);
  expect(answered).toMatchObject({ name: "BackendError", code: "RUN_NOT_FOUND", status: 404 });
  expect(new BackendError("DEFINITION_INVALID", "bad reference")).toMatchObject({ status: null });
});
