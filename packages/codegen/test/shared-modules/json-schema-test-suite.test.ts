// The official JSON-Schema-Test-Suite as the outside judge of both input
// validators: the generated zod validator (made by the `generate` CLI) and
// @wfr/emulator's validateInputs. Each group's schema becomes one workflow
// input (`value`) in a definition (OpenAPI 3.1 for draft 2020-12, 3.0.3 for
// draft 4), and every case of the group is run through both. A group whose
// keywords wfr supports must be read, and both validators must give the
// suite's verdict on every case; a group using an unsupported keyword must be
// refused by the generator with `file#pointer` naming that keyword. The only
// exceptions are the knowingly approximate `format` checks in FORMAT_ALLOWED
// (counted). The suite lives beside the repository, in
// `../shared/oracles/json-schema-test-suite/` (its README names the commit).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { readDefinition as emulatorReadDefinition, validateInputs } from "@wfr/emulator";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { DefinitionError, readDefinition } from "../../src/read-definition.js";
import {
  capturedOutput,
  cleanupTempDirs,
  definition,
  projectDir,
  REPO,
  writeJson,
} from "../helpers.js";

afterAll(cleanupTempDirs);

const SUITE = join(REPO, "..", "shared", "oracles", "json-schema-test-suite", "tests");

interface SuiteCase {
  readonly description: string;
  readonly data: unknown;
  readonly valid: boolean;
}
interface SuiteGroup {
  readonly description: string;
  readonly schema: unknown;
  readonly tests: readonly SuiteCase[];
}

type Dialect = "draft2020-12" | "draft4";
const OPENAPI: Record<Dialect, string> = { "draft2020-12": "3.1.0", draft4: "3.0.3" };

/** The formats wfr asserts (README "Formats"); the suite's optional tests of these are run. */
const ASSERTED_FORMATS = ["date", "date-time", "email", "uri"] as const;

/**
 * Keywords the model supports (codegen README, "supported keywords"). A
 * group using any other keyword must be refused with `file#pointer` naming it.
 */
const SUPPORTED = new Set([
  "type",
  "$ref",
  "$defs",
  "definitions",
  "allOf",
  "oneOf",
  "anyOf",
  "const",
  "enum",
  "properties",
  "required",
  "additionalProperties",
  "patternProperties",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "items",
  "default",
  "description",
  "title",
  "format",
  "pattern",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "examples",
  "$comment",
  "deprecated",
  "readOnly",
  "writeOnly",
  // Annotations in 2020-12 (no assertion).
  "contentMediaType",
  "contentEncoding",
  "contentSchema",
]);

/** Keywords of one dialect only: 3.0's `nullable` and draft 4 tuples; 2020-12 tuples. */
const DIALECT_SUPPORTED: Record<Dialect, ReadonlySet<string>> = {
  draft4: new Set(["nullable", "items[]", "additionalItems"]),
  "draft2020-12": new Set(["prefixItems", "contains", "minContains", "maxContains"]),
};

/**
 * The only cases allowed to disagree, keyed by `<file> / <group> / <case>`,
 * each with its reason (codegen README, "Formats"). Both validators must
 * disagree on each, or the entry is stale.
 */
const ASSERTED =
  "wfr asserts this format (the service rejects such a string); draft 2020-12 makes format assertion optional, and the suite's optional/format tests, which assume assertion, are run instead";
const FORMAT_ALLOWED: Readonly<Record<string, string>> = {
  "draft2020-12/format.json / email format / invalid email string is only an annotation by default":
    ASSERTED,
  "draft2020-12/format.json / date format / invalid date string is only an annotation by default":
    ASSERTED,
  "draft2020-12/format.json / date-time format / invalid date-time string is only an annotation by default":
    ASSERTED,
  "draft2020-12/format.json / uri format / invalid uri string is only an annotation by default":
    ASSERTED,
};

const SCHEMA_MAPS = new Set([
  "properties",
  "$defs",
  "definitions",
  "patternProperties",
  "dependentSchemas",
]);
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const SCHEMA_ONE = new Set([
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "additionalItems",
]);
const VALUES = new Set(["const", "enum", "default", "examples"]);

