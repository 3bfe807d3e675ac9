// The generated quick check (`inputsPlainlyValid`) answers "valid" only where the zod schema
// does: for thousands of values per workflow, a quick "valid" is always a schema success, and
// `validateInputs` gives exactly the schema's issues. It also answers for the launches it is
// for (plain data of every covered kind), and leaves the odd values to the schema.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { file } from "@wfr/runtime";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { capturedOutput, cleanupTempDirs, definition, projectDir, writeJson } from "../helpers.js";

afterAll(cleanupTempDirs);

interface GeneratedSchema {
  inputsPlainlyValid(inputs: unknown): boolean;
  validateInputs(inputs: unknown): { field: string; reason: string; message: string }[];
  inputSchema(): { safeParse(value: unknown): { success: boolean } };
  outputsPlainlyValid(outputs: unknown): boolean;
  checkOutputs(outputs: unknown): { field: string; message: string }[];
  outputSchema(): { safeParse(value: unknown): { success: boolean } };
}

const PDF = new Uint8Array([37, 80, 68, 70]);
const pdf = () => file(PDF, { filename: "a.pdf", mimeType: "application/pdf" });

/** One workflow with every kind the quick check covers, nested, nullable, optional and ruled. */
const COVERED = {
  type: "object",
  additionalProperties: false,
  required: ["name", "count", "doc"],
  properties: {
    name: { type: "string", minLength: 1, maxLength: 5 },
    count: { type: "integer", minimum: 0, multipleOf: 2 },
    ratio: { type: ["number", "null"], maximum: 1 },
    flag: { type: "boolean" },
    tier: { type: "string", enum: ["gold", "silver"] },
    code: { type: "string", pattern: "^[A-Z]{2}$" },
    when: { type: "string", format: "date" },
    payload: { type: "object" },
    lines: { type: "array", items: {}, maxItems: 3 },
    doc: { $ref: "#/components/schemas/FileReference" },
    extras: { type: "array", items: { $ref: "#/components/schemas/FileReference" } },
    tags: { type: "array", items: { type: "string", maxLength: 2 }, uniqueItems: true },
    address: {
      type: "object",
      additionalProperties: false,
      required: ["city"],
      properties: { city: { type: "string" }, zip: { type: ["string", "null"] } },
      maxProperties: 2,
    },
    open: { type: "object", properties: { a: { type: "number" } } },
  },
};

/** Outputs of every kind the outputs' quick check covers: loose objects, files, no rules checked. */
const COVERED_OUTPUTS = {
  type: "object",
  required: ["total", "status"],
  properties: {
    total: { type: "number", minimum: 0 },
    count: { type: "integer" },
    status: { type: "string", enum: ["booked", "needs_review"] },
    note: { type: ["string", "null"], maxLength: 2 },
    receipt: { $ref: "#/components/schemas/FileOutput" },
    attachments: { type: "array", items: { $ref: "#/components/schemas/FileOutput" } },
    lines: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["account"],
        properties: { account: { type: "string" }, debit: { type: "number" } },
      },
    },
    raw: { type: "object" },
    flag: { type: "boolean" },
  },
};

/** Kinds the quick check leaves to the schema: a union, a map, a `__proto__` field. */
const UNCOVERED = {
  type: "object",
  additionalProperties: false,
  properties: {
    either: { oneOf: [{ type: "string" }, { type: "number" }] },
    map: { type: "object", additionalProperties: { type: "integer" } },
  },
};

let covered: GeneratedSchema;
let uncovered: GeneratedSchema;

beforeAll(async () => {
  const dir = projectDir();
  const schemas = join(dir, "schemas");
  writeJson(
    join(schemas, "quick", "openapi.json"),
    definition(
      [
        { id: "wf_covered", name: "Covered", inputs: COVERED, outputs: COVERED_OUTPUTS },
        { id: "wf_uncovered", name: "Uncovered", inputs: UNCOVERED },
      ],
      { environment: "quick" },
    ),
  );
  const { io, streams } = capturedOutput();
  expect(
    await main(["generate", "--schemas", schemas, "--out", join(dir, "gen")], streams),
    io.err,
  ).toBe(0);
  const load = async (name: string) =>
    (await import(
      pathToFileURL(join(dir, "gen", "quick", `${name}.schema.js`)).href
    )) as GeneratedSchema;
  covered = await load("covered");
  uncovered = await load("uncovered");
}, 60_000);

const validCovered = () => ({
  name: "abc",
  count: 4,
  ratio: null,
  flag: true,
  tier: "gold",
  code: "AB",
  when: "2026-02-28",
  payload: { a: [1, "x", null, { b: false }] },
  lines: [{ sku: "s" }, 2],
  doc: pdf(),
  extras: [pdf(), pdf()],
  tags: ["a", "b"],
  address: { city: "Bonn", zip: null },
  open: { a: 1, anything: new Date(0) },
});

/**
 * Candidates that are mostly a valid value with a few keys changed or left out (so both
 * verdicts come up): `valid()` with up to three of `keys` set to a `value` or dropped.
 */
