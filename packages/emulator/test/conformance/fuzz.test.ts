import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Client,
  Harness,
  INVOICE,
  invoiceBody,
  type Json,
  type Res,
  runIdOf,
} from "./support.js";

/** Every code a launch may answer with (spec table plus the contract's own codes). */
const DOCUMENTED: Record<number, string[]> = {
  400: [
    "INVALID_INPUTS",
    "INVALID_METADATA",
    "INVALID_ATTACHMENTS",
    "INVALID_JSON",
    "INVALID_BODY",
    "INVALID_MODEL",
    "INVALID_CALLBACK_URL",
    "RUN_OVERRIDE_NOT_ALLOWED",
    "INVALID_IDEMPOTENCY_KEY",
  ],
  409: ["IDEMPOTENCY_CONFLICT"],
  413: ["ATTACHMENT_TOO_LARGE", "BODY_TOO_LARGE"],
};

const SEED = 0x5eed_2026;
const COUNT = 2000;

let h: Harness;
let c: Client;

beforeAll(async () => {
  h = await Harness.start();
  c = await h.client();
  await h.scenario("production", INVOICE, { steps: [{ wait_ms: 600_000 }, { succeed: {} }] });
});
afterAll(() => h?.close());

const PROTO_KEYS = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty"];

const anyValue: fc.Arbitrary<Json> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(null, true, false, 0, -1, 1e308, -0, "", "5", "true", "[]", "{}"),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.integer({ min: 1_000, max: 300_000 }).map((n) => "x".repeat(n)),
  fc.integer({ min: 50, max: 3_000 }).map((d) => nest(d)),
  fc.constantFrom(...PROTO_KEYS).map((k) => ({ [k]: { polluted: true } })),
);

