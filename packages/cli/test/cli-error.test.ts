// Everything a wfr package throws at a caller is a WorkflowRunApiError with a code: the CLI's own
// error too (it carries the exit code, and names it as its code).
import { WorkflowRunApiError } from "@wfr/runtime";
import { expect, it } from "vitest";
import { EXIT } from "../src/exit-codes.js";
import { CliError } from "../src/index.js";

it("CliError is a WorkflowRunApiError whose code names its exit code", () => {
  const error = new CliError("--port: bad port x", EXIT.USAGE);
  expect(error).toBeInstanceOf(WorkflowRunApiError);
  expect(error).toMatchObject({
    name: "CliError",
    code: "EXIT_USAGE",
    status: null,
    exitCode: EXIT.USAGE,
  });
  expect(new CliError("boom")).toMatchObject({ code: "EXIT_ERROR", exitCode: EXIT.ERROR });
});
