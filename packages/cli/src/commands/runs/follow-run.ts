// Following a run to where it stops (terminal, or a person needed), shared by `wfr runs watch`
// and `wfr launch --wait`.
import { RUN_STATUS } from "@wfr/protocol";
import {
  type Client,
  isTerminalStatus,
  isUnsuccessfulTerminalStatus,
  type RunEnvelope,
  toCliError,
} from "../../adapters/runtime.js";
import { EXIT, type ExitCode } from "../../exit-codes.js";
import { statusLabel } from "../../status-label.js";
import { bold, terminal, writeJsonLine } from "../../terminal.js";

/** The exit code a run's state stands for (README "Exit codes"). */
function exitCodeForRun(run: RunEnvelope): ExitCode {
  if (run.status === RUN_STATUS.waiting_for_human_live) return EXIT.HUMAN_NEEDED;
  if (isUnsuccessfulTerminalStatus(String(run.status))) return EXIT.RUN_FAILED;
  if (isTerminalStatus(run.status)) return EXIT.OK;
  return EXIT.OK;
}

function humanSummary(run: RunEnvelope): string {
  const h = run.human_action as Record<string, unknown> | null | undefined;
  if (!h) return "";
  return ` — person needed: ${h.reason ?? h.kind ?? "checkpoint"}${h.response_accepted ? " (answer received)" : ""}`;
}

/** The current step, from the event snapshot: the last step event's name (event fields are not specified; best effort). */
function currentStep(snapshot: unknown): string | undefined {
  const events = (snapshot as { events?: unknown } | null)?.events;
  if (!Array.isArray(events)) return undefined;
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as { type?: unknown; name?: unknown; data?: { name?: unknown } } | null;
    if (typeof event?.type !== "string" || !event.type.startsWith("step.")) continue;
    const name = event.data?.name ?? event.name;
    if (typeof name === "string") return name;
  }
  return undefined;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** Follows a run: a live line in a TTY, one NDJSON line per change otherwise. */
export async function followRun(
  client: Client,
  runId: string,
  options: { json?: boolean | undefined; timeoutSeconds: number },
): Promise<number> {
  const t = terminal();
  // A terminal gets the live line; NO_COLOR drops only its colour and escape codes.
  const live = t.live && !options.json;
  const started = Date.now();
  let last: RunEnvelope | undefined;
  let lastKey = "";
  let frame = 0;
  let drawn = 0;
  let finished = false;
  let step: string | undefined;
  let stepCheckedAt = 0;
  const draw = () => {
    if (!live || !last) return;
    const s = Math.round((Date.now() - started) / 1000);
    const glyph = finished ? "" : `${FRAMES[frame++ % FRAMES.length]} `;
    const line = `${glyph}${s}s ${bold(t, statusLabel(last))}${step ? ` · ${step}` : ""}${humanSummary(last)}`;
    // Without escape codes (NO_COLOR) the old line is overwritten with spaces.
    t.stdout.write(t.fancy ? `\r\u001b[2K${line}` : `\r${line.padEnd(drawn)}`);
    drawn = Math.max(drawn, line.length);
  };
  // The step comes from the event snapshot, read at most every 1.5 s while the run moves.
  const refreshStep = (run: RunEnvelope) => {
    if (Date.now() - stepCheckedAt < 1_500) return;
    stepCheckedAt = Date.now();
    client
      .getEvents(run.run_id)
      .then((snapshot) => {
        const next = currentStep(snapshot);
        if (next !== undefined && next !== step) {
          step = next;
          onUpdate(run);
        }
      })
      .catch(() => undefined);
  };
  const timer = live ? setInterval(draw, 100) : undefined;
  const onUpdate = (run: RunEnvelope): void => {
    last = run;
    refreshStep(run);
    const key = JSON.stringify([run.status, step ?? null, run.human_action ?? null]);
    if (key === lastKey) return;
    lastKey = key;
    if (live) draw();
    else
      writeJsonLine(t, {
        run_id: run.run_id,
        status: run.status,
        step: step ?? null,
        human_action: run.human_action ?? null,
        elapsed_ms: Date.now() - started,
      });
  };
  let final: RunEnvelope;
  try {
    final = await client.waitForRun(runId, { timeoutMs: options.timeoutSeconds * 1000, onUpdate });
    onUpdate(final);
  } catch (error) {
    throw toCliError(error);
  } finally {
    if (timer) clearInterval(timer);
    finished = true;
    if (live) {
      draw();
      t.stdout.write("\n");
    }
  }
  if (final.status === RUN_STATUS.waiting_for_human_live) {
    const h = final.human_action as Record<string, unknown> | null | undefined;
    t.stderr.write(
      `wfr: ${runId} waits for a person${h?.checkpoint_id ? ` (checkpoint ${h.checkpoint_id})` : ""}: wfr runs answer ${runId}\n`,
    );
  }
  const failure = failureLine(final);
  if (failure) t.stderr.write(`wfr: ${runId} ${failure}\n`);
  return exitCodeForRun(final);
}

/** Why a run ended unsuccessfully (its status, and the error it carries), or undefined. */
function failureLine(run: RunEnvelope): string | undefined {
  if (!isUnsuccessfulTerminalStatus(run.status)) return undefined;
  const error = (run as { error?: { code?: unknown; message?: unknown } | null }).error;
  const what = error
    ? `: ${[error.code, error.message].filter((v) => typeof v === "string" && v !== "").join(": ")}`
    : "";
  return `ended ${run.status}${what}`;
}