function changedFrom(
  valid: () => Record<string, unknown>,
  keys: readonly string[],
  value: fc.Arbitrary<unknown>,
): fc.Arbitrary<Record<string, unknown>> {
  const DROP = Symbol("drop");
  const changes = fc.dictionary(
    fc.constantFrom(...keys),
    fc.oneof({ weight: 1, arbitrary: fc.constant(DROP) }, { weight: 3, arbitrary: value }),
    { maxKeys: 3 },
  );
  return changes.map((change) => {
    const candidate = valid();
    for (const [key, v] of Object.entries(change)) {
      if (v === DROP) delete candidate[key];
      else candidate[key] = v;
    }
    return candidate;
  });
}

/**
 * Over 3,000 candidates: a quick "valid" is always a schema success, and the validator (quick
 * check, then schema) agrees with the schema on every one. Not vacuous: many take the quick way.
 */
function quickCheckHoldsToSchema(
  candidates: fc.Arbitrary<unknown>,
  check: {
    quick(value: unknown): boolean;
    schemaAccepts(value: unknown): boolean;
    validatorAccepts(value: unknown): boolean;
  },
): void {
  let quick = 0;
  fc.assert(
    fc.property(candidates, (candidate) => {
      const accepted = check.schemaAccepts(candidate);
      if (check.quick(candidate)) {
        quick++;
        expect(accepted, JSON.stringify(candidate)).toBe(true);
      }
      expect(check.validatorAccepts(candidate)).toBe(accepted);
    }),
    { numRuns: 3000, seed: 2026_11_26 },
  );
  expect(quick).toBeGreaterThan(50);
}

/** The schema's own verdict, as validateInputs gave it before the quick check. */
function schemaAccepts(schema: GeneratedSchema, inputs: unknown): boolean {
  return schema.inputSchema().safeParse(inputs).success;
}

describe("inputsPlainlyValid", () => {
  it("answers for plain valid inputs of every covered kind, minimal and full", () => {
    for (const inputs of [validCovered(), { name: "a", count: 0, doc: pdf() }]) {
      expect(covered.validateInputs(inputs)).toEqual([]);
      expect(schemaAccepts(covered, inputs)).toBe(true);
      expect(covered.inputsPlainlyValid(inputs)).toBe(true);
      expect(covered.validateInputs(inputs)).toEqual([]);
    }
    // A prototype-less object is plain data too (ownProperties keeps its keys the same).
    const bare = Object.assign(Object.create(null), { name: "a", count: 2, doc: pdf() });
    expect(covered.inputsPlainlyValid(bare)).toBe(true);
  });

  it("leaves to the schema what it cannot vouch for, and the issues are the schema's", () => {
    const inherited = Object.assign(Object.create({ name: "abc" }), { count: 2, doc: pdf() });
    const withProto = JSON.parse('{"name":"a","count":2,"__proto__":1}');
    withProto.doc = pdf();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const deep = JSON.parse(`${"[".repeat(100)}${"]".repeat(100)}`);
    const cases: [string, unknown][] = [
      ["a field inherited from a prototype", inherited],
      ["a __proto__ key", withProto],
      // biome-ignore lint/suspicious/noSparseArray: a hole is what is tested
      ["a hole in a file list", { ...validCovered(), extras: [pdf(), , pdf()] }],
      ["an infinite number", { ...validCovered(), count: Number.POSITIVE_INFINITY }],
      ["a class instance as the JSON payload", { ...validCovered(), payload: new Date(0) }],
      [
        "a symbol key in a nested object",
        { ...validCovered(), address: { city: "x", [Symbol()]: 1 } },
      ],
      ["JSON nested past the quick check's depth", { ...validCovered(), payload: { deep } }],
      ["a cycle in the JSON payload", { ...validCovered(), payload: cyclic }],
      ["an unknown key", { ...validCovered(), stray: 1 }],
      ["a broken rule", { ...validCovered(), count: 3 }],
      [
        "a too-large nested object",
        { ...validCovered(), address: { city: "x", zip: "1", more: 1 } },
      ],
      ["not an object", [validCovered()]],
    ];
    for (const [what, inputs] of cases) {
      expect(covered.inputsPlainlyValid(inputs), what).toBe(false);
    }
    expect(covered.validateInputs(withProto).map((i) => `${i.field} ${i.reason}`)).toContain(
      "__proto__ UNKNOWN_INPUT",
    );
  });

  it("leaves uncovered kinds to the schema, and answers when they are absent", () => {
    expect(uncovered.inputsPlainlyValid({ either: "x" })).toBe(false);
    expect(uncovered.inputsPlainlyValid({ map: { a: 1 } })).toBe(false);
    expect(uncovered.validateInputs({ either: "x", map: { a: 1 } })).toEqual([]);
    expect(uncovered.inputsPlainlyValid({})).toBe(true);
  });

  it("says valid only where the schema does, and validateInputs gives the schema's issues", () => {
    const text = fc.oneof(
      fc.constantFrom("", "a", "AB", "abcdef", "2026-02-30", "2026-02-28"),
      fc.string({ maxLength: 6 }),
    );
    const value = fc.oneof(
      text,
      fc.integer({ min: -3, max: 6 }),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.jsonValue({ maxDepth: 2 }),
      fc.constant(0).map(() => pdf()),
      fc.array(
        fc.oneof(
          fc.constant(0).map(() => pdf()),
          text,
        ),
        { maxLength: 3 },
      ),
      fc.array(text, { maxLength: 4 }),
    );
    const inputs = changedFrom(validCovered, [...Object.keys(COVERED.properties), "stray"], value);
    quickCheckHoldsToSchema(
      fc.oneof(
        inputs,
        inputs.map((i) => ({ ...validCovered(), ...i })),
      ),
      {
        quick: (v) => covered.inputsPlainlyValid(v),
        schemaAccepts: (v) => schemaAccepts(covered, v),
        validatorAccepts: (v) => covered.validateInputs(v).length === 0,
      },
    );
  });
});

