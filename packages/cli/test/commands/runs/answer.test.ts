// `wfr runs answer` without a terminal: --no-input, a checkpoint that is not the open one, --response-json.
import { expect, it } from "vitest";
import { EXIT } from "../../../src/exit-codes.js";
import { usePulledFixture } from "../../harness.js";

const fx = usePulledFixture();
const { wfr } = fx;

it("watch exits 6 at a checkpoint; answer --no-input answers it; watch then exits 0", async () => {
  const launched = await wfr(["launch", "paymentApproval", "--input", "amount=5000", "--json"]);
  const runId = JSON.parse(launched.stdout).run_id;
  const watch = await wfr(["runs", "watch", runId]);
  expect(watch.code, watch.stderr).toBe(EXIT.HUMAN_NEEDED);
  const last = JSON.parse(watch.stdout.trim().split("\n").at(-1) as string);
  expect(last.status).toBe("waiting_for_human_live");
  expect(last.human_action.reason).toBe("Amount above limit");
  const noAnswer = await wfr(["runs", "answer", runId, "--no-input"]);
  expect(noAnswer.code).toBe(EXIT.USAGE);
  const wrongCheckpoint = await wfr([
    "runs",
    "answer",
    runId,
    "--checkpoint",
    "cp_other",
    "--response",
    "yes",
  ]);
  expect(wrongCheckpoint.code).toBe(EXIT.HUMAN_WAIT_CONFLICT);
  const answer = await wfr([
    "runs",
    "answer",
    runId,
    "--checkpoint",
    last.human_action.checkpoint_id,
    "--response-json",
    '{"approved":true}',
  ]);
  expect(answer.code, answer.stderr).toBe(EXIT.OK);
  expect(answer.stderr).toContain("Approve the payment?");
  const after = await wfr(["runs", "watch", runId]);
  expect(after.code, after.stderr).toBe(EXIT.OK);
});
