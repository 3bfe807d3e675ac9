// The admin API's clock (README "Admin API"): read it, with the emulator's next event, and move a
// virtual clock forward, by `ms` or only up to its next event (`until_next_event`), the move a
// test kit makes when every client waits (@wfr/testing's README "How time skips").
import type { ServerResponse } from "node:http";
import { CODE } from "@wfr/protocol";
import { iso, LATEST_TIME_MS, MAX_ADVANCE_MS } from "../engine/clock.js";
import { nextEventAt } from "../engine/next-event.js";
import { HttpError, sendJson } from "../http/http-kit.js";
import { type AdminState, advanceClock } from "../state/emulator-state.js";

type ClockState = Pick<AdminState, "clock" | "commit" | "engine" | "limiter" | "dispatcher">;

/** The emulator's next event after now (engine/next-event.ts), as the admin API writes it. */
function nextEvent(st: ClockState): number | null {
  return nextEventAt(st.clock.now(), {
    dueAt: st.engine.nextDueAt(),
    runs: st.engine.runs.values(),
    limiter: st.limiter,
  });
}

function clockView(st: ClockState) {
  const next = nextEvent(st);
  return {
    now: iso(st.clock.now()),
    virtual: st.clock.virtual,
    next_event_at: next === null ? null : iso(next),
  };
}

/** GET /_emulator/clock: `{now, virtual, next_event_at}`. */
export function readClock(st: ClockState, res: ServerResponse): void {
  sendJson(res, 200, clockView(st));
}

/**
 * POST /_emulator/clock/advance `{ms, until_next_event?}`: moves a virtual clock forward by `ms`,
 * running every due step in time order. With `until_next_event: true` it first waits until no
 * callback delivery is in flight, then stops at the emulator's next event when that comes sooner,
 * so that whatever happens there (a callback, a status a client polls for) happens at its time.
 */
export async function advanceClockRoute(
  st: ClockState,
  res: ServerResponse,
  body: Record<string, unknown>,
): Promise<void> {
  if (!st.clock.virtual) {
    throw new HttpError(
      409,
      CODE.CLOCK_NOT_VIRTUAL,
      "the clock is real; start with clock virtual to advance it",
    );
  }
  const { ms, until_next_event: untilNext = false } = body;
  if (typeof untilNext !== "boolean")
    throw new HttpError(400, CODE.INVALID_BODY, "until_next_event must be true or false", {
      field: "until_next_event",
    });
  if (
    typeof ms !== "number" ||
    !Number.isFinite(ms) ||
    ms < 0 ||
    ms > MAX_ADVANCE_MS ||
    st.clock.now() + ms > LATEST_TIME_MS
  ) {
    throw new HttpError(
      400,
      CODE.INVALID_BODY,
      `ms must be a number from 0 to ${MAX_ADVANCE_MS} (and keep the clock before year 9999)`,
      { field: "ms" },
    );
  }
  let by = Math.floor(ms);
  if (untilNext) {
    await st.dispatcher.idle();
    const next = nextEvent(st);
    if (next !== null) by = Math.min(by, next - st.clock.now());
  }
  advanceClock(st, by);
  sendJson(res, 200, clockView(st));
}
