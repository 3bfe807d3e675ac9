// What the web application needs from the emulator (web-app.ts and its guards read it; the
// emulator's server/web-app-host.ts implements it). Its own file, below the route modules, so
// that the guards and the table that mounts them do not import each other.
import type { IncomingMessage } from "node:http";
import type { SignInLinks } from "../access/sign-in.js";
import type { DeliveryAttempt } from "../engine/callbacks.js";
import type { Fault } from "../engine/run-engine.js";
import type { Links } from "../engine/run-views.js";
import type { DeliveryFaultKind } from "../faults/delivery-faults.js";
import type {
  EnvironmentDefView,
  RunListing,
  RunRecord,
  Scenario,
  WorkflowState,
} from "../model/types.js";
import type { ApiFaultRow } from "./pages.js";

/** What the web application needs from the emulator; implemented by the Emulator class. */
export interface WebAppHost {
  readonly signIn: SignInLinks;
  now(): number;
  /** Read-only: the web application changes them only through the host's actions. */
  environments(): {
    readonly def: EnvironmentDefView;
    readonly scenarios: ReadonlyMap<string, Readonly<Scenario>>;
    readonly deliveries: readonly Readonly<DeliveryAttempt>[];
  }[];
  links(env: string): Links;
  /** Every run, brought up to date: in memory whole, finished ones on disk as their listing. */
  runs(): RunListing[];
  run(env: string, runId: string): RunRecord | undefined;
  /** A new portal session for the signed-in local developer (every environment); its id. */
  openDeveloperSession(): string;
  /** The portal session id of a request, when it has a valid developer session. */
  developerSession(req: IncomingMessage): string | null;
  /** Ends a developer session (sign-out). */
  closeDeveloperSession(id: string): void;
  sameOrigins(): ReadonlySet<string>;
  answer(run: RunRecord, checkpointId: string, response: unknown): { ok: boolean; message: string };
  /**
   * "Launch again": a new run of the run's workflow with these inputs, its metadata and model,
   * through the public API (the same checks as any launch); the new run id, or the API's refusal.
   */
  relaunch(
    run: RunRecord,
    inputs: Record<string, unknown>,
  ): Promise<{ ok: true; runId: string } | { ok: false; message: string }>;
  inject(run: RunRecord, kind: Fault["kind"], body: Record<string, unknown>): string | null;
  /** Arm a callback delivery fault (as the admin API does); the refusal, or null. */
  armDeliveryFault(
    run: RunRecord,
    kind: DeliveryFaultKind,
    body: Record<string, unknown>,
  ): string | null;
  resendCallback(env: string, eventId: string): boolean;
  listKeys(): { id: string; environment: string; workspace: string; scopes: string[] }[];
  createKey(env: string, scopes: string[]): string;
  revokeKey(id: string): boolean;
  readonly scopes: readonly string[];
  /** Personal access tokens of the MCP endpoint: listed without values. */
  listTokens(): { id: string; environment: string; workspace: string; created_at: string }[];
  createToken(env: string): string;
  revokeToken(id: string): boolean;
  setWorkflowState(env: string, workflowId: string, state: WorkflowState): void;
  /** Forget an environment's runs, deliveries, pending callbacks and scenarios (as the admin API's reset). */
  resetEnvironment(env: string): void;
  /** Faults on the API itself (api-faults.ts). */
  listApiFaults(): ApiFaultRow[];
  /** Arm one from the form's fields (as the admin API's body); the refusal, or null. */
  armApiFault(body: Record<string, unknown>): string | null;
  removeApiFault(id: string): boolean;
  /**
   * A connector's sign-in (an OAuth authorization request, agent/oauth/): what the consent page
   * shows, or why it is refused (sent back to the connector once its redirect URI is trusted).
   */
  oauthConsent(
    params: URLSearchParams,
  ):
    | { readonly ok: true; readonly clientName: string; readonly redirectUri: string }
    | { readonly ok: false; readonly message: string; readonly redirectTo?: string };
  /** The person's decision, for one environment: where the browser goes next, or why not. */
  oauthDecide(
    params: URLSearchParams,
    decision:
      | { readonly approve: true; readonly environment: string }
      | { readonly approve: false },
  ): { readonly redirectTo: string } | { readonly refused: string };
  /** The recording's state and, when ready, its bytes; never counted against the API budget. */
  recording(run: RunRecord): { state: string; bytes: Buffer | null };
}
