// A test environment: the emulator in-process on a free loopback port, with a
// virtual clock that skips ahead while the clients wait, a key, and a runtime
// client bound to it. Everything it does to the emulator goes through the
// emulator's admin API (packages/emulator/README.md "Admin API"), the same
// one a test would call by hand.
import {
  type CatalogObject,
  type EmulatorOptions,
  type RecordedRun,
  readRecordedRunFile,
  startEmulator,
} from "@wfr/emulator";
import {
  type AnyWorkflowDefinition,
  type ClientOptions,
  createClient,
  type EnvironmentInfo,
  type WorkflowRunClient,
} from "@wfr/runtime";
import type { ScenarioBuilder, ScenarioJson } from "./scenario-builder.js";
import { TimeSkippingClock } from "./time-skipping-clock.js";

export type Scope = "workflows:run" | "runs:read";

export interface TestEnvironmentOptions {
  /**
   * The generated environment the code under test uses
   * (`import { environment } from "#wfr/production/environment"`): its name picks
   * the emulator's environment, and `environment` below is a copy bound to the
   * emulator. Default: the emulator's first environment.
   */
  readonly environment?: EnvironmentInfo;
  /** Where the emulator's workflows come from: a catalog (file or object), or `fromSchemas` (your `schemas/` folder, twin mode). Default: the emulator's sample catalog. */
  readonly catalog?: string | CatalogObject;
  readonly fromSchemas?: string;
  /** Skip time while every client waits (default true). Off: time moves only by `advance`. */
  readonly skipTime?: boolean;
  /** Scopes of the key the client gets (default both). */
  readonly scopes?: readonly Scope[];
  /** Signs callbacks with this Standard Webhooks secret. */
  readonly webhookSecret?: string;
  /** Lets runs deliver callbacks to loopback receivers (a test's own receiver). Default true. */
  readonly allowLocalCallbacks?: boolean;
  /** More client options (retry, logger, ...); `baseUrl`, `apiKey`, `clock` and `fetch` are the environment's. */
  readonly client?: Omit<ClientOptions, "baseUrl" | "environment" | "apiKey" | "clock">;
}

export interface TestEnvironment {
  /** A runtime client bound to the emulator, whose waits skip time. */
  readonly client: WorkflowRunClient;
  /** The environment object with the emulator's API base: pass it where your code takes one. */
  readonly environment: EnvironmentInfo;
  /** The key the client uses (scoped as asked). */
  readonly apiKey: string;
  /** The emulator's origin (`http://127.0.0.1:<port>`), for its admin API and web app. */
  readonly url: string;
  /** The clock the client uses: pass it to other clients (`createClient({ clock: env.clock, fetch: env.fetch })`). */
  readonly clock: TimeSkippingClock;
  /** A fetch whose requests hold time still while in flight; give it to other clients of this environment. */
  readonly fetch: typeof globalThis.fetch;
  /** The virtual time (ms since the epoch). */
  now(): number;
  /** Moves time forward by hand. */
  advance(ms: number): Promise<number>;
  /** Stops time skipping until the returned function is called. */
  pauseTimeSkipping(): () => void;
  /**
   * Replays a recorded run (`wfr runs export`, a file path or its JSON) for this workflow from the
   * next launch on. Its outputs are checked against the workflow's generated outputs schema, so a
   * recording that no longer fits the workflow (regenerated since) fails here, naming the field.
   */
  replay<W extends AnyWorkflowDefinition>(
    workflow: W,
    recorded: string | RecordedRun,
  ): Promise<void>;
  /** Sets what runs of this workflow do from the next launch on. */
  setScenario<W extends AnyWorkflowDefinition>(
    workflow: W,
    scenario: ScenarioBuilder<W> | ScenarioJson,
  ): Promise<void>;
  /** A new key of this environment with these scopes. */
  createKey(scopes: readonly Scope[]): Promise<string>;
  /** Forgets the environment's runs, keys' idempotency records, deliveries and scenarios. */
  reset(): Promise<void>;
  /** Stops the emulator; pending sleeps reject. Safe to call twice. */
  close(): Promise<void>;
}

/** The admin API's error, with the route and the answer's code. */
export class TestEnvironmentError extends Error {
  override name = "TestEnvironmentError";
}

