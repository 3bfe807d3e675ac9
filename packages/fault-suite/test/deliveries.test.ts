import { describe, expect, it } from "vitest";
import {
  COMPLETED,
  completedByRun,
  type LoggedAttempt,
  settlementStep,
} from "../src/deliveries.js";

const attempt = (
  event: string,
  run: string,
  n: number,
  status: number | null,
  type = COMPLETED,
): LoggedAttempt => ({ event_id: event, run_id: run, type, attempt: n, status });

describe("completedByRun", () => {
  it("keeps the completed event of each run with its attempts and outcome", () => {
    const log = [
      attempt("evt_a", "run_a", 1, 503),
      attempt("evt_a", "run_a", 2, 200),
      attempt("evt_b", "run_b", 1, null),
      attempt("evt_c", "run_c", 1, 400),
      attempt("evt_x", "run_a", 1, 200, "workflow.run.requires_action"),
    ];
    const byRun = completedByRun(log);
    expect(byRun.get("run_a")).toEqual({
      eventId: "evt_a",
      runId: "run_a",
      attempts: 2,
      delivered: true,
      refused: false,
    });
    expect(byRun.get("run_b")).toMatchObject({ attempts: 1, delivered: false, refused: false });
    expect(byRun.get("run_c")).toMatchObject({ delivered: false, refused: true });
  });
});

describe("settlementStep", () => {
  const log = [
    attempt("evt_done", "run_done", 1, 200),
    attempt("evt_going", "run_going", 1, 503),
    attempt("evt_gone", "run_gone", 1, 503),
    attempt("evt_gone", "run_gone", 2, 503),
    attempt("evt_gone", "run_gone", 3, null),
  ];
  const byRun = completedByRun(log);

  it("waits for runs without an event and events still being tried; resends the abandoned", () => {
    const step = settlementStep(["run_done", "run_going", "run_gone", "run_new"], byRun, new Map());
    expect(step).toEqual({ waiting: 2, resend: ["evt_gone"], done: false });
  });

  it("after a resend, waits for its three attempts before resending again", () => {
    const expected = new Map([["evt_gone", 6]]);
    expect(settlementStep(["run_gone"], byRun, expected)).toEqual({
      waiting: 1,
      resend: [],
      done: false,
    });
  });

  it("is done once every run's event was answered 2xx", () => {
    expect(settlementStep(["run_done"], byRun, new Map()).done).toBe(true);
  });
});
