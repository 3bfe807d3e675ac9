// Value constraints in the diff: on inputs, added or
// tightened constraints break callers and loosened or removed ones do not; on
// outputs the reverse (a reader can now receive values the old definition
// excluded). The table is in src/diff.ts (diffValueConstraints).
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type DiffChange, type DiffReport, diffEnvironments } from "../src/diff.js";
import type { FieldModel } from "../src/model.js";
import { wfrCodegen } from "./cli-process.js";
import { env, field, workflow } from "./diff-factory.js";
import { cleanupTempDirs, definition, tempDir, writeJson } from "./helpers.js";

afterAll(cleanupTempDirs);

type Over = Partial<FieldModel>;
interface Case {
  readonly name: string;
  readonly side: "input" | "output";
  readonly before: Over;
  readonly after: Over;
  readonly severity: DiffChange["severity"];
  readonly kind: string;
}

const num: Over = { kind: "number" };
const list: Over = { kind: "array", items: field("[]") };

const cases: Case[] = [
  // Lengths.
  {
    name: "minLength added",
    side: "input",
    before: {},
    after: { minLength: 2 },
    severity: "breaking",
    kind: "input-min-length-narrowed",
  },
  {
    name: "minLength lowered",
    side: "input",
    before: { minLength: 5 },
    after: { minLength: 2 },
    severity: "non-breaking",
    kind: "input-min-length-widened",
  },
  {
    name: "minLength removed",
    side: "input",
    before: { minLength: 5 },
    after: {},
    severity: "non-breaking",
    kind: "input-min-length-widened",
  },
  {
    name: "maxLength lowered",
    side: "input",
    before: { maxLength: 50 },
    after: { maxLength: 10 },
    severity: "breaking",
    kind: "input-max-length-narrowed",
  },
  {
    name: "output maxLength raised",
    side: "output",
    before: { maxLength: 10 },
    after: { maxLength: 50 },
    severity: "breaking",
    kind: "output-max-length-widened",
  },
  {
    name: "output maxLength lowered",
    side: "output",
    before: { maxLength: 50 },
    after: { maxLength: 10 },
    severity: "non-breaking",
    kind: "output-max-length-narrowed",
  },
  {
    name: "output minLength removed",
    side: "output",
    before: { minLength: 1 },
    after: {},
    severity: "breaking",
    kind: "output-min-length-widened",
  },
  // Pattern.
  {
    name: "pattern added",
    side: "input",
    before: {},
    after: { pattern: "^[A-Z]+$" },
    severity: "breaking",
    kind: "input-pattern-added",
  },
  {
    name: "pattern removed",
    side: "input",
    before: { pattern: "^[A-Z]+$" },
    after: {},
    severity: "non-breaking",
    kind: "input-pattern-removed",
  },
  {
    name: "pattern changed",
    side: "input",
    before: { pattern: "^[A-Z]+$" },
    after: { pattern: "^[A-Z0-9]+$" },
    severity: "breaking",
    kind: "input-pattern-changed",
  },
  {
    name: "output pattern removed",
    side: "output",
    before: { pattern: "^\\d+$" },
    after: {},
    severity: "breaking",
    kind: "output-pattern-removed",
  },
  {
    name: "output pattern added",
    side: "output",
    before: {},
    after: { pattern: "^\\d+$" },
    severity: "non-breaking",
    kind: "output-pattern-added",
  },
  {
    name: "output pattern changed",
    side: "output",
    before: { pattern: "^a" },
    after: { pattern: "^b" },
    severity: "breaking",
    kind: "output-pattern-changed",
  },
  // Numeric bounds: minimum and exclusiveMinimum are one lower bound.
  {
    name: "minimum added",
    side: "input",
    before: num,
    after: { ...num, minimum: 0 },
    severity: "breaking",
    kind: "input-minimum-narrowed",
  },
  {
    name: "minimum raised",
    side: "input",
    before: { ...num, minimum: 0 },
    after: { ...num, minimum: 1 },
    severity: "breaking",
    kind: "input-minimum-narrowed",
  },
  {
    name: "minimum lowered",
    side: "input",
    before: { ...num, minimum: 1 },
    after: { ...num, minimum: 0 },
    severity: "non-breaking",
    kind: "input-minimum-widened",
  },
  {
    name: "minimum removed",
    side: "input",
    before: { ...num, minimum: 1 },
    after: num,
    severity: "non-breaking",
    kind: "input-minimum-widened",
  },
  {
    name: "minimum made exclusive",
    side: "input",
    before: { ...num, minimum: 0 },
    after: { ...num, exclusiveMinimum: 0 },
    severity: "breaking",
    kind: "input-minimum-narrowed",
  },
  {
    name: "exclusiveMinimum made inclusive",
    side: "input",
    before: { ...num, exclusiveMinimum: 0 },
    after: { ...num, minimum: 0 },
    severity: "non-breaking",
    kind: "input-minimum-widened",
  },
  {
    name: "maximum lowered",
    side: "input",
    before: { ...num, maximum: 100 },
    after: { ...num, maximum: 99 },
    severity: "breaking",
    kind: "input-maximum-narrowed",
  },
  {
    name: "exclusiveMaximum added",
    side: "input",
    before: num,
    after: { ...num, exclusiveMaximum: 100 },
    severity: "breaking",
    kind: "input-maximum-narrowed",
  },
  {
    name: "maximum raised",
    side: "input",
    before: { ...num, maximum: 99 },
    after: { ...num, maximum: 100 },
    severity: "non-breaking",
    kind: "input-maximum-widened",
  },
  {
    name: "output minimum lowered",
    side: "output",
    before: { ...num, minimum: 0 },
    after: { ...num, minimum: -1 },
    severity: "breaking",
    kind: "output-minimum-widened",
  },
  {
    name: "output maximum lowered",
    side: "output",
    before: { ...num, maximum: 10 },
    after: { ...num, maximum: 5 },
    severity: "non-breaking",
    kind: "output-maximum-narrowed",
  },
  // multipleOf.
  {
    name: "multipleOf added",
    side: "input",
    before: num,
    after: { ...num, multipleOf: 5 },
    severity: "breaking",
    kind: "input-multiple-of-narrowed",
  },
  {
    name: "multipleOf 10 -> 5 (every old value still fits)",
    side: "input",
    before: { ...num, multipleOf: 10 },
    after: { ...num, multipleOf: 5 },
    severity: "non-breaking",
    kind: "input-multiple-of-widened",
  },
  {
    name: "multipleOf 5 -> 10",
    side: "input",
    before: { ...num, multipleOf: 5 },
    after: { ...num, multipleOf: 10 },
    severity: "breaking",
    kind: "input-multiple-of-narrowed",
  },
  {
    name: "multipleOf 0.1 -> 0.05",
    side: "input",
    before: { ...num, multipleOf: 0.1 },
    after: { ...num, multipleOf: 0.05 },
    severity: "non-breaking",
    kind: "input-multiple-of-widened",
  },
  {
    name: "multipleOf 4 -> 6 (neither contains the other)",
    side: "input",
    before: { ...num, multipleOf: 4 },
    after: { ...num, multipleOf: 6 },
    severity: "breaking",
    kind: "input-multiple-of-changed",
  },
  {
    name: "output multipleOf 4 -> 6",
    side: "output",
    before: { ...num, multipleOf: 4 },
    after: { ...num, multipleOf: 6 },
    severity: "breaking",
    kind: "output-multiple-of-changed",
  },
  {
    name: "output multipleOf removed",
    side: "output",
    before: { ...num, multipleOf: 2 },
    after: num,
    severity: "breaking",
    kind: "output-multiple-of-widened",
  },
  // Items.
  {
    name: "minItems raised",
    side: "input",
    before: { ...list, minItems: 1 },
    after: { ...list, minItems: 2 },
    severity: "breaking",
    kind: "input-min-items-narrowed",
  },
  {
    name: "maxItems added",
    side: "input",
    before: list,
    after: { ...list, maxItems: 10 },
    severity: "breaking",
    kind: "input-max-items-narrowed",
  },
  {
    name: "maxItems removed",
    side: "input",
    before: { ...list, maxItems: 10 },
    after: list,
    severity: "non-breaking",
    kind: "input-max-items-widened",
  },
  {
    name: "output maxItems raised",
    side: "output",
    before: { ...list, maxItems: 10 },
    after: { ...list, maxItems: 20 },
    severity: "breaking",
    kind: "output-max-items-widened",
  },
  {
    name: "uniqueItems made true",
    side: "input",
    before: list,
    after: { ...list, uniqueItems: true },
    severity: "breaking",
    kind: "input-unique-items-narrowed",
  },
  {
    name: "uniqueItems: false is no constraint",
    side: "input",
    before: { ...list, uniqueItems: true },
    after: { ...list, uniqueItems: false },
    severity: "non-breaking",
    kind: "input-unique-items-widened",
  },
  {
    name: "output uniqueItems dropped",
    side: "output",
    before: { ...list, uniqueItems: true },
    after: list,
    severity: "breaking",
    kind: "output-unique-items-widened",
  },
];

