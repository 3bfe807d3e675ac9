import { describe, expect, it } from "vitest";
import { apiErrorLine } from "../../src/adapters/runtime.js";

describe("apiErrorLine", () => {
  it("says the code and status once and names every field the error carries", () => {
    const line = apiErrorLine(
      "INVALID_INPUTS",
      400,
      "HTTP 400 INVALID_INPUTS: declared inputs failed validation",
      [
        { field: "vendor_name", reason: "REQUIRED", message: "Required" },
        { field: "amount", reason: "INVALID_TYPE" },
      ],
    );
    expect(line).toBe(
      "INVALID_INPUTS (HTTP 400): declared inputs failed validation; fields: vendor_name (REQUIRED: Required), amount (INVALID_TYPE)",
    );
    expect(line.match(/INVALID_INPUTS/g)).toHaveLength(1);
  });

  it("keeps a message that does not repeat the code as it is", () => {
    expect(apiErrorLine("NOT_FOUND", 404, "no such run")).toBe("NOT_FOUND (HTTP 404): no such run");
    expect(apiErrorLine("NETWORK_ERROR", null, "fetch failed")).toBe("NETWORK_ERROR: fetch failed");
  });
});
