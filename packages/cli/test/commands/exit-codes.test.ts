// `wfr exit-codes`: the table (its rows are checked against the README in test/exit-codes.test.ts).
import { tmpdir } from "node:os";
import { expect, it } from "vitest";
import { runWfr } from "../harness.js";

it("exit-codes prints the table", async () => {
  const r = await runWfr(["exit-codes"], { cwd: tmpdir() });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("IDEMPOTENCY_CONFLICT");
});