function diffOne(side: "input" | "output", before: FieldModel, after: FieldModel): DiffReport {
  const wf = (f: FieldModel) =>
    side === "input" ? workflow({ inputs: [f] }) : workflow({ outputs: [f] });
  return diffEnvironments(env([wf(before)]), env([wf(after)]));
}

describe("value constraints", () => {
  it.each(cases)("$name: $severity $kind", (c) => {
    const report = diffOne(c.side, field("a", c.before), field("a", c.after));
    expect(report.changes.map((x) => [x.severity, x.kind, x.path])).toEqual([
      [c.severity, c.kind, `${c.side}s.a`],
    ]);
  });

  it("classifies constraints nested in array items and objects", () => {
    const tags = (over: Over) => field("tags", { kind: "array", items: field("[]", over) });
    const report = diffOne(
      "input",
      tags({ maxLength: 20 }),
      tags({ maxLength: 10, pattern: "^[a-z]+$" }),
    );
    expect(report.changes.map((x) => [x.kind, x.path])).toEqual([
      ["input-max-length-narrowed", "inputs.tags[]"],
      ["input-pattern-added", "inputs.tags[]"],
    ]);
  });

  it("a schema part the diff has no rule for (an allOf or oneOf the model grew) is reported as breaking, never silent", () => {
    const branch = (kind: FieldModel["kind"]) => field("", { kind });
    // A model key this diff does not know, as a newer reader could add.
    const withBranches = (kinds: FieldModel["kind"][]) =>
      ({ ...field("a"), oneOf: kinds.map(branch) }) as FieldModel;
    const report = diffOne("input", withBranches(["text", "number"]), withBranches(["text"]));
    expect(report.changes.map((x) => [x.severity, x.kind, x.path])).toEqual([
      ["breaking", "input-schema-changed", "inputs.a"],
    ]);
    expect(report.changes[0]?.message).toContain("`oneOf`");
    expect(diffOne("input", withBranches(["text"]), withBranches(["text"])).changes).toEqual([]);
  });

  it("changes inside the parts of such a key are classified part by part with every rule", () => {
    const withParts = (...parts: Over[]) =>
      ({ ...field("a"), oneOf: parts.map((p) => field("", p)) }) as FieldModel;
    const report = diffOne(
      "input",
      withParts({ kind: "text", maxLength: 20 }, { kind: "integer", minimum: 0 }),
      withParts({ kind: "text", maxLength: 10 }, { kind: "integer", minimum: -5 }),
    );
    expect(report.changes.map((x) => [x.severity, x.kind, x.path])).toEqual([
      ["breaking", "input-max-length-narrowed", "inputs.a(oneOf 1)"],
      ["non-breaking", "input-minimum-widened", "inputs.a(oneOf 2)"],
    ]);
  });
});

