import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readDefinition } from "../../src/definition/definition-read.js";
import { validateInputs } from "../../src/definition/validate-inputs.js";
import { VirtualClock } from "../../src/engine/clock.js";
import { type NewRun, RunEngine } from "../../src/engine/run-engine.js";
import type { RunRecord, Scenario } from "../../src/model/types.js";

function setup(vault: Record<string, string> = {}) {
  const clock = new VirtualClock(0);
  const notes: string[] = [];
  const persisted: string[] = [];
  const engine = new RunEngine(clock, {
    persist: (r) => persisted.push(r.status),
    notify: (r, type) => notes.push(`${type}:${r.status}`),
    vault: () => vault,
    synthesize: () => ({ synthesized: true }),
    fileOutputs: (_run, outputs) => outputs,
  });
  const advance = (ms: number) => engine.advance(ms, (t) => clock.set(t));
  const start = (scenario: Scenario): RunRecord => {
    const p: NewRun = {
      environment: "production",
      workspace: "ws",
      workflow_id: "wf_1",
      revision: 1,
      inputs: {},
      metadata: {},
      model: null,
      callback_url: null,
      idempotency_key: null,
      fingerprint: "f",
      attachments: [],
      scenario,
    };
    return engine.create(p);
  };
  return { clock, engine, notes, persisted, advance, start };
}

describe("run engine", () => {
  it("moves queued -> starting -> running -> succeeded on the virtual clock only", () => {
    const { start, advance } = setup();
    const run = start({ steps: [{ wait_ms: 1000 }, { succeed: { outputs: { a: 1 } } }] });
    expect(run.status).toBe("queued");
    expect(run.session_id).toBeNull();
    advance(50);
    expect(run.status).toBe("starting");
    expect(run.session_id).toBeNull();
    advance(50);
    expect(run.status).toBe("running");
    expect(run.session_id).not.toBeNull();
    advance(999);
    expect(run.status).toBe("running");
    advance(1);
    expect(run.status).toBe("succeeded");
    expect(run.outputs).toEqual({ a: 1 });
  });

  it("runs zero-length steps at once", () => {
    const { start } = setup();
    const run = start({ queue_ms: 0, start_ms: 0, steps: [{ event: { type: "x" } }] });
    expect(run.status).toBe("succeeded");
    expect(run.outputs).toEqual({ synthesized: true });
    expect(run.events.map((e) => e.type)).toEqual([
      "run.queued",
      "run.starting",
      "run.running",
      "x",
      "run.succeeded",
    ]);
  });

  it("waits for a human, accepts one answer, acknowledges it, and resumes", () => {
    const { start, advance, engine, notes } = setup();
    const run = start({
      queue_ms: 0,
      start_ms: 0,
      steps: [{ human: { kind: "approval", reason: "r", expires_in_ms: 10_000 } }, { succeed: {} }],
    });
    expect(run.status).toBe("waiting_for_human_live");
    expect(notes).toEqual(["workflow.run.requires_action:waiting_for_human_live"]);
    const cp = run.checkpoints[0]?.checkpoint_id;
    expect(engine.answer(run, "chk_other", "yes").kind).toBe("conflict");
    expect(engine.answer(run, cp, { ok: true, n: 1 }).kind).toBe("accepted");
    expect(engine.answer(run, cp, { n: 1, ok: true }).kind).toBe("idempotent");
    expect(engine.answer(run, cp, "no").kind).toBe("conflict");
    expect(run.status).toBe("waiting_for_human_live");
    advance(100);
    expect(run.status).toBe("succeeded");
    expect(notes.at(-1)).toBe("workflow.run.completed:succeeded");
    expect(engine.answer(run, cp, { ok: true, n: 1 }).kind).toBe("idempotent");
  });

  it("expires an unanswered wait into human_wait_expired and answers 'expired' afterwards", () => {
    const { start, advance, engine } = setup();
    const run = start({
      queue_ms: 0,
      start_ms: 0,
      steps: [{ human: { kind: "k", reason: "r", expires_in_ms: 500 } }],
    });
    const cp = run.checkpoints[0]?.checkpoint_id;
    advance(499);
    expect(run.status).toBe("waiting_for_human_live");
    advance(1);
    expect(run.status).toBe("human_wait_expired");
    expect(run.error?.code).toBe("HUMAN_WAIT_EXPIRED");
    expect(engine.answer(run, cp, "late").kind).toBe("expired");
  });

  it("does not store an answer sent before the checkpoint exists", () => {
    const { start, advance, engine } = setup();
    const run = start({
      steps: [{ wait_ms: 100 }, { human: { kind: "k", reason: "r", expires_in_ms: 500 } }],
    });
    expect(engine.answer(run, undefined, "early").kind).toBe("not_waiting");
    advance(200);
    expect(run.status).toBe("waiting_for_human_live");
    expect(run.checkpoints[0]?.answer).toBeUndefined();
  });

  it("ends with the scenario's failure status and error, outputs null", () => {
    const { start } = setup();
    const run = start({
      queue_ms: 0,
      start_ms: 0,
      steps: [{ fail: { status: "dead_letter", error: { code: "X", message: "m" } } }],
    });
    expect(run.status).toBe("dead_letter");
    expect(run.error).toEqual({ code: "X", message: "m" });
    expect(run.outputs).toBeNull();
  });

  it("redacts vault credentials and fails on unknown ones", () => {
    const { start } = setup({ pw: "hunter2-secret" });
    const ok = start({
      queue_ms: 0,
      start_ms: 0,
      steps: [{ event: { type: "login", password: { vault: "pw" } } }],
    });
    expect(JSON.stringify(ok.events)).not.toContain("hunter2-secret");
    expect(JSON.stringify(ok.events)).toContain("[redacted]");
    const bad = start({
      queue_ms: 0,
      start_ms: 0,
      steps: [{ event: { type: "login", password: { vault: "missing" } } }],
    });
    expect(bad.status).toBe("failed");
    expect(bad.error?.code).toBe("CREDENTIAL_NOT_FOUND");
  });
});