function nest(depth: number): Json {
  let v: Json = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

const badBase64 = fc.oneof(
  fc.constantFrom("!!!", "a", "ab=", "====", "QUJD\n\n*", "%%%%", "😀😀", "YQ==YQ=="),
  fc.string({ maxLength: 30 }).map((s) => `${s}$`),
);

type Mutation = (body: Json, v: Json) => void;
const attachment = (b: Json) => b.input_context.attachments[0];
const mutations: Mutation[] = [
  (b, v) => {
    b.inputs = v;
  },
  (b, v) => {
    b.inputs.vendor_name = v;
  },
  (b, v) => {
    b.inputs.amount = v;
  },
  (b, v) => {
    b.inputs.paid = v;
  },
  (b, v) => {
    b.inputs.line_items = v;
  },
  (b, v) => {
    b.inputs.invoice_pdf = v;
  },
  (b, v) => {
    b.inputs.supporting_docs = v;
  },
  (b, v) => {
    b.metadata = Array.isArray(v) || typeof v !== "object" ? v : [v];
  },
  (b, v) => {
    b.input_context = v;
  },
  (b, v) => {
    b.input_context.attachments = v;
  },
  (b, v) => {
    attachment(b).base64 = v;
  },
  (b, v) => {
    attachment(b).id = v;
  },
  (b, v) => {
    b.model = v;
  },
  (b, v) => {
    b.callback_url = v;
  },
  (b, v) => {
    b.idempotency_key = typeof v === "string" ? v.padEnd(201, "k") : v;
  },
  (b, v) => {
    b[`unknown_${typeof v}`] = v;
  },
  (b, v) => {
    delete b.inputs.amount;
    b.inputs.extra = v;
  },
];

interface Case {
  text: string;
  note: string;
}

const invalidCase: fc.Arbitrary<Case> = fc.oneof(
  // A valid body with one field broken.
  fc.tuple(fc.nat({ max: mutations.length - 1 }), anyValue).map(([i, v]) => {
    const body = invoiceBody();
    (mutations[i] as Mutation)(body, v);
    // Guarantee invalidity: also add an undeclared input unless inputs were replaced.
    if (body.inputs && typeof body.inputs === "object" && !Array.isArray(body.inputs)) {
      body.inputs.zz_undeclared = 1;
    }
    return { text: JSON.stringify(body), note: `mutation ${i}` };
  }),
  // Bad base64 in an otherwise valid body.
  badBase64.map((b64) => {
    const body = invoiceBody();
    attachment(body).base64 = b64;
    return { text: JSON.stringify(body), note: "bad base64" };
  }),
  // Prototype keys injected as raw JSON (JSON.stringify would drop __proto__).
  fc
    .tuple(
      fc.constantFrom(...PROTO_KEYS),
      fc.constantFrom('"inputs":{', '"input_context":{', "{"),
      fc.jsonValue({ maxDepth: 2 }),
    )
    .map(([key, where, v]) => {
      const base = JSON.stringify(invoiceBody({ metadata: { ok: 1 } }));
      let text = base.replace(where, `${where}"${key}":${JSON.stringify(v) ?? "null"},`);
      if (where === '"input_context":{' || text === base) {
        text = text.replace('"inputs":{', '"inputs":{"__proto__":{"amount":"1"},');
      }
      return { text, note: `proto ${key} in ${where}` };
    }),
  // Random JSON documents.
  fc.jsonValue({ maxDepth: 4 }).map((v) => ({ text: JSON.stringify(v) ?? "null", note: "json" })),
  // Not JSON at all.
  fc.string({ unit: "binary", maxLength: 200 }).map((s) => ({ text: `{${s}`, note: "garbage" })),
  // Deep nesting beyond any sane depth.
  fc.integer({ min: 5_000, max: 20_000 }).map((d) => ({
    text: `{"inputs":${"[".repeat(d)}${"]".repeat(d)},"metadata":${'{"a":'.repeat(d)}1${"}".repeat(d)}}`,
    note: `depth ${d}`,
  })),
);

/** Why a response breaks the rules, or undefined when it is fine. */
function problem(r: Res, kase: Case, accepted: Set<string>): string | undefined {
  const where = `${kase.note}: ${kase.text.slice(0, 120)} -> ${r.status} ${r.text.slice(0, 160)}`;
  if (r.status >= 500) return `5xx: ${where}`;
  if (r.status === 202) {
    accepted.add(r.body?.run_id);
    return `accepted an invalid body: ${where}`;
  }
  const codes = DOCUMENTED[r.status];
  if (!codes) return `undocumented status: ${where}`;
  if (!codes.includes(r.body?.code)) return `undocumented code: ${where}`;
  if (typeof r.body?.error !== "string") return `no error message: ${where}`;
  if (r.body?.run_id !== undefined) return `run_id in a rejection: ${where}`;
  return undefined;
}

describe("Fuzz: malformed launch bodies", () => {
  it("never a 5xx, always a documented code, and no run created for a rejected request", {
    // Generous: 2,000 launches take seconds on an idle machine and over a minute on a busy one.
    timeout: 600_000,
  }, async () => {
    const cases = fc.sample(invalidCase, { seed: SEED, numRuns: COUNT });
    expect(cases.length).toBe(COUNT);
    const before = new Set((await h.runs()).map(runIdOf));
    const accepted = new Set<string>();
    const problems: string[] = [];
    const CONCURRENCY = 16;
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const kase = cases[next++] as Case;
        const r = await c.launch(INVOICE, kase.text);
        const p = problem(r, kase, accepted);
        if (p) problems.push(p);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    // Every case above is invalid, so nothing may be accepted.
    const kinds = new Map<string, number>();
    const examples: string[] = [];
    for (const p of problems) {
      const kind = `${p.replace(/:.*$/s, "")}:${p.split(": ")[1]?.split(" ")[0] ?? ""}`;
      if (!kinds.has(kind)) examples.push(p);
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    expect(
      problems.length,
      `${problems.length} of ${COUNT} broke the rules ${JSON.stringify(Object.fromEntries(kinds))}, e.g.\n${examples.slice(0, 10).join("\n")}`,
    ).toBe(0);
    expect([...accepted]).toEqual([]);
    const after = (await h.runs()).map(runIdOf).filter((id) => !before.has(id));
    expect(after).toEqual([]);
    // The server still works and nothing leaked onto Object.prototype.
    expect((await c.launch(INVOICE, invoiceBody())).status).toBe(202);
    expect(({} as Json).polluted).toBeUndefined();
  });
});

describe("Fuzz: malformed human-input bodies", () => {
  it("never a 5xx and never an answer from a malformed body", { timeout: 30_000 }, async () => {
    await h.scenario("production", "wf_P3mKs81a", {
      steps: [
        { human: { kind: "approval", reason: "fuzz", expires_in_ms: 86_400_000 } },
        { succeed: {} },
      ],
    });
    const run = await c.start("wf_P3mKs81a", {
      inputs: { portal_url: "https://p.example/login", account_label: "fuzz" },
    });
    const waiting = await c.untilWaiting(run.run_id, { stepMs: 100 });
    const texts = fc.sample(
      fc.oneof(
        fc.string({ unit: "binary", maxLength: 100 }).map((s) => `{${s}`),
        anyValue.map((v) => JSON.stringify(v) ?? "null"),
        fc
          .constantFrom(...PROTO_KEYS)
          .map((k) => `{"${k}":{"checkpoint_id":"${waiting.human_action.checkpoint_id}"}}`),
        fc
          .integer({ min: 5_000, max: 20_000 })
          .map((d) => `{"checkpoint_id":1,"response":${"[".repeat(d)}${"]".repeat(d)}}`),
      ),
      { seed: SEED + 1, numRuns: 300 },
    );
    const problems: string[] = [];
    for (const text of texts) {
      const r = await c.api("POST", `/runs/${run.run_id}/human-input`, text);
      if (r.status >= 500 || r.status === 202) {
        problems.push(`${text.slice(0, 80)} -> ${r.status} ${r.text.slice(0, 120)}`);
      } else if (typeof r.body?.code !== "string") {
        problems.push(`no error code: ${text.slice(0, 80)} -> ${r.status}`);
      }
    }
    expect(problems.length, problems.slice(0, 5).join("\n")).toBe(0);
    const still = (await c.run(run.run_id)).body;
    expect(still.status).toBe("waiting_for_human_live");
    expect(still.human_action.response_accepted).toBe(false);
  });
});
