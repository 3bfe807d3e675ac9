import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  checkAttachments,
  checkTopLevel,
  decodedLength,
  idempotencyKeyOf,
  isStrictBase64,
} from "../../src/api/launch-body.js";
import { checkCallbackUrl } from "../../src/engine/callback-url.js";
import { shouldRetry, signWebhook } from "../../src/engine/callbacks.js";
import {
  canonicalJson,
  IdempotencyStore,
  requestFingerprint,
} from "../../src/engine/idempotency.js";
import { RecordingRateLimiter } from "../../src/engine/recording.js";
import { parseScenario } from "../../src/engine/scenario.js";
import { synthesizeOutputs } from "../../src/engine/synthesize-outputs.js";
import { redactVault } from "../../src/engine/vault.js";

describe("idempotency fingerprint", () => {
  it("is independent of key order and of where the key was sent", () => {
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] })).toBe('{"a":[{"c":2,"d":1}],"b":1}');
    const a = requestFingerprint({ inputs: { x: 1, y: 2 }, metadata: {}, idempotency_key: "k" });
    const b = requestFingerprint({ metadata: {}, inputs: { y: 2, x: 1 } });
    expect(a).toBe(b);
    expect(requestFingerprint({ inputs: { x: 2 } })).not.toBe(
      requestFingerprint({ inputs: { x: 1 } }),
    );
  });
  it("replays the same request and flags a changed one", () => {
    const s = new IdempotencyStore();
    expect(s.check("k", "f1").kind).toBe("new");
    s.remember("k", "run_1", "f1");
    expect(s.check("k", "f1")).toEqual({ kind: "replay", runId: "run_1" });
    expect(s.check("k", "f2")).toEqual({ kind: "conflict", runId: "run_1" });
  });
  it("prefers the body field over the header and caps length at 200", () => {
    expect(idempotencyKeyOf({ idempotency_key: "body" }, "header")).toEqual({ key: "body" });
    expect(idempotencyKeyOf({}, "header")).toEqual({ key: "header" });
    expect(idempotencyKeyOf({}, "x".repeat(201))).toMatchObject({
      code: "INVALID_IDEMPOTENCY_KEY",
    });
  });
});

describe("callback URL check (public HTTPS only)", () => {
  it.each([
    "http://example.com/hook",
    "https://localhost/hook",
    "https://127.0.0.1/hook",
    "https://10.1.2.3/hook",
    "https://192.168.1.1/",
    "https://172.16.0.1/",
    "https://169.254.169.254/latest",
    "https://[::1]/",
    "https://[fd00::1]/",
    "https://2130706433/",
    "https://intranet/",
    "not a url",
  ])("rejects %s", (u) => {
    expect(checkCallbackUrl(u, false).ok).toBe(false);
  });
  it("accepts a public HTTPS receiver, and local ones only when allowed", () => {
    expect(checkCallbackUrl("https://hooks.example.com/wfr", false).ok).toBe(true);
    expect(checkCallbackUrl("http://127.0.0.1:9999/hook", true).ok).toBe(true);
  });
});

describe("Standard Webhooks signing", () => {
  it("signs id.timestamp.body with the base64 secret", () => {
    const key = Buffer.from("test-secret-bytes");
    const secret = `whsec_${key.toString("base64")}`;
    const expected = createHmac("sha256", key).update("evt_1.1700000000.{}").digest("base64");
    expect(signWebhook(secret, "evt_1", 1700000000, "{}")).toBe(`v1,${expected}`);
  });
  it("retries only network errors, 429 and 5xx", () => {
    expect([null, 429, 500, 503].every(shouldRetry)).toBe(true);
    expect([200, 204, 400, 404, 410].some(shouldRetry)).toBe(false);
  });
});

describe("launch body checks", () => {
  it("rejects browser/proxy overrides and unknown keys", () => {
    expect(checkTopLevel({ inputs: {}, proxy: "x" })?.code).toBe("RUN_OVERRIDE_NOT_ALLOWED");
    expect(checkTopLevel({ inputs: {}, browser_profile: "x" })?.code).toBe(
      "RUN_OVERRIDE_NOT_ALLOWED",
    );
    expect(checkTopLevel({ inputs: {}, foo: 1 })?.code).toBe("INVALID_BODY");
    expect(checkTopLevel({ inputs: {} })).toBeNull();
  });
  it("validates attachments: base64, duplicates, size", () => {
    const att = (id: string, base64: string) => ({
      id,
      filename: "f",
      mimeType: "text/plain",
      base64,
    });
    expect(isStrictBase64("SGVsbG8=")).toBe(true);
    expect(isStrictBase64("SGVsbG8")).toBe(false);
    expect(isStrictBase64("SGV$bG8=")).toBe(false);
    expect(decodedLength("SGVsbG8=")).toBe(5);
    expect(checkAttachments({ input_context: { attachments: [att("a", "%%%")] } })).toMatchObject({
      code: "INVALID_ATTACHMENTS",
    });
    expect(
      checkAttachments({ input_context: { attachments: [att("a", "AAAA"), att("a", "AAAA")] } }),
    ).toMatchObject({
      code: "INVALID_ATTACHMENTS",
    });
    const big = "A".repeat(Math.ceil(26_214_401 / 3) * 4);
    expect(checkAttachments({ input_context: { attachments: [att("big", big)] } })).toMatchObject({
      status: 413,
      code: "ATTACHMENT_TOO_LARGE",
      attachment_id: "big",
    });
    const okA = checkAttachments({ input_context: { attachments: [att("a", "AAAA")] } });
    expect("ids" in okA && okA.ids.has("a")).toBe(true);
  });
});

