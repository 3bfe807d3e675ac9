// @wfr/emulator: a stateful local twin of the Workflow Run service.

import { readSchemasDir } from "./definition/definition-read.js";
import {
  builtinCatalogJsonPath,
  type CatalogObject,
  catalogFromObject,
  loadCatalogFile,
} from "./engine/catalog.js";
import { armApiFault } from "./state/emulator-state.js";

export { apiFaultFromFlag } from "./faults/api-faults.js";

import { type RecordedRun, RecordedRunError } from "./engine/recorded-run.js";
import { HttpError } from "./http/http-kit.js";
import type { EnvironmentDef } from "./model/types.js";
import { Emulator } from "./server/http-server.js";
import { type StartKey, startKeys } from "./server/start-keys.js";
import type { StartedEmulator } from "./server/start-message.js";

export { AgentSurface } from "./agent/agent-surface.js";
export {
  AuthoringError,
  type DraftField,
  type DraftRequest,
  draftWorkflow,
} from "./agent/authoring.js";
// What the web app's "Personal access tokens" page calls, on `emulator.agents.personalAccessTokens`.
export {
  type CreatedPersonalAccessToken,
  createPersonalAccessToken,
  listPersonalAccessTokens,
  type PersonalAccessTokenInfo,
  PersonalAccessTokenStore,
  revokePersonalAccessToken,
} from "./agent/personal-access-tokens.js";
export { emitDefinition } from "./definition/definition-emit.js";
export { DefinitionError, readDefinition } from "./definition/definition-read.js";
export type { Detail as InputIssueDetail, InputValidation } from "./definition/validate-inputs.js";
export { validateInputs } from "./definition/validate-inputs.js";
export { signWebhook } from "./engine/callbacks.js";
export type { CatalogEnvironment, CatalogObject, CatalogWorkflow } from "./engine/catalog.js";
export { CatalogError } from "./engine/catalog.js";
export {
  MAX_RECORDED_RUN_BYTES,
  parseRecordedRun,
  RECORDED_RUN_FORMAT,
  type RecordedRun,
  RecordedRunError,
  type RecordedRunInput,
  readRecordedRunFile,
  recordRun,
} from "./engine/recorded-run.js";
export { MAX_SCENARIO_STEPS } from "./engine/scenario.js";
export type { Scenario, ScenarioStep } from "./model/types.js";
export { EmulatorOptionError } from "./server/exposure.js";
export type { StartKey } from "./server/start-keys.js";
export { type StartedEmulator, startMessage } from "./server/start-message.js";

import { EmulatorOptionError, exposureProblem } from "./server/exposure.js";

export interface EmulatorOptions {
  /** 0 = a free port (default for in-process use). */
  port?: number;
  host?: string;
  /** A catalog file (YAML or JSON) or object; default: the sample catalog shipped in the package. */
  catalog?: string | CatalogObject;
  /** Twin mode: a directory of <env>/openapi.(json|yaml). */
  fromSchemas?: string;
  /** Persistence journal file; default in-memory. */
  data?: string;
  allowLocalCallbacks?: boolean;
  clock?: "real" | "virtual";
  /** The /_emulator admin API (default true). */
  admin?: boolean;
  corsOrigins?: string[];
  webhookSecret?: string;
  /** Vault credentials by environment: { production: { erp_password: "..." } }. */
  vault?: Record<string, Record<string, string>>;
  /** One line per request on stdout: "text", "json", or "off" (default for in-process use). */
  requestLog?: "text" | "json" | "off";
  /** Send every callback to this local receiver instead, with X-Wfr-Callback-Url (like stripe listen --forward-to). */
  forwardCallbacks?: string;
  /** Send callbacks to public addresses; without it they are held (recorded, not sent). */
  deliverPublic?: boolean;
  /** When set, the admin API needs `Authorization: Bearer <adminToken>`; an empty one is refused. */
  adminToken?: string;
  /**
   * Listen beyond loopback with the admin API open and no admin token (default false: such a
   * start is refused, server/exposure.ts).
   */
  exposeAdminWithoutToken?: boolean;
  /** How long a portal session (the web app's sign-in, a live view's) lasts; default 12 hours. */
  portalSessionTtlMs?: number;
  /** Host header names accepted besides the listening address, localhost, 127.0.0.1, [::1]. */
  allowedHosts?: string[];
  /** With `data`: compact the journal in the background after this many appended bytes. */
  compactAfterBytes?: number;
  /**
   * With `data`: finished runs kept in memory (default 1,000); older finished runs live on disk
   * in `<data>.runs` and are read back on demand, so memory stays flat (0 keeps none).
   */
  finishedRunsInMemory?: number;
  /**
   * Open agent (MCP) sessions per workspace; opening one more closes that workspace's oldest,
   * never another workspace's (default 1,000).
   */
  mcpSessionsPerWorkspace?: number;
  /** Recorded runs (`wfr runs export`) whose scenarios their workflows replay from the start. */
  recordedRuns?: RecordedRun[];
  /**
   * Faults on the API itself, armed at start (as `POST /_emulator/api-faults` bodies): ids
   * `flt_start_1`, `flt_start_2`, ... , armed afresh on every start (api-faults.ts).
   */
  apiFaults?: Record<string, unknown>[];
}

