// `wfr runs get|result|events` through the built bin against the emulator.
import { expect, it } from "vitest";
import { EXIT } from "../../../src/exit-codes.js";
import { launchInvoice, usePulledFixture } from "../../harness.js";

const fx = usePulledFixture();
const { wfr } = fx;

it("get, watch (NDJSON), result, events for a successful run", async () => {
  const runId = await launchInvoice(fx);
  const watch = await wfr(["runs", "watch", runId]);
  expect(watch.code, watch.stderr).toBe(EXIT.OK);
  const lines = watch.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(lines.at(-1).status).not.toBe("waiting_for_human_live");
  expect(watch.stdout).not.toContain("\u001b");
  const result = await wfr(["runs", "result", runId]);
  expect(result.code).toBe(EXIT.OK);
  expect(JSON.parse(result.stdout).outputs?.invoice_id ?? result.stdout).toContain("INV-1");
  const events = await wfr(["runs", "events", runId, "--json"]);
  expect(events.code).toBe(EXIT.OK);
  expect(() => JSON.parse(events.stdout)).not.toThrow();
  const get = await wfr(["runs", "get", runId]);
  expect(JSON.parse(get.stdout).run_id).toBe(runId);
});

it("unknown run: exit 9", async () => {
  const r = await wfr(["runs", "get", "run_doesnotexist"]);
  expect(r.code).toBe(EXIT.NOT_FOUND);
});
