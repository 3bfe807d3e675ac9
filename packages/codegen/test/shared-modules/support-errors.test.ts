// The generated builders' and readers' errors are the runtime's: one `catch` over
// WorkflowRunApiError (or InvalidInputsError) handles a builder's refusal and the server's alike.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { generate } from "../../src/generate.js";
import { cleanupTempDirs, copyExamples, projectDir } from "../helpers.js";

afterAll(cleanupTempDirs);

interface Generated {
  workflows: Record<
    string,
    { buildInputs(raw: unknown): unknown; readOutputs(raw: unknown): unknown }
  >;
}

describe("generated errors extend the runtime's base", () => {
  it("a builder's InvalidInputsError and a reader's InvalidOutputsError are WorkflowRunApiErrors with their codes", async () => {
    const dir = projectDir();
    generate({ schemas: copyExamples(), out: join(dir, "gen") });
    // The runtime the generated code resolves, imported the way it imports it (by Node, from the
    // folder's node_modules), so that both hold one module instance.
    const runtimeEntry = join(dir, "runtime.js");
    writeFileSync(runtimeEntry, 'export * from "@wfr/runtime";\n');
    const runtime = (await import(
      pathToFileURL(runtimeEntry).href
    )) as typeof import("@wfr/runtime");
    const mod = (await import(
      pathToFileURL(join(dir, "gen", "sample", "index.js")).href
    )) as Generated;
    const invoice = mod.workflows.invoiceIntake;
    if (invoice === undefined) throw new Error("the example schemas hold invoiceIntake");

    const inputs = (() => {
      try {
        invoice.buildInputs({ vendor_name: 5, unknown_field: true });
      } catch (error) {
        return error;
      }
    })() as InstanceType<typeof runtime.InvalidInputsError> & { issues: { reason: string }[] };
    expect(inputs).toBeInstanceOf(runtime.WorkflowRunApiError);
    expect(inputs).toBeInstanceOf(runtime.InvalidInputsError);
    expect(inputs.code).toBe("INVALID_INPUTS");
    expect(inputs.status).toBeNull();
    expect(inputs.issues.map((issue) => issue.reason)).toContain("UNKNOWN_INPUT");

    const outputs = (() => {
      try {
        invoice.readOutputs({ total: "not a number" });
      } catch (error) {
        return error;
      }
    })() as InstanceType<typeof runtime.WorkflowRunApiError>;
    expect(outputs).toBeInstanceOf(runtime.WorkflowRunApiError);
    expect(outputs.code).toBe("INVALID_OUTPUTS");
  });
});