export interface RunningEmulator {
  url: string;
  port: number;
  /** The web application's one-time sign-in link (opening it sets the portal session cookie). */
  signInUrl: string;
  /** A new one-time sign-in link (each works once). */
  createSignInLink(): string;
  close(): Promise<void>;
  adminToken?: never;
}

function loadEnvironments(o: EmulatorOptions): EnvironmentDef[] {
  const envs: EnvironmentDef[] = [];
  if (o.fromSchemas) envs.push(...readSchemasDir(o.fromSchemas));
  if (o.catalog !== undefined) {
    envs.push(
      ...(typeof o.catalog === "string"
        ? loadCatalogFile(o.catalog)
        : catalogFromObject(o.catalog)),
    );
  }
  if (!o.fromSchemas && o.catalog === undefined)
    envs.push(...loadCatalogFile(builtinCatalogJsonPath()));
  const names = new Set<string>();
  for (const e of envs) {
    if (names.has(e.name)) throw new Error(`environment ${e.name} is defined twice`);
    names.add(e.name);
  }
  for (const [key, creds] of Object.entries(o.vault ?? {})) {
    const env = envs.find((e) => e.name === key);
    if (env) Object.assign(env.vault, creds);
    else {
      // Not an environment name: a credential with fields, usable as "<name>.<field>" everywhere.
      for (const e of envs) for (const [f, v] of Object.entries(creds)) e.vault[`${key}.${f}`] = v;
    }
  }
  return envs;
}

/** A started emulator, with what `startMessage` prints (used by the bin and `wfr emulator`). */
export interface LaunchedEmulator extends StartedEmulator {
  running: RunningEmulator;
}

/** Start the emulator; also returns what its start-up message needs (start-message.ts). */
export async function launchEmulator(options: EmulatorOptions = {}): Promise<LaunchedEmulator> {
  const exposure = exposureProblem({
    host: options.host ?? "127.0.0.1",
    admin: options.admin ?? true,
    adminToken: options.adminToken,
    exposeAdminWithoutToken: options.exposeAdminWithoutToken ?? false,
  });
  if (exposure !== null) throw new EmulatorOptionError(exposure);
  const emu = new Emulator({
    environments: loadEnvironments(options),
    clock: options.clock ?? "real",
    admin: options.admin ?? true,
    allowLocalCallbacks: options.allowLocalCallbacks ?? false,
    corsOrigins: options.corsOrigins ?? [],
    ...(options.webhookSecret ? { webhookSecret: options.webhookSecret } : {}),
    ...(options.data ? { data: options.data } : {}),
    requestLog: options.requestLog ?? "off",
    ...(options.adminToken ? { adminToken: options.adminToken } : {}),
    ...(options.portalSessionTtlMs !== undefined
      ? { portalSessionTtlMs: options.portalSessionTtlMs }
      : {}),
    ...(options.forwardCallbacks ? { forwardCallbacks: options.forwardCallbacks } : {}),
    deliverPublic: options.deliverPublic ?? false,
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.compactAfterBytes !== undefined
      ? { compactAfterBytes: options.compactAfterBytes }
      : {}),
    ...(options.finishedRunsInMemory !== undefined
      ? { finishedRunsInMemory: options.finishedRunsInMemory }
      : {}),
    ...(options.mcpSessionsPerWorkspace !== undefined
      ? { mcpSessionsPerWorkspace: options.mcpSessionsPerWorkspace }
      : {}),
  });
  await emu.listen(options.port ?? 0, options.host ?? "127.0.0.1");
  try {
    // A recorded run this emulator cannot replay (an environment or workflow it does not have) is
    // the caller's mistake: a typed error saying which run, for the caller to name its file.
    (options.recordedRuns ?? []).forEach((recorded, i) => {
      try {
        emu.setScenario(recorded.environment, recorded.workflow_id, recorded.scenario);
      } catch (e) {
        throw new RecordedRunError(
          `recorded run ${recorded.recorded_from?.run_id ?? i + 1} cannot be replayed here: ${(e as Error).message}`,
          i,
        );
      }
    });
    (options.apiFaults ?? []).forEach((body, i) => {
      try {
        armApiFault(emu, body, `flt_start_${i + 1}`);
      } catch (e) {
        const field = e instanceof HttpError ? ` (${String(e.extra.field)})` : "";
        throw new Error(`API fault ${i + 1}${field}: ${(e as Error).message}`);
      }
    });
  } catch (error) {
    await emu.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  const running: RunningEmulator = {
    url: emu.origin,
    port: emu.port,
    signInUrl: emu.signInUrl,
    createSignInLink: () => emu.createSignInLink(),
    close: () => {
      closing ??= emu.close();
      return closing;
    },
  };
  const environments = emu
    .environmentNames()
    .map((name) => ({ name, baseUrl: emu.links(name).apiBase }));
  let keys: StartKey[] | undefined;
  return {
    running,
    environments,
    admin: emu.cfg.admin,
    startKeys: () => {
      keys ??= startKeys(emu, options.data);
      return keys;
    },
  };
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return (await launchEmulator(options)).running;
}