/**
 * Every keyword a schema uses, at any depth (`items` in its array form is
 * `items[]`); a `$ref` to a URL, URN or `$anchor` is `$ref (remote)`: what wfr does not read.
 */
function keywordsOf(
  schema: unknown,
  out = new Set<string>(),
  root: unknown = schema,
  pointer = "",
  followed: readonly string[] = [],
): Set<string> {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return out;
  const ref = (schema as Record<string, unknown>).$ref;
  if (typeof ref === "string") {
    if (!ref.startsWith("#/") && ref !== "#") out.add("$ref (remote)");
    else {
      const target = ref.slice(1);
      // A `$ref` back to a schema that contains it is read (a named recursive type): not followed again.
      const recursive =
        target === "" ||
        pointer === target ||
        pointer.startsWith(`${target}/`) ||
        followed.includes(target);
      if (!recursive && followed.length < 8)
        keywordsOf(resolvePointer(root, target), out, root, target, [...followed, target]);
    }
  }
  const at = (...segments: (string | number)[]) =>
    `${pointer}/${segments.map((x) => String(x).replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;
  const walk = (s: unknown, p: string) => keywordsOf(s, out, root, p, followed);
  for (const [key, value] of Object.entries(schema)) {
    if (key === "items" && Array.isArray(value)) {
      out.add("items[]");
      for (const [i, s] of value.entries()) walk(s, at(key, i));
      continue;
    }
    // A fragment-only `$id` (`#foo`) is read (an annotation); a `$ref` by that name is `$ref (remote)`.
    if ((key === "$id" || key === "id") && typeof value === "string" && value.startsWith("#"))
      continue;
    out.add(key);
    if (VALUES.has(key)) continue;
    if (SCHEMA_MAPS.has(key) && value !== null && typeof value === "object")
      for (const [name, s] of Object.entries(value)) walk(s, at(key, name));
    else if (SCHEMA_LISTS.has(key) && Array.isArray(value))
      for (const [i, s] of value.entries()) walk(s, at(key, i));
    else if (SCHEMA_ONE.has(key) || key === "items") walk(value, at(key));
    else if (key === "dependencies" && value !== null && typeof value === "object")
      for (const [name, s] of Object.entries(value)) walk(s, at(key, name));
  }
  return out;
}

function resolvePointer(root: unknown, pointer: string): unknown {
  let node = root;
  for (const raw of pointer.split("/").slice(1)) {
    const segment = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    node =
      node !== null && typeof node === "object"
        ? (node as Record<string, unknown>)[segment]
        : undefined;
  }
  return node;
}

/** Whether a refusal names what it refuses: the keyword in backticks, or the kind of `$ref`. */
function names(refusal: string, keyword: string): boolean {
  if (keyword === "$ref (remote)") return refusal.includes("`$ref`");
  return refusal.includes(`\`${keyword.replace("[]", "")}\``);
}

/** Local `$ref`s (`#...`) rewritten to point into `base` of the definition. */
function rebase(schema: unknown, base: string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => rebase(s, base));
  if (schema === null || typeof schema !== "object") return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [
      k,
      // `#foo` (an anchor name, refused as one) is no pointer to rebase.
      k === "$ref" && typeof v === "string" && (v === "#" || v.startsWith("#/"))
        ? `#${base}${v.slice(1)}`
        : k === "const" || k === "enum" || k === "default" || k === "examples"
          ? v
          : rebase(v, base),
    ]),
  );
}

interface Suite {
  readonly dialect: Dialect;
  /** `minimum`, `format/date`, ... */
  readonly keyword: string;
  readonly file: string;
  readonly groups: readonly SuiteGroup[];
}

function loadSuites(): Suite[] {
  if (!existsSync(SUITE))
    throw new Error(
      `the JSON-Schema-Test-Suite is missing: expected ${SUITE} (the repository's ../shared/oracles folder)`,
    );
  const suites: Suite[] = [];
  for (const dialect of ["draft2020-12", "draft4"] as const) {
    const dir = join(SUITE, dialect);
    const files = readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort()
      .map((f) => ({ keyword: f.slice(0, -5), file: join(dir, f) }));
    for (const format of ASSERTED_FORMATS) {
      const file = join(dir, "optional", "format", `${format}.json`);
      if (existsSync(file)) files.push({ keyword: `format/${format}`, file });
    }
    for (const { keyword, file } of files)
      suites.push({
        dialect,
        keyword,
        file: `${dialect}/${file.slice(dir.length + 1)}`,
        groups: JSON.parse(readFileSync(file, "utf8")) as SuiteGroup[],
      });
  }
  return suites;
}

