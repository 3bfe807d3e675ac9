// The MCP backend's refusals carry the code and the status (null when local), as the runtime's
// errors do.
import { expect, it } from "vitest";
import { BackendError } from "../src/index.js";

it("BackendError carries the code and the status, null when local", () => {
  expect(new BackendError("RUN_NOT_FOUND", "run not found", 404)).toMatchObject({
    name: "BackendError",
    code: "RUN_NOT_FOUND",
    status: 404,
  });
  expect(new BackendError("DEFINITION_INVALID", "bad reference")).toMatchObject({ status: null });
});