describe("value constraints read from definitions, through `wfr-codegen diff`", () => {
  const amountInputs = (amount: Record<string, unknown>, code: Record<string, unknown>) => ({
    type: "object",
    required: ["amount"],
    additionalProperties: false,
    properties: { amount, code, tags: { type: "array", items: { type: "string" }, maxItems: 5 } },
  });

  function write(dir: string, name: string, doc: unknown): string {
    writeJson(join(dir, name, "openapi.json"), doc);
    return name;
  }

  it("tightened input constraints exit 1 under --fail-on breaking; the Markdown shows code spans", () => {
    const dir = tempDir("wfr-diff-constraints-");
    const old = write(
      dir,
      "old",
      definition([
        {
          id: "wf_1",
          name: "Pay",
          inputs: amountInputs({ type: "number", minimum: 0 }, { type: "string" }),
        },
      ]),
    );
    const tightened = write(
      dir,
      "new",
      definition([
        {
          id: "wf_1",
          name: "Pay",
          inputs: amountInputs(
            { type: "number", exclusiveMinimum: 0, multipleOf: 0.01 },
            { type: "string", pattern: "^[A-Z]{3}$", minLength: 3 },
          ),
        },
      ]),
    );
    const r = wfrCodegen(
      ["diff", old, tightened, "--format", "json", "--fail-on", "breaking"],
      dir,
    );
    expect(r.stderr).toBe("");
    expect(r.status).toBe(1);
    const changes = (JSON.parse(r.stdout) as DiffReport).changes.map((c) => [
      c.severity,
      c.kind,
      c.path,
    ]);
    expect(changes).toEqual([
      ["breaking", "input-minimum-narrowed", "inputs.amount"],
      ["breaking", "input-multiple-of-narrowed", "inputs.amount"],
      ["breaking", "input-min-length-narrowed", "inputs.code"],
      ["breaking", "input-pattern-added", "inputs.code"],
    ]);

    const md = wfrCodegen(["diff", old, tightened, "--format", "markdown"], dir);
    expect(md.stdout).toContain(
      "- :x: **breaking** `input-pattern-added` `inputs.code`: Input `inputs.code` must now match the pattern ^\\[A-Z\\]{3}$.",
    );
    expect(md.stdout).not.toContain("\\`");

    // The reverse direction only loosens: nothing breaks.
    const loosened = wfrCodegen(["diff", tightened, old, "--fail-on", "breaking"], dir);
    expect(loosened.status).toBe(0);
    expect(loosened.stdout).toContain("0 breaking changes, 4 non-breaking changes");
  });

  it("OpenAPI 3.0's boolean exclusiveMinimum reads the same as 3.1's number", () => {
    const dir = tempDir("wfr-diff-constraints-");
    const v30 = definition(
      [
        {
          id: "wf_1",
          name: "Pay",
          inputs: amountInputs(
            { type: "number", minimum: 0, exclusiveMinimum: true },
            { type: "string" },
          ),
        },
      ],
      { openapi: "3.0.3" },
    );
    const v31 = definition([
      {
        id: "wf_1",
        name: "Pay",
        inputs: amountInputs({ type: "number", exclusiveMinimum: 0 }, { type: "string" }),
      },
    ]);
    const r = wfrCodegen(["diff", write(dir, "v30", v30), write(dir, "v31", v31)], dir);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("No changes.");
  });
});
