// The README's promise: everything the runtime throws is a WorkflowRunApiError carrying a code.
// Checked over the package's real exports, so a new exported error class that forgets the base
// fails here, and over the generated builders' errors, which extend the runtime's.
import { describe, expect, it } from "vitest";
import * as runtime from "../src/index.js";
import * as node from "../src/node.js";

const exportedErrorClasses = (module: Record<string, unknown>) =>
  Object.entries(module).filter(
    (entry): entry is [string, new (...args: never[]) => Error] =>
      typeof entry[1] === "function" && entry[1].prototype instanceof Error,
  );

describe("one error hierarchy", () => {
  it("every error class the runtime exports extends WorkflowRunApiError", () => {
    const classes = [...exportedErrorClasses(runtime), ...exportedErrorClasses(node)];
    expect(classes.length).toBeGreaterThan(30);
    const outside = classes
      .filter(([, type]) => !(type.prototype instanceof runtime.WorkflowRunApiError))
      .map(([name]) => name)
      .filter((name) => name !== "WorkflowRunApiError");
    expect(outside).toEqual([]);
  });

  it("the errors that used to stand outside carry the base and a code of the vocabulary", () => {
    const conflict = new runtime.LaunchIntentConflictError("intent-1", "key-1");
    const invariant = runtime.LaunchJournalInvariantError.unknownIntent("intent-2");
    const download = new runtime.FileOutputDownloadError(403, "a.pdf");
    for (const error of [conflict, invariant, download]) {
      expect(error).toBeInstanceOf(runtime.WorkflowRunApiError);
      expect(runtime.LOCAL_ERROR_CODES).toContain(error.code);
    }
    expect(conflict.idempotencyKey).toBe("key-1");
    expect(conflict.status).toBeNull();
    expect(download.status).toBe(403);
  });
});