/** A result's outputs as the runtime gets them: parsed from JSON. */
const validOutputs = (): Record<string, unknown> =>
  JSON.parse(
    JSON.stringify({
      total: 12.5,
      count: 3,
      status: "booked",
      note: "a note longer than its documented maxLength",
      receipt: {
        download_url: "https://files.example/r.pdf",
        filename: "r.pdf",
        mime_type: "application/pdf",
        size_bytes: 120,
        expires_at: null,
        added_by_the_service: true,
      },
      attachments: [{ download_url: "https://files.example/a", filename: "a" }],
      lines: [{ account: "4000", debit: 1, memo: "a key the service added" }],
      raw: { anything: [1, { nested: null }] },
      flag: false,
      a_new_output: "kept",
    }),
  );

function schemaAcceptsOutputs(outputs: unknown): boolean {
  return covered.outputSchema().safeParse(outputs).success;
}

describe("outputsPlainlyValid", () => {
  it("answers for plain valid outputs, with the keys the service adds and constraints unchecked", () => {
    for (const outputs of [validOutputs(), { total: 0, status: "needs_review" }]) {
      expect(schemaAcceptsOutputs(outputs)).toBe(true);
      expect(covered.outputsPlainlyValid(outputs)).toBe(true);
      expect(covered.checkOutputs(outputs)).toEqual([]);
    }
  });

  it("leaves to the schema what it cannot vouch for, and the issues are the schema's", () => {
    const cases: [string, unknown][] = [
      ["a required output missing", { status: "booked" }],
      ["a wrong type", { ...validOutputs(), total: "12.5" }],
      ["a value outside the enum", { ...validOutputs(), status: "lost" }],
      ["a file without its filename", { ...validOutputs(), receipt: { download_url: "x" } }],
      [
        "a file whose mime_type is undefined",
        { ...validOutputs(), receipt: { download_url: "x", filename: "f", mime_type: undefined } },
      ],
      [
        "a file with a __proto__ key",
        {
          ...validOutputs(),
          receipt: JSON.parse('{"download_url":"x","filename":"f","__proto__":1}'),
        },
      ],
      ["a __proto__ key", JSON.parse('{"total":1,"status":"booked","__proto__":{}}')],
      ["a class instance", Object.assign(new (class Outputs {})(), { total: 1, status: "booked" })],
      ["not an object", [validOutputs()]],
    ];
    for (const [what, outputs] of cases)
      expect(covered.outputsPlainlyValid(outputs), what).toBe(false);
    expect(covered.checkOutputs({ status: "booked" }).map((i) => i.field)).toEqual(["total"]);
  });

  it("says valid only where the schema does, and checkOutputs gives the schema's verdict", () => {
    const value = fc.oneof(
      fc.string({ maxLength: 4 }),
      fc.constantFrom("booked", "needs_review", "lost"),
      fc.double(),
      fc.integer({ min: -2, max: 5 }),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.jsonValue({ maxDepth: 2 }),
      fc.record(
        {
          download_url: fc.oneof(fc.constant("https://f.example/x"), fc.integer()),
          filename: fc.oneof(fc.constant("x.pdf"), fc.constant(null)),
          mime_type: fc.oneof(fc.constant("text/plain"), fc.constant(undefined), fc.integer()),
          size_bytes: fc.oneof(fc.integer(), fc.double(), fc.string({ maxLength: 2 })),
          expires_at: fc.oneof(fc.constant(null), fc.constant("2026-11-26"), fc.boolean()),
        },
        { requiredKeys: [] },
      ),
      fc.array(
        fc.record(
          { account: fc.oneof(fc.string({ maxLength: 3 }), fc.integer()), debit: fc.double() },
          { requiredKeys: [] },
        ),
        { maxLength: 3 },
      ),
    );
    const keys = [...Object.keys(COVERED_OUTPUTS.properties), "a_new_output"];
    quickCheckHoldsToSchema(changedFrom(validOutputs, keys, value), {
      quick: (v) => covered.outputsPlainlyValid(v),
      schemaAccepts: schemaAcceptsOutputs,
      validatorAccepts: (v) => covered.checkOutputs(v).length === 0,
    });
  });
});