describe("definition read (OpenAPI 3.0)", () => {
  it("reads nullable, oneOf json inputs and $ref'd file references", () => {
    const doc = {
      openapi: "3.0.3",
      info: { title: "t", version: "1" },
      paths: {
        "/automations/wf_A/runs": {
          post: {
            "x-workflow": { id: "wf_A", name: "A", state: "draft", revision: 3 },
            requestBody: {
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    properties: {
                      inputs: {
                        type: "object",
                        additionalProperties: false,
                        properties: {
                          note: { type: "string", nullable: true },
                          data: { oneOf: [{ type: "object" }, { type: "array" }] },
                          doc: { $ref: "#/components/schemas/Doc" },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
      components: { schemas: { Doc: { type: "object", "x-input-type": "file" } } },
    };
    const env = readDefinition(doc, "folder");
    expect(env.name).toBe("folder");
    const wf = env.workflows.get("wf_A");
    expect(wf?.state).toBe("draft");
    expect(wf?.inputs.properties.note.type).toEqual(["string", "null"]);
    expect(wf?.inputs.properties.doc).toEqual({ $ref: "#/components/schemas/FileReference" });
    expect(
      validateInputs(wf?.inputs, { note: null, data: [1], doc: { attachment_id: "a" } }).ok,
    ).toBe(true);
    expect(validateInputs(wf?.inputs, { data: "[1]" }).ok).toBe(false);
  });
});

describe("validateInputs never throws (property)", () => {
  const schema = {
    type: "object",
    additionalProperties: false,
    required: ["a"],
    properties: {
      a: { type: "string" },
      b: { type: "number" },
      c: { type: ["object", "array"] },
      d: { $ref: "#/components/schemas/FileReference" },
      e: {
        type: "array",
        items: {
          type: "object",
          properties: { x: { type: "integer" } },
          additionalProperties: false,
        },
      },
    },
  };
  it("returns ok or per-field details with documented reasons for any JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const r = validateInputs(schema, v);
        for (const d of r.details) {
          expect(["INVALID_TYPE", "REQUIRED", "UNKNOWN_INPUT"]).toContain(d.reason);
          expect(typeof d.field).toBe("string");
        }
        expect(r.ok).toBe(r.details.length === 0);
      }),
      { numRuns: 500 },
    );
  });
});

describe("guarded timers", () => {
  it("a run whose step throws ends with error; the clock advance and other runs go on", () => {
    const clock = new VirtualClock(0);
    const engine = new RunEngine(clock, {
      persist: () => {},
      // What the server's notify does: the envelope names expires_at as an ISO date.
      notify: (r) => {
        for (const c of r.checkpoints) new Date(c.expires_at).toISOString();
      },
      vault: () => ({}),
      synthesize: () => ({}),
      fileOutputs: (_run, outputs) => outputs,
    });
    const base: Omit<NewRun, "scenario"> = {
      environment: "production",
      workspace: "ws",
      workflow_id: "wf_1",
      revision: 1,
      inputs: {},
      metadata: {},
      model: null,
      callback_url: null,
      idempotency_key: null,
      fingerprint: "f",
      attachments: [],
    };
    // Bypasses parseScenario's bounds, as a journal written by an older version could.
    const bad = engine.create({
      ...base,
      scenario: { steps: [{ human: { kind: "approval", reason: "r", expires_in_ms: 1e300 } }] },
    });
    const healthy = engine.create({
      ...base,
      scenario: { steps: [{ wait_ms: 10 }, { succeed: {} }] },
    });
    expect(() => engine.advance(1000, (t) => clock.set(t))).not.toThrow();
    expect(bad.status).toBe("error");
    expect(bad.error?.code).toBe("EMULATOR_ERROR");
    expect(healthy.status).toBe("succeeded");
  });
});