/** The group's schema without the root `$schema` naming the file's own dialect (the definition's version says it). */
function ownSchema(group: SuiteGroup): unknown {
  const s = group.schema;
  if (s === null || typeof s !== "object" || Array.isArray(s)) return s;
  const { $schema, ...rest } = s as Record<string, unknown>;
  return typeof $schema === "string" ? rest : s;
}

function inputsFor(ref: string) {
  return {
    type: "object",
    additionalProperties: false,
    required: ["value"],
    properties: { value: { $ref: ref } },
  };
}

interface Tally {
  agree: number;
  disagree: number;
  refused: number;
  allowed: number;
}
const tally = (): Tally => ({ agree: 0, disagree: 0, refused: 0, allowed: 0 });

type Validate = (inputs: unknown) => boolean;

describe("JSON-Schema-Test-Suite: generated validator and emulator", () => {
  it("agree with the suite on every case of a supported group, and refuse every unsupported group naming the keyword", async () => {
    const suites = loadSuites();
    const dir = projectDir();
    const problems: string[] = [];
    const table = new Map<string, { generated: Tally; emulator: Tally; cases: number }>();
    let allowedUsed = 0;

    for (const dialect of ["draft2020-12", "draft4"] as const) {
      const env = dialect === "draft4" ? "draftfour" : "draft2020";
      const mine = suites.filter((s) => s.dialect === dialect);
      const accepted: { id: string; name: string; inputs: Record<string, unknown> }[] = [];
      const components: Record<string, unknown> = {};
      const generatedRefusal = new Map<string, string>();
      let n = 0;
      const ids = new Map<SuiteGroup, string>();
      // First each group alone: is it read or refused?
      for (const suite of mine) {
        for (const group of suite.groups) {
          const id = `wf_g${n++}`;
          ids.set(group, id);
          const base = `/components/schemas/S_${id}`;
          const schema = rebase(ownSchema(group), base);
          const wf = { id, name: `Group ${id}`, inputs: inputsFor(`#${base}`) };
          const one = join(dir, "single", env, "openapi.json");
          writeJson(
            one,
            definition([wf], {
              openapi: OPENAPI[dialect],
              environment: env,
              components: { [`S_${id}`]: schema },
            }),
          );
          try {
            readDefinition(one);
            accepted.push(wf);
            components[`S_${id}`] = schema;
          } catch (error) {
            if (!(error instanceof DefinitionError)) throw error;
            generatedRefusal.set(id, error.message);
          }
        }
      }
      // Then every accepted group in one definition, generated once.
      const schemasDir = join(dir, `schemas-${env}`);
      writeJson(
        join(schemasDir, env, "openapi.json"),
        definition(accepted, { openapi: OPENAPI[dialect], environment: env, components }),
      );
      const { io, streams } = capturedOutput();
      const code = await main(
        ["generate", "--schemas", schemasDir, "--out", join(dir, `gen-${env}`)],
        streams,
      );
      expect(code, io.err).toBe(0);
      const index = (await import(
        pathToFileURL(join(dir, `gen-${env}`, env, "index.js")).href
      )) as {
        workflows: Record<string, { id: string; validateInputs(v: unknown): unknown[] }>;
      };
      const generated = new Map<string, Validate>(
        Object.values(index.workflows).map((w) => [w.id, (v) => w.validateInputs(v).length === 0]),
      );

      // The emulator reads the same single-group definitions.
      const emulatorFor = (suite: Suite, group: SuiteGroup): Validate | string => {
        const id = ids.get(group) as string;
        const base = `/components/schemas/S_${id}`;
        const doc = definition([{ id, name: `Group ${id}`, inputs: inputsFor(`#${base}`) }], {
          openapi: OPENAPI[dialect],
          environment: env,
          components: { [`S_${id}`]: rebase(ownSchema(group), base) },
        });
        try {
          const wf = emulatorReadDefinition(doc, env).workflows.get(id);
          if (!wf) return `${suite.file}: no workflow read`;
          validateInputs(wf.inputs, { value: null }, wf.inputsDialect);
          return (v) => validateInputs(wf.inputs, v, wf.inputsDialect).ok;
        } catch (error) {
          return (error as Error).message;
        }
      };

      for (const suite of mine) {
        const key = `${dialect} ${suite.keyword}`;
        const row = table.get(key) ?? { generated: tally(), emulator: tally(), cases: 0 };
        table.set(key, row);
        for (const group of suite.groups) {
          const id = ids.get(group) as string;
          const unsupported = [...keywordsOf(ownSchema(group))].filter(
            (k) => !SUPPORTED.has(k) && !DIALECT_SUPPORTED[dialect].has(k),
          );
          const refusal = generatedRefusal.get(id);
          const where = `${suite.file} / ${group.description}`;
          if (unsupported.length > 0) {
            if (refusal === undefined)
              problems.push(`${where}: uses ${unsupported.join(", ")} but the generator read it`);
            else if (!unsupported.some((k) => names(refusal, k)))
              problems.push(
                `${where}: refused without naming ${unsupported.join(", ")}: ${refusal}`,
              );
            else if (!/^[^#\s]+#[^:]*: /.test(refusal))
              problems.push(`${where}: refusal without file#pointer: ${refusal}`);
          } else if (refusal !== undefined) {
            problems.push(`${where}: only supported keywords, yet refused: ${refusal}`);
          }
          const ours = refusal === undefined ? generated.get(id) : undefined;
          if (refusal === undefined && ours === undefined)
            throw new Error(`${where}: no generated workflow ${id}`);
          const emulator = emulatorFor(suite, group);
          if (unsupported.length === 0 && typeof emulator === "string")
            problems.push(
              `${where}: only supported keywords, yet the emulator refused: ${emulator}`,
            );
          for (const test of group.tests) {
            row.cases++;
            const label = `${where} / ${test.description}`;
            const inputs = { value: test.data };
            for (const [side, validate, t] of [
              ["generated", ours ?? refusal ?? "refused", row.generated],
              ["emulator", emulator, row.emulator],
            ] as const) {
              if (typeof validate === "string") {
                t.refused++;
                continue;
              }
              let verdict: boolean | string;
              try {
                verdict = validate(inputs);
              } catch (error) {
                verdict = `threw ${(error as Error).message}`;
              }
              if (verdict === test.valid) t.agree++;
              else if (Object.hasOwn(FORMAT_ALLOWED, label)) {
                t.allowed++;
                allowedUsed++;
              } else {
                t.disagree++;
                problems.push(
                  `${side}: ${label}: ${JSON.stringify(test.data)} is ${test.valid ? "valid" : "invalid"}, got ${verdict}`,
                );
              }
            }
          }
        }
      }
    }

    const lines = [
      "| dialect keyword | cases | generated agree | disagree | allowed | refused | emulator agree | disagree | allowed | refused |",
      "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ];
    const total = { cases: 0, generated: tally(), emulator: tally() };
    for (const [key, row] of table) {
      total.cases += row.cases;
      for (const side of ["generated", "emulator"] as const)
        for (const k of ["agree", "disagree", "allowed", "refused"] as const)
          total[side][k] += row[side][k];
      const g = row.generated;
      const e = row.emulator;
      lines.push(
        `| ${key} | ${row.cases} | ${g.agree} | ${g.disagree} | ${g.allowed} | ${g.refused} | ${e.agree} | ${e.disagree} | ${e.allowed} | ${e.refused} |`,
      );
    }
    const g = total.generated;
    const e = total.emulator;
    lines.push(
      `| total | ${total.cases} | ${g.agree} | ${g.disagree} | ${g.allowed} | ${g.refused} | ${e.agree} | ${e.disagree} | ${e.allowed} | ${e.refused} |`,
    );
    console.log(lines.join("\n"));
    if (problems.length > 0) console.log(problems.join("\n"));
    expect(allowedUsed).toBe(Object.keys(FORMAT_ALLOWED).length * 2);
    expect(problems).toEqual([]);
  });
});
