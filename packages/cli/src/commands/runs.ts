// `wfr runs get|result|events|watch|answer|recording|grant <runId>`, `wfr runs revoke-grant <grantId>`.

import { randomBytes } from "node:crypto";
import { createWriteStream, readFileSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { RUN_STATUS } from "@wfr/protocol";
import {
  type Client,
  isTerminalStatus,
  isUnsuccessfulTerminalStatus,
  type RunEnvelope,
  toCliError,
} from "../adapters/runtime.js";
import { CliError } from "../cli-error.js";
import { type ConnectionOptions, openConnection } from "../connection.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { statusLabel } from "../status-label.js";
import { bold, terminal, writeJson, writeJsonLine } from "../terminal.js";

type ReadKind = "get" | "result" | "events";

export function readCommand(kind: ReadKind) {
  return async (
    runId: string,
    options: ConnectionOptions & { json?: boolean },
  ): Promise<number> => {
    const t = terminal();
    const { client } = await openConnection(options);
    let value: unknown;
    try {
      value =
        kind === "get"
          ? await client.getRun(runId)
          : kind === "result"
            ? await client.getResult(runId)
            : await client.getEvents(runId);
    } catch (error) {
      throw toCliError(error);
    }
    if (options.json || !t.stdout.isTTY) writeJson(t, value);
    else t.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    if (kind === "result") {
      const status = (value as { status?: string }).status;
      if (status && isUnsuccessfulTerminalStatus(status)) return EXIT.RUN_FAILED;
    }
    return EXIT.OK;
  };
}

/** The exit code a run's state stands for (README "Exit codes"). */
export function exitCodeForRun(run: RunEnvelope): ExitCode {
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
export function currentStep(snapshot: unknown): string | undefined {
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
export function failureLine(run: RunEnvelope): string | undefined {
  if (!isUnsuccessfulTerminalStatus(run.status)) return undefined;
  const error = (run as { error?: { code?: unknown; message?: unknown } | null }).error;
  const what = error
    ? `: ${[error.code, error.message].filter((v) => typeof v === "string" && v !== "").join(": ")}`
    : "";
  return `ended ${run.status}${what}`;
}

export async function watchCommand(
  runId: string,
  options: ConnectionOptions & { json?: boolean; timeout: string },
): Promise<number> {
  const timeoutSeconds = Number(options.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0)
    throw new CliError(
      `--timeout: ${options.timeout} is not a positive number of seconds`,
      EXIT.USAGE,
    );
  const { client } = await openConnection(options);
  return followRun(client, runId, { json: options.json, timeoutSeconds });
}

/**
 * `--response-json`: a structured answer. `--response` and the prompt are
 * always text, so the type of an answer never depends on what was typed
 * (`123456` and `012345` are both the text a person entered).
 */
function parseResponseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new CliError(`--response-json: not JSON: ${(error as Error).message}`, EXIT.USAGE);
  }
}

export async function answerCommand(
  runId: string,
  options: ConnectionOptions & {
    checkpoint?: string;
    response?: string;
    responseFile?: string;
    responseJson?: string;
    input?: boolean;
    json?: boolean;
  },
): Promise<number> {
  const t = terminal({ noInput: options.input === false });
  const { client } = await openConnection(options);
  let run: RunEnvelope;
  try {
    run = await client.getRun(runId);
  } catch (error) {
    throw toCliError(error);
  }
  const h = run.human_action as Record<string, unknown> | null | undefined;
  if (run.status !== RUN_STATUS.waiting_for_human_live || !h)
    throw new CliError(
      `${runId} is not waiting for a person (status ${statusLabel(run)})`,
      EXIT.HUMAN_WAIT_CONFLICT,
    );
  const checkpointId = String(h.checkpoint_id ?? "");
  // Never answer a different checkpoint than the one the caller saw.
  if (options.checkpoint !== undefined && options.checkpoint !== checkpointId)
    throw new CliError(
      `--checkpoint ${options.checkpoint} is not the open checkpoint (${checkpointId})`,
      EXIT.HUMAN_WAIT_CONFLICT,
    );
  t.stderr.write(`${bold(t, `Run ${runId} waits for a person`)}\n`);
  for (const field of [
    "checkpoint_id",
    "kind",
    "reason",
    "instructions",
    "stop_condition",
    "expires_at",
  ])
    if (h[field] !== undefined && h[field] !== null)
      t.stderr.write(`  ${field}: ${String(h[field])}\n`);
  if (h.response_accepted === true)
    t.stderr.write("  an answer was already received; the runtime has not acknowledged it yet\n");
  let response: unknown;
  if (options.responseFile !== undefined) {
    try {
      response = JSON.parse(readFileSync(options.responseFile, "utf8"));
    } catch (error) {
      throw new CliError(
        `--response-file ${options.responseFile}: ${(error as Error).message}`,
        EXIT.USAGE,
      );
    }
  } else if (options.responseJson !== undefined) {
    response = parseResponseJson(options.responseJson);
  } else if (options.response !== undefined) {
    response = options.response;
  } else {
    if (!t.interactive)
      throw new CliError(
        "no answer: give --response, --response-json or --response-file (not a terminal, or --no-input)",
        EXIT.USAGE,
      );
    const prompts = await import("@clack/prompts");
    const answer = await prompts.text({
      message: "Your answer (sent as text; --response-json sends JSON)",
      validate: (v) => (v ? undefined : "required"),
    });
    if (prompts.isCancel(answer)) {
      t.stderr.write("wfr: not answered\n");
      return EXIT.HUMAN_NEEDED;
    }
    response = answer;
  }
  let after: RunEnvelope;
  try {
    after = await client.answerHumanInput(runId, { checkpointId, response });
  } catch (error) {
    throw toCliError(error);
  }
  if (options.json || !t.stdout.isTTY) writeJson(t, after);
  else t.stdout.write(`answered ${checkpointId}; status ${statusLabel(after)}\n`);
  return EXIT.OK;
}

export async function recordingCommand(
  runId: string,
  options: ConnectionOptions & { output: string },
): Promise<number> {
  const t = terminal();
  const { client } = await openConnection(options);
  let download: Awaited<ReturnType<Client["downloadRecording"]>>;
  try {
    download = await client.downloadRecording(runId, { maxProcessingAttempts: 20 });
  } catch (error) {
    throw toCliError(error);
  }
  const tmp = join(
    dirname(options.output),
    `.${basename(options.output)}.${randomBytes(6).toString("hex")}.tmp`,
  );
  const out = createWriteStream(tmp);
  let received = 0;
  const total = download.contentLength;
  const showBar = t.fancy || process.stderr.isTTY === true;
  try {
    for await (const chunk of download.stream as unknown as AsyncIterable<Uint8Array>) {
      received += chunk.byteLength;
      if (!out.write(chunk)) await new Promise<void>((r) => out.once("drain", () => r()));
      if (showBar && total) {
        const width = 30;
        const done = Math.round((received / total) * width);
        t.stderr.write(
          `\r[${"#".repeat(done)}${" ".repeat(width - done)}] ${received}/${total} bytes`,
        );
      }
    }
    await new Promise<void>((res, rej) => out.end((e?: Error | null) => (e ? rej(e) : res())));
    renameSync(tmp, options.output);
  } catch (error) {
    out.destroy();
    rmSync(tmp, { force: true });
    throw error;
  }
  if (showBar && total) t.stderr.write("\n");
  t.stderr.write(`wfr: wrote ${options.output} (${received} bytes)\n`);
  return EXIT.OK;
}

/** `wfr runs grant <runId> --origin <o>...`: a browser-access grant; its token is printed once. */
export async function grantCommand(
  runId: string,
  options: ConnectionOptions & { origin?: string[]; expiresIn?: string; json?: boolean },
): Promise<number> {
  const t = terminal();
  const origins = options.origin ?? [];
  if (origins.length === 0)
    throw new CliError(
      "give the page's exact origin with --origin https://app.example.com",
      EXIT.USAGE,
    );
  let expiresInSeconds: number | undefined;
  if (options.expiresIn !== undefined) {
    expiresInSeconds = Number(options.expiresIn);
    if (!Number.isInteger(expiresInSeconds) || expiresInSeconds < 1)
      throw new CliError(
        `--expires-in must be a whole number of seconds, not ${JSON.stringify(options.expiresIn)}`,
        EXIT.USAGE,
      );
  }
  const { client } = await openConnection(options);
  let grant: Awaited<ReturnType<Client["createBrowserAccessGrant"]>>;
  try {
    grant = await client.createBrowserAccessGrant(runId, {
      origins,
      ...(expiresInSeconds !== undefined ? { expiresInSeconds } : {}),
    });
  } catch (error) {
    throw toCliError(error);
  }
  if (options.json || !t.stdout.isTTY) writeJson(t, grant);
  else
    t.stdout.write(
      `${bold(t, "grant")} ${grant.grant_id} for ${grant.run_id}, origins ${grant.origins.join(", ")}, expires ${grant.expires_at}\n` +
        `token (shown once; give it only to the page that embeds the live view): ${grant.token}\n`,
    );
  return EXIT.OK;
}

/** `wfr runs revoke-grant <grantId>`: the live view refuses the grant's token from now on; the run goes on. */
export async function revokeGrantCommand(
  grantId: string,
  options: ConnectionOptions,
): Promise<number> {
  const { client } = await openConnection(options);
  try {
    await client.deleteBrowserAccessGrant(grantId);
  } catch (error) {
    throw toCliError(error);
  }
  terminal().stderr.write(`grant ${grantId} deleted (the run goes on)\n`);
  return EXIT.OK;
}

/** File output references in a result's outputs (objects with a download_url), depth first. */
function fileReferences(
  value: unknown,
  out: {
    download_url: string;
    filename: string;
    mime_type: string;
    size_bytes?: number;
    expires_at?: string | null;
  }[] = [],
) {
  if (Array.isArray(value)) for (const v of value) fileReferences(v, out);
  else if (value !== null && typeof value === "object") {
    const o = value as Record<string, unknown>;
    if (
      typeof o.download_url === "string" &&
      typeof o.filename === "string" &&
      typeof o.mime_type === "string"
    )
      out.push(o as (typeof out)[number]);
    else for (const v of Object.values(o)) fileReferences(v, out);
  }
  return out;
}

/**
 * `wfr runs export <runId>`: a finished run of any environment (real or emulator), recorded into a
 * scenario file that `wfr emulator --scenario` or the testing kit replays. Caller metadata is never
 * written; event fields that look secret are replaced unless `--keep-secret-looking-fields`.
 */
export async function exportCommand(
  runId: string,
  options: ConnectionOptions & {
    output?: string;
    fetchFiles?: boolean;
    keepSecretLookingFields?: boolean;
  },
): Promise<number> {
  const t = terminal();
  const { client, env } = await openConnection(options);
  const { recordRun } = await import("../adapters/emulator.js");
  let recorded: Awaited<ReturnType<typeof recordRun>>;
  try {
    const [run, events, result] = await Promise.all([
      client.getRun(runId),
      client.getEvents(runId),
      client.getResult(runId),
    ]);
    if (result.state !== "terminal")
      throw new CliError(
        `run ${runId} is ${result.serverStatus}: only a finished run can be exported; try again when it has ended`,
        EXIT.RUN_FAILED,
      );
    const outputs = result.status === RUN_STATUS.succeeded ? result.outputs : null;
    const files = new Map<string, Uint8Array>();
    if (options.fetchFiles && outputs) {
      for (const reference of fileReferences(outputs)) {
        // Only from the environment or its storage origins (the runtime's download policy).
        const response = await client.downloadFileOutput(reference);
        files.set(reference.download_url, new Uint8Array(await response.arrayBuffer()));
      }
    }
    recorded = await recordRun({
      run: { ...run },
      events,
      result: { status: result.serverStatus, error: result.error, outputs },
      environment: env.name,
      apiBase: env.baseUrl,
      files,
      keepSecretLookingFields: options.keepSecretLookingFields === true,
    });
  } catch (error) {
    if (error instanceof CliError) throw error;
    if ((error as Error).name === "RecordedRunError")
      throw new CliError((error as Error).message, EXIT.RUN_FAILED);
    throw toCliError(error);
  }
  const path = options.output ?? `${runId}.wfr-run.json`;
  const { writeFileAtomic } = await import("../atomic-write.js");
  writeFileAtomic(path, `${JSON.stringify(recorded, null, 2)}\n`);
  t.stderr.write(
    `wrote ${path}: ${recorded.scenario.steps.length} steps of run ${runId} (${recorded.recorded_from.status}); replay it with: wfr emulator --scenario ${path}\n`,
  );
  return EXIT.OK;
}
