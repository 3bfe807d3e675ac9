// A launcher killed with SIGKILL at random points and started again, with @wfr/runtime's launch
// journal on PostgreSQL (launcher-process.ts): every intent must end with exactly one run in the
// emulator's record. apps/batch-launch's own kill test covers the app at length
// (apps/batch-launch/test/kill-restart.test.ts); this is the short row of the same guarantee.
import type { PostgresServer } from "@wfr/test-servers";
import { type Child, kill, LAUNCHER, startChild } from "./child-processes.js";
import { listRuns } from "./emulator-admin.js";
import { seededRandom } from "./fault-schedule.js";
import type { Stage } from "./receiver-bursts.js";
import { createSchema } from "./side-effects.js";
import { type FaultRow, runsByBusinessId } from "./tally.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function launcherKills(
  stage: Stage,
  server: PostgresServer,
  size: { readonly intents: number; readonly kills: number; readonly seed: number },
): Promise<FaultRow> {
  const schema = "fault_launcher";
  // The schema exists before the first launcher applies the journal's migrations.
  await createSchema(server.url, schema);
  const prefix = "launcher-";
  const random = seededRandom(size.seed);
  const start = (): Child =>
    startChild(LAUNCHER, {
      WFR_BASE_URL: `${stage.emulatorUrl}/${stage.environment}/api/v1`,
      WFR_API_KEY: stage.apiKey,
      WFR_STORE_URL: server.url,
      WFR_STORE_NAMESPACE: schema,
      WFR_WORKFLOW_ID: stage.workflowId,
      WFR_INTENT_PREFIX: prefix,
      WFR_INTENTS: String(size.intents),
    });
  let kills = 0;
  let finished = false;
  while (!finished) {
    const launcher = start();
    if (kills < size.kills) {
      // After some launches of this life (their journal writes and requests in flight), or
      // before the first: anywhere in the launcher's work.
      const after = Math.floor(random() * (size.intents / (size.kills + 1)));
      while ((launcher.messages.get("launched") ?? 0) < after && launcher.process.exitCode === null)
        await sleep(2);
      await sleep(random() * 5);
      if (launcher.process.exitCode === null) {
        await kill(launcher);
        kills += 1;
        stage.log(
          `launcher killed with SIGKILL after ${launcher.messages.get("launched") ?? 0} launches`,
        );
        continue;
      }
    }
    await launcher.exited;
    finished = (launcher.messages.get("finished") ?? 0) > 0;
    if (!finished && kills >= size.kills) throw new Error("the launcher failed without a kill");
  }
  const runs = runsByBusinessId(await listRuns(stage.emulatorUrl, stage.environment), prefix);
  const counts = Array.from(
    { length: size.intents },
    (_, i) => runs.get(`${prefix}${i}`)?.length ?? 0,
  );
  return {
    fault: `launcher killed with SIGKILL ×${kills}, started again`,
    setup: "runtime launch journal on PostgreSQL",
    operations: size.intents,
    lost: counts.filter((n) => n === 0).length,
    duplicated: counts.filter((n) => n > 1).length,
    note: `${kills} kills; runs counted per intent`,
  };
}