describe("output synthesis", () => {
  const schema = {
    type: "object",
    properties: {
      invoice_id: { type: "string" },
      total: { type: "number" },
      count: { type: "integer" },
      ok: { type: "boolean" },
      status: { type: "string", enum: ["booked", "rejected"] },
      receipt: { $ref: "#/components/schemas/FileOutput" },
      lines: {
        type: "array",
        items: { type: "object", properties: { account: { type: "string" } } },
      },
    },
  };
  const ctx = {
    file: (field: string) => ({
      download_url: `http://x/_files/${field}`,
      filename: `${field}.pdf`,
      mime_type: "application/pdf",
      size_bytes: 1,
      expires_at: null,
    }),
  };
  it("is deterministic per run id and follows the schema", () => {
    const a = synthesizeOutputs(schema, "run_1", ctx);
    expect(synthesizeOutputs(schema, "run_1", ctx)).toEqual(a);
    expect(a.invoice_id).toMatch(/^invoice_id-\d+$/);
    expect(typeof a.total).toBe("number");
    expect(Number.isInteger(a.count)).toBe(true);
    expect(typeof a.ok).toBe("boolean");
    expect(a.status).toBe("booked");
    expect(a.receipt).toMatchObject({ download_url: "http://x/_files/receipt" });
    expect(Array.isArray(a.lines)).toBe(true);
  });
});

describe("synthesized outputs of a schema that contains itself", () => {
  it("follow its local $ref into $defs and end", () => {
    const tree = {
      type: "object",
      required: ["value"],
      properties: {
        value: { type: "integer" },
        children: { type: "array", items: { $ref: "#/$defs/Tree" } },
      },
    };
    const schema = {
      type: "object",
      properties: { tree: { $ref: "#/$defs/Tree" } },
      $defs: { Tree: tree },
    };
    const out = synthesizeOutputs(schema, "run_1", { file: () => ({}) as never });
    const root = out.tree as { value: unknown; children: unknown[] };
    expect(Number.isInteger(root.value)).toBe(true);
    expect(Array.isArray(root.children)).toBe(true);
  });
});

describe("vault redaction", () => {
  it("replaces references and literal secret values, and reports missing names", () => {
    const r = redactVault(
      { password: { vault: "pw" }, note: "pw is hunter22!", other: { vault: "nope" } },
      { pw: "hunter22!" },
    );
    expect(r.value).toEqual({
      password: "[redacted]",
      note: "pw is [redacted]",
      other: "[redacted]",
    });
    expect(r.missing).toEqual(["nope"]);
    expect(JSON.stringify(r.value)).not.toContain("hunter22!");
  });
});

describe("recording rate limit", () => {
  it("allows 10 attempts per workspace per rolling hour", () => {
    const l = new RecordingRateLimiter();
    // What the recording route does: ask, and count the attempt when it is allowed.
    const attempt = (ws: string, at: number) => {
      const wait = l.wait(ws, at);
      if (wait === null) l.restore(ws, at);
      return wait;
    };
    for (let i = 0; i < 10; i++) expect(attempt("ws", 1000 + i)).toBeNull();
    expect(attempt("ws", 2000)).toBeGreaterThan(0);
    expect(attempt("other", 2000)).toBeNull();
    expect(attempt("ws", 1000 + 3_600_000 + 1)).toBeNull();
  });
});

describe("scenario parsing", () => {
  it("accepts every step kind and rejects unknown ones", () => {
    const s = parseScenario({
      steps: [
        { wait_ms: 10 },
        { event: { type: "x", a: 1 } },
        { human: { kind: "approval", reason: "r", expires_in_ms: 5 } },
        { succeed: { outputs: { a: 1 } } },
        { fail: { status: "dead_letter", error: { message: "m" } } },
      ],
      recording: { mode: "processing", processing_ms: 10 },
      session: "computer",
    });
    expect(s.steps).toHaveLength(5);
    expect(() => parseScenario({ steps: [{ sleep: 1 }] })).toThrow(/unknown step/);
    expect(() => parseScenario({ steps: [{ fail: { status: "succeeded" } }] })).toThrow();
  });
});
