// `wfr runs watch` without a terminal (NDJSON lines): a failed run, --timeout, the current step.
// In a terminal: test/terminal.test.ts.
import { expect, it } from "vitest";
import { EXIT } from "../../../src/exit-codes.js";
import { adminPut, launchInvoice, usePulledFixture } from "../../harness.js";

const fx = usePulledFixture();
const { wfr } = fx;

it("a failed run: watch exits 5, result exits 5", async () => {
  const launched = await wfr(["launch", "brokenPortal", "--json"]);
  const runId = JSON.parse(launched.stdout).run_id;
  const watch = await wfr(["runs", "watch", runId]);
  expect(watch.code).toBe(EXIT.RUN_FAILED);
  // The failure is said, with the error the run carries, not only the exit code.
  expect(watch.stderr).toMatch(new RegExp(`${runId} ended failed: \\w+`));
  const result = await wfr(["runs", "result", runId]);
  expect(result.code).toBe(EXIT.RUN_FAILED);
});

it("watch --timeout exits 7; its lines carry the current step", async () => {
  await adminPut(fx.emulator, "/environments/production/workflows/wf_invoice1/scenario", {
    steps: [
      { event: { type: "step.started", name: "book invoice" } },
      { wait_ms: 600000 },
      { succeed: {} },
    ],
  });
  const runId = await launchInvoice(fx);
  const watch = await wfr(["runs", "watch", runId, "--timeout", "4"]);
  expect(watch.code, watch.stderr).toBe(EXIT.TIMEOUT);
  const steps = watch.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line).step);
  expect(steps).toContain("book invoice");
  await fetch(
    `${fx.emulator.url}/_emulator/environments/production/workflows/wf_invoice1/scenario`,
    { method: "DELETE" },
  );
});
