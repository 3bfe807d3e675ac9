import { CODE, isClientErrorCode } from "@wfr/protocol";
import { describe, expect, it } from "vitest";
import { definitionDownloadError } from "../../../src/commands/mcp/diff-schema-tool.js";

describe("diff_schema: a refused definition download", () => {
  it("carries the service's own code when its answer names one", async () => {
    const error = await definitionDownloadError(
      new Response(JSON.stringify({ error: "bad key", code: "UNAUTHENTICATED" }), { status: 401 }),
    );
    expect(error.code).toBe(CODE.UNAUTHENTICATED);
    expect(error.status).toBe(401);
    expect(error.message).toBe("the definition URL answered HTTP 401");
  });

  it("is HTTP_ERROR with the status for a gateway's HTML page or an unknown code, never a made-up code", async () => {
    for (const response of [
      new Response("<html>Bad Gateway</html>", { status: 502 }),
      new Response(JSON.stringify({ code: "SOMETHING_ELSE" }), { status: 500 }),
    ]) {
      const error = await definitionDownloadError(response);
      expect(error.code).toBe(CODE.HTTP_ERROR);
      expect(isClientErrorCode(error.code)).toBe(true);
      expect(error.status).toBe(response.status);
    }
  });
});
