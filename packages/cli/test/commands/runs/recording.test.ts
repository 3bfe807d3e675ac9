// `wfr runs recording`: the MP4 written atomically, also after the recording was still processing.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { EXIT } from "../../../src/exit-codes.js";
import { adminPut, launchInvoice, usePulledFixture } from "../../harness.js";

const fx = usePulledFixture();
const { wfr } = fx;

it("recording is written atomically", async () => {
  const runId = await launchInvoice(fx);
  await wfr(["runs", "watch", runId]);
  const out = join(fx.dir, "run.mp4");
  const r = await wfr(["runs", "recording", runId, "-o", out]);
  expect(r.code, r.stderr).toBe(EXIT.OK);
  const bytes = readFileSync(out);
  expect(bytes.subarray(4, 8).toString("latin1")).toBe("ftyp");
});

it("waits the processing out and writes the MP4", async () => {
  await adminPut(fx.emulator, "/environments/production/workflows/wf_invoice1/scenario", {
    steps: [{ wait_ms: 100 }, { succeed: { outputs: { invoice_id: "INV-2" } } }],
    recording: { mode: "processing", processing_ms: 2500 },
  });
  try {
    const runId = await launchInvoice(fx);
    expect((await wfr(["runs", "watch", runId])).code).toBe(EXIT.OK);
    const out = join(fx.dir, "processing.mp4");
    const r = await wfr(["runs", "recording", runId, "-o", out]);
    expect(r.code, r.stderr).toBe(EXIT.OK);
    expect(readFileSync(out).subarray(4, 8).toString("latin1")).toBe("ftyp");
  } finally {
    await fetch(
      `${fx.emulator.url}/_emulator/environments/production/workflows/wf_invoice1/scenario`,
      {
        method: "DELETE",
      },
    );
  }
});
