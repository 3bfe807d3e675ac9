// The package's public entry (src/index.ts): what it exports and what it keeps internal.
import { describe, expect, it } from "vitest";

describe("public API", () => {
  it("index.ts exports the public API only; internals stay unexported", async () => {
    const runtime: Record<string, unknown> = await import("../src/index.js");
    for (const internal of [
      "stopReason",
      "waitForRunWith",
      "awaitsPerson",
      "toRunResult",
      "toRunEnvelope",
      "attachRequestId",
      "errorFromResponse",
      "buildLaunchBody",
      "serializeLaunchBody",
      "createRetryingFetch",
      "createPipeline",
      "toLibraryError",
      "mayResend",
      "shouldRetry",
      "retryDelay",
      "planLaunchBody",
      "requestStreamsSupported",
      "checkApiKey",
      "isPlainObject",
      "redact",
    ]) {
      expect(runtime, internal).not.toHaveProperty(internal);
    }
    for (const name of [
      "createClient",
      "file",
      "createCallbackHandler",
      "isTerminalStatus",
      "WorkflowRunClient",
      "ApiCall",
    ]) {
      expect(typeof runtime[name], name).toBe("function");
    }
  });
});
