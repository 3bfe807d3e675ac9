// Black-box helpers for the conformance suite: everything goes over plain HTTP with `fetch`.
import { startEmulator } from "../../src/index.js";

type StartOptions = NonNullable<Parameters<typeof startEmulator>[0]>;

// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected dynamically
export type Json = any;

export interface Res {
  status: number;
  headers: Headers;
  text: string;
  body: Json;
}

export const BOTH_SCOPES = ["workflows:run", "runs:read"];

/** Statuses this project names (docs/definition-format.md). */
export const TERMINAL = [
  "succeeded",
  "failed",
  "error",
  "cancelled",
  "terminated",
  "dead_letter",
  "human_wait_expired",
];
export const KNOWN_STATUSES = [
  "queued",
  "starting",
  "running",
  "waiting_for_human_live",
  ...TERMINAL,
];

/** A valid launch body for production wf_P7Qd2Lx9 "Invoice intake". */
export const INVOICE = "wf_P7Qd2Lx9";
export const PORTAL = "wf_P3mKs81a";
export const REPLY = "wf_P0ZrTt55";
export const CRM = "wf_P9hHc2Vb";
export const DRAFT = "wf_P1dRaft0";
export const STAGING_INVOICE = "wf_S4aa81Qe";
export const STAGING_DISABLED = "wf_S6oFF000";

export const PDF_B64 = Buffer.from("%PDF-1.4\n% test invoice\n").toString("base64");

export function invoiceBody(extra: Record<string, unknown> = {}): Record<string, Json> {
  return {
    inputs: {
      vendor_name: "Acme Paper Co",
      amount: 1250.5,
      invoice_pdf: { attachment_id: "att_1" },
    },
    input_context: {
      attachments: [
        { id: "att_1", filename: "invoice.pdf", mimeType: "application/pdf", base64: PDF_B64 },
      ],
    },
    ...extra,
  };
}

export function portalBody(extra: Record<string, unknown> = {}): Record<string, Json> {
  return {
    inputs: { portal_url: "https://portal.example.com/login", account_label: "main" },
    ...extra,
  };
}

export async function http(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Res> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    if (typeof body === "string" || body instanceof Uint8Array) {
      init.body = body as BodyInit;
    } else {
      init.body = JSON.stringify(body);
    }
    const h = init.headers as Record<string, string>;
    if (!Object.keys(h).some((k) => k.toLowerCase() === "content-type")) {
      h["content-type"] = "application/json";
    }
  }
  const res = await fetch(url, init);
  const buf = Buffer.from(await res.arrayBuffer());
  const text = buf.toString("utf8");
  let parsed: Json;
  try {
    parsed = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Client {
  constructor(
    readonly harness: Harness,
    readonly token: string,
    readonly env: string,
  ) {}

  get base(): string {
    return this.harness.base(this.env);
  }

  api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    return http(method, this.base + path, body, {
      authorization: `Bearer ${this.token}`,
      ...headers,
    });
  }

  launch(workflowId: string, body: unknown, headers: Record<string, string> = {}) {
    return this.api("POST", `/automations/${workflowId}/runs`, body, headers);
  }

  /** Launch and require 202; returns the run envelope. */
  async start(workflowId: string, body: unknown, headers: Record<string, string> = {}) {
    const r = await this.launch(workflowId, body, headers);
    if (r.status !== 202) {
      throw new Error(`launch of ${workflowId} expected 202, got ${r.status}: ${r.text}`);
    }
    return r.body as Json;
  }

  run(runId: string) {
    return this.api("GET", `/runs/${runId}`);
  }

  /**
   * Poll the run (advancing the virtual clock by `stepMs` between polls) until `pred`
   * holds. Fails after `tries` rounds.
   */
  async until(
    runId: string,
    pred: (run: Json) => boolean,
    opts: { stepMs?: number; tries?: number } = {},
  ): Promise<Json> {
    const stepMs = opts.stepMs ?? 250;
    const tries = opts.tries ?? 200;
    let last: Res | undefined;
    for (let i = 0; i < tries; i++) {
      last = await this.run(runId);
      if (last.status === 200 && pred(last.body)) return last.body;
      if (stepMs > 0 && this.harness.virtual) await this.harness.advance(stepMs);
      await sleep(5);
    }
    throw new Error(`run ${runId} never reached the expected state; last: ${last?.text}`);
  }

  untilTerminal(runId: string, opts: { stepMs?: number; tries?: number } = {}) {
    return this.until(runId, (r) => TERMINAL.includes(r.status), opts);
  }

  untilWaiting(runId: string, opts: { stepMs?: number; tries?: number } = {}) {
    return this.until(runId, (r) => r.status === "waiting_for_human_live", opts);
  }
}

export class Harness {
  private constructor(
    readonly url: string,
    readonly virtual: boolean,
    private readonly closer: () => Promise<void>,
  ) {}