/** Starts the emulator in-process and returns a client bound to it; `await env.close()` when done. */
export async function createTestEnvironment(
  options: TestEnvironmentOptions = {},
): Promise<TestEnvironment> {
  const emulatorOptions: EmulatorOptions = {
    port: 0,
    clock: "virtual",
    allowLocalCallbacks: options.allowLocalCallbacks ?? true,
    ...(options.catalog !== undefined ? { catalog: options.catalog } : {}),
    ...(options.fromSchemas !== undefined ? { fromSchemas: options.fromSchemas } : {}),
    ...(options.webhookSecret !== undefined ? { webhookSecret: options.webhookSecret } : {}),
  };
  const emulator = await startEmulator(emulatorOptions);
  try {
    const admin = adminApi(emulator.url);
    const listed = await admin<{
      environments: { name: string; base_url: string; workspace: string }[];
    }>("GET", "/environments");
    const wanted = options.environment?.name;
    const found = wanted
      ? listed.environments.find((e) => e.name === wanted)
      : listed.environments[0];
    if (!found)
      throw new TestEnvironmentError(
        `the emulator has no environment ${JSON.stringify(wanted)} (it has ${listed.environments.map((e) => e.name).join(", ")}); pass the catalog or fromSchemas that defines it`,
      );
    const environment: EnvironmentInfo = Object.freeze({
      name: found.name,
      workspace: found.workspace,
      baseUrl: found.base_url,
    });
    const createKey = async (scopes: readonly Scope[]) =>
      (
        await admin<{ token: string }>("POST", "/keys", {
          environment: found.name,
          scopes: [...scopes],
        })
      ).token;
    const apiKey = await createKey(options.scopes ?? ["workflows:run", "runs:read"]);
    type ClockView = { now: string; next_event_at: string | null };
    const clock = await TimeSkippingClock.start({
      now: async () => toMs((await admin<ClockView>("GET", "/clock")).now),
      advance: async (ms) => toMs((await admin<ClockView>("POST", "/clock/advance", { ms })).now),
      // The emulator's own timers (packages/emulator/README.md "Admin API", GET /clock).
      events: {
        next: async () => {
          const at = (await admin<ClockView>("GET", "/clock")).next_event_at;
          return at === null ? null : toMs(at);
        },
        advanceUntilNext: async (ms) =>
          toMs(
            (await admin<ClockView>("POST", "/clock/advance", { ms, until_next_event: true })).now,
          ),
      },
    });
    const skipping = options.skipTime ?? true;
    if (!skipping) clock.pause();
    const fetch = clock.wrapFetch(globalThis.fetch);
    const client = createClient({
      ...options.client,
      environment,
      apiKey,
      clock,
      fetch,
    });
    let closed: Promise<void> | undefined;
    return {
      client,
      environment,
      apiKey,
      url: emulator.url,
      clock,
      fetch,
      now: () => clock.now(),
      advance: (ms) => clock.advance(ms),
      pauseTimeSkipping: () => clock.pause(),
      setScenario: async (workflow, scenario) => {
        const json = "toJSON" in scenario ? scenario.toJSON() : scenario;
        await admin(
          "PUT",
          `/environments/${encodeURIComponent(found.name)}/workflows/${encodeURIComponent(workflow.id)}/scenario`,
          json,
        );
      },
      replay: async (workflow, recorded) => {
        const file = typeof recorded === "string" ? await readRecordedRunFile(recorded) : recorded;
        checkRecordedRun(workflow, file, found.name);
        await admin(
          "PUT",
          `/environments/${encodeURIComponent(found.name)}/workflows/${encodeURIComponent(workflow.id)}/scenario`,
          file.scenario,
        );
      },
      createKey,
      reset: async () => {
        await admin("POST", `/environments/${encodeURIComponent(found.name)}/reset`, {});
      },
      close: () => {
        closed ??= (async () => {
          clock.stop(new TestEnvironmentError("the test environment was closed"));
          await emulator.close();
        })();
        return closed;
      },
    };
  } catch (error) {
    await emulator.close();
    throw error;
  }
}

/** A recorded run fits a workflow: the same id and environment, and outputs its generated schema accepts. */
function checkRecordedRun(
  workflow: AnyWorkflowDefinition,
  recorded: RecordedRun,
  environment: string,
) {
  const from = `the recorded run ${recorded.recorded_from.run_id}`;
  if (recorded.workflow_id !== workflow.id)
    throw new TestEnvironmentError(
      `${from} is of workflow ${recorded.workflow_id}, not ${workflow.id} (${workflow.name})`,
    );
  if (recorded.environment !== environment)
    throw new TestEnvironmentError(
      `${from} is of environment ${recorded.environment}, not ${environment}`,
    );
  for (const step of recorded.scenario.steps) {
    if (!("succeed" in step) || !step.succeed.outputs) continue;
    // A file given by bytes stands where a download reference will be.
    const outputs = JSON.parse(JSON.stringify(step.succeed.outputs), (_key, value) =>
      value && typeof value === "object" && "$file" in value && Object.keys(value).length === 1
        ? {
            download_url: "http://127.0.0.1/_files/recorded",
            filename: value.$file.filename,
            mime_type: value.$file.mime_type,
            size_bytes: 0,
            expires_at: null,
          }
        : value,
    );
    const issues = workflow.checkOutputs(outputs);
    if (issues.length > 0)
      throw new TestEnvironmentError(
        `${from} does not fit ${workflow.name} as generated now: ${issues.map((i) => `${i.field}: ${i.message}`).join("; ")}`,
      );
  }
}

/** The admin API writes times as ISO strings. */
function toMs(iso: string): number {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms))
    throw new TestEnvironmentError(`the emulator's clock answered ${JSON.stringify(iso)}`);
  return ms;
}

/** A call of the emulator's admin API that throws a TestEnvironmentError naming the route on any non-2xx answer. */
function adminApi(origin: string) {
  return async <T = unknown>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${origin}/_emulator${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok)
      throw new TestEnvironmentError(
        `${method} /_emulator${path} answered ${response.status}: ${text.slice(0, 500)}`,
      );
    return (text ? JSON.parse(text) : {}) as T;
  };
}
