import { describe, expect, it } from "vitest";
import { CliError } from "../src/cli-error.js";
import { explainMissingPackage, missingOptionalPackage } from "../src/optional-packages.js";

const notFound = (name: string) =>
  Object.assign(new Error(`Cannot find package '${name}' imported from /app/x.js`), {
    code: "ERR_MODULE_NOT_FOUND",
  });

describe("optional peers", () => {
  it("a missing emulator becomes a usage error naming the install command", () => {
    expect(missingOptionalPackage(notFound("@wfr/emulator"))).toBe("@wfr/emulator");
    expect(() => explainMissingPackage(notFound("@wfr/emulator"), "/nonexistent")).toThrow(
      /npm i -D @wfr\/emulator/,
    );
    expect(() => explainMissingPackage(notFound("@wfr/mcp"), "/nonexistent")).toThrow(CliError);
  });

  it("any other error is rethrown as it is", () => {
    const other = notFound("left-pad");
    expect(missingOptionalPackage(other)).toBeUndefined();
    expect(() => explainMissingPackage(other, "/nonexistent")).toThrow(other);
  });
});