  static async start(opts: Partial<StartOptions> = {}): Promise<Harness> {
    const o = { port: 0, host: "127.0.0.1", clock: "virtual", ...opts } as StartOptions;
    const emu = await startEmulator(o);
    const url = String(emu.url).replace(/\/$/, "");
    return new Harness(url, (o as { clock?: string }).clock === "virtual", () =>
      Promise.resolve(emu.close()),
    );
  }

  base(env = "production"): string {
    return `${this.url}/${env}/api/v1`;
  }

  close(): Promise<void> {
    return this.closer();
  }

  admin(method: string, path: string, body?: unknown): Promise<Res> {
    return http(method, `${this.url}/_emulator${path}`, body);
  }

  async key(
    env = "production",
    scopes: string[] = BOTH_SCOPES,
    workspace?: string,
  ): Promise<string> {
    const r = await this.admin("POST", "/keys", {
      environment: env,
      scopes,
      ...(workspace ? { workspace } : {}),
    });
    if (r.status !== 201 || typeof r.body?.token !== "string") {
      throw new Error(`POST /_emulator/keys expected 201 with token, got ${r.status}: ${r.text}`);
    }
    return r.body.token;
  }

  async client(
    env = "production",
    scopes: string[] = BOTH_SCOPES,
    workspace?: string,
  ): Promise<Client> {
    return new Client(this, await this.key(env, scopes, workspace), env);
  }

  async scenario(env: string, workflowId: string, scenario: Json): Promise<void> {
    const r = await this.admin(
      "PUT",
      `/environments/${env}/workflows/${workflowId}/scenario`,
      scenario,
    );
    if (r.status >= 300) throw new Error(`scenario PUT failed ${r.status}: ${r.text}`);
  }

  async state(env: string, workflowId: string, state: string): Promise<void> {
    const r = await this.admin("PUT", `/environments/${env}/workflows/${workflowId}/state`, {
      state,
    });
    if (r.status >= 300) throw new Error(`state PUT failed ${r.status}: ${r.text}`);
  }

  async advance(ms: number): Promise<void> {
    const r = await this.admin("POST", "/clock/advance", { ms });
    if (r.status >= 300) throw new Error(`clock advance failed ${r.status}: ${r.text}`);
  }

  async runs(env = "production"): Promise<Json[]> {
    const r = await this.admin("GET", `/environments/${env}/runs`);
    if (r.status !== 200 || !Array.isArray(r.body?.runs)) {
      throw new Error(`admin runs listing failed ${r.status}: ${r.text}`);
    }
    return r.body.runs;
  }

  async callbacks(env = "production"): Promise<Json[]> {
    const r = await this.admin("GET", `/environments/${env}/callbacks`);
    if (r.status !== 200 || !Array.isArray(r.body?.deliveries)) {
      throw new Error(`admin callbacks listing failed ${r.status}: ${r.text}`);
    }
    return r.body.deliveries;
  }
}

/** The run id of an admin run-history record, whatever its wrapper. */
export function runIdOf(rec: Json): string | undefined {
  return rec?.run_id ?? rec?.id ?? rec?.run?.run_id;
}

/** Error body shape: `{error, code, details?, attachment_id?}`. */
export function expectErrorShape(r: Res): void {
  if (typeof r.body !== "object" || r.body === null) {
    throw new Error(`expected a JSON error body, got ${r.status}: ${r.text.slice(0, 200)}`);
  }
  if (typeof r.body.error !== "string" || typeof r.body.code !== "string") {
    throw new Error(`error body lacks error/code strings: ${r.text.slice(0, 200)}`);
  }
}

/** Whether a details[].field names the input `name` (bare or inputs-prefixed). */
function fieldNames(field: unknown, name: string): boolean {
  if (typeof field !== "string") return false;
  return [name, `inputs.${name}`, `/inputs/${name}`, `inputs/${name}`, `inputs[${name}]`].includes(
    field,
  );
}

export function detailFor(r: Res, name: string): Json | undefined {
  const details: Json[] = Array.isArray(r.body?.details) ? r.body.details : [];
  return details.find((d) => fieldNames(d?.field, name));
}

/** Collect event records from an events snapshot, whatever its wrapper. */
export function eventsOf(body: Json): Json[] {
  if (Array.isArray(body)) return body;
  if (Array.isArray(body?.events)) return body.events;
  if (Array.isArray(body?.data)) return body.data;
  return [];
}

/** Find the first value of a property named `key` anywhere in `value`. */
export function findKey(value: Json, key: string, depth = 0): Json | undefined {
  if (depth > 8 || value === null || typeof value !== "object") return undefined;
  if (!Array.isArray(value) && Object.hasOwn(value, key)) return value[key];
  for (const v of Object.values(value)) {
    const found = findKey(v, key, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}
