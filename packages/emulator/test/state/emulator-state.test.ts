// The views the route modules get (emulator-state.ts) are read-only: each change below is
// marked as a type error, and the package's typecheck (`tsc --noEmit`, which includes test/)
// fails as soon as a view lets a route module change state without `commit`.
import { describe, expect, it } from "vitest";
import { VirtualClock } from "../../src/engine/clock.js";
import type { JournalRecord } from "../../src/journal/journal-records.js";
import type { ApiTableState, EdgeState } from "../../src/server/surfaces.js";
import type {
  AdminState,
  ApiState,
  AuthState,
  EngineHookState,
  EnvView,
  WebAppState,
} from "../../src/state/emulator-state.js";
import { advanceClock } from "../../src/state/emulator-state.js";

export function routeModulesCannotMutate(
  admin: AdminState,
  web: WebAppState,
  api: ApiState,
  auth: AuthState,
  hooks: EngineHookState,
  env: EnvView,
  table: ApiTableState,
  edge: EdgeState,
): void {
  // @ts-expect-error environments change only by `commit`
  admin.envs.delete("production");
  // @ts-expect-error a scenario is set by a `scenario` record
  env.scenarios.set("wf_x", { steps: [] });
  // @ts-expect-error the delivery log grows by `attempt` records
  env.deliveries.push({} as never);
  const wf = env.def.workflows.get("wf_x");
  // @ts-expect-error a workflow's state is set by a `state` record
  if (wf) wf.state = "enabled";
  // @ts-expect-error drafts are added by the agent surface's `workflow` record
  web.envs.get("production")?.def.workflows.set("wf_x", {} as never);
  // @ts-expect-error runs change inside the engine
  api.engine.runs.delete("run_x");
  const run = admin.engine.runs.get("run_x");
  // @ts-expect-error a run's fields change inside the engine (journalled by it)
  if (run) run.status = "failed";
  // @ts-expect-error keys are made and revoked by `key` and `key_revoked` records
  auth.keys.set("hash", {} as never);
  // @ts-expect-error portal sessions are opened by `openPortalSession`
  web.portalSessions.delete("session");
  // @ts-expect-error the engine's hooks read environments
  hooks.envs.clear();
  // @ts-expect-error no route module writes the journal without making the change
  admin.record({ t: "clock", now: 0 });
  // @ts-expect-error the public API's table sees no pending callbacks
  table.pending.clear();
  // @ts-expect-error the edge middleware sees no engine
  edge.engine.tick();
}

describe("advanceClock", () => {
  it("commits each time the clock stops at before the clock shows it", () => {
    const clock = new VirtualClock(1_000);
    const seen: [number, number][] = [];
    const st = {
      clock,
      commit: (rec: JournalRecord) => {
        if (rec.t !== "clock") return;
        seen.push([rec.now, clock.now()]);
        clock.set(rec.now);
      },
      // An engine with steps due at 1 200 and 1 500 within the advance.
      engine: {
        runs: new Map(),
        find: () => undefined,
        advance: (ms: number, setNow: (t: number) => void) => {
          for (const at of [1_200, 1_500]) setNow(at);
          setNow(1_000 + ms);
        },
      },
    };
    advanceClock(st, 2_000);
    expect(seen).toEqual([
      [1_200, 1_000],
      [1_500, 1_200],
      [3_000, 1_500],
    ]);
    expect(clock.now()).toBe(3_000);
  });
});
