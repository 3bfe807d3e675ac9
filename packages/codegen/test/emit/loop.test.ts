// The proof that the loop works: copy the example schemas, apply one graph
// edit, regenerate, and type-check a small app written against the old
// shape. Breaking edits must fail at the app line that uses the changed
// thing; non-breaking edits must compile.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate } from "../../src/generate.js";
import {
  cleanupTempDirs,
  copyExamples,
  lineOf,
  projectDir,
  readJson,
  typeCheck,
  writeJson,
} from "../helpers.js";

afterAll(cleanupTempDirs);

// Written against the real runtime client, so the type errors are the ones an app sees.
const APP = `import { createClient, type FileInput } from "@wfr/runtime";
import { invoiceIntake, readInvoiceIntakeOutputs, type Inputs as InvoiceInputs } from "./gen/sample/invoiceIntake.js"; // USE_IMPORT
import { workflows } from "./gen/sample/index.js";

const wfr = createClient({ baseUrl: "https://api.example.test/api/v1", apiKey: "test-key" });
declare const pdf: FileInput;

const inputs: InvoiceInputs = { // USE_INPUTS
  vendor_name: "Northwind", // USE_VENDOR
  amount: 1280.5,
  invoice_pdf: pdf,
  currency: "EUR", // USE_CURRENCY
  line_items: { lines: [{ sku: "A-1", qty: 2 }] }, // USE_LINE_ITEMS
};
export const launched = wfr.launch(invoiceIntake, { inputs }); // USE_LAUNCH

const out = readInvoiceIntakeOutputs({});
export const total: number = out.total; // USE_TOTAL
export const invoiceId: string = out.invoice_id; // USE_INVOICE_ID

export const reply = wfr.launch(workflows.draftCustomerReply, {
  inputs: { ticket_url: "https://example.test/t/1", context: null }, // USE_CONTEXT
  model: "pro", // USE_MODEL
});
`;

// biome-ignore lint/suspicious/noExplicitAny: edits walk an arbitrary JSON document
type Doc = Record<string, any>;
const INVOICE = "Workflow_wf_P7Qd2Lx9";
const REPLY = "Workflow_wf_P0ZrTt55";
const invoicePath = "/automations/wf_P7Qd2Lx9/runs";
const schemasOf = (d: Doc) => d.components.schemas as Doc;
const invoiceInputs = (d: Doc) => schemasOf(d)[`${INVOICE}_Inputs`] as Doc;
const invoiceOutputs = (d: Doc) => schemasOf(d)[`${INVOICE}_Outputs`] as Doc;
const invoiceWorkflow = (d: Doc) => d.paths[invoicePath].post["x-workflow"] as Doc;

type Diagnostics = ReturnType<typeof typeCheck>;

/**
 * Every edit's app, each in a folder of its own (`eN/app.ts` beside its `eN/gen`), type-checked
 * as one program: the apps are modules that share nothing but the runtime's declarations and
 * TypeScript's libs, so each file's diagnostics are what a program of its own reports, and the
 * runtime and the libs are checked once instead of once per edit (one `tsc` per edit was most of
 * this file's CPU: 8 of 9 CPU-seconds).
 */
function checkAll(edits: readonly ((d: Doc) => void)[]): Diagnostics[] {
  const dir = projectDir();
  const apps = edits.map((edit, i) => {
    const schemas = copyExamples();
    const file = join(schemas, "sample", "openapi.json");
    const doc = readJson(file) as Doc;
    edit(doc);
    writeJson(file, doc);
    generate({ schemas, out: join(dir, `e${i}`, "gen") });
    writeFileSync(join(dir, `e${i}`, "app.ts"), APP);
    return `e${i}/app.ts`;
  });
  const diagnostics = typeCheck(dir, apps);
  const unplaced = diagnostics.filter((d) => !/^e\d+\//.test(d.file));
  if (unplaced.length > 0)
    throw new Error(`diagnostics outside the edits' folders: ${JSON.stringify(unplaced)}`);
  // Each edit's diagnostics, with paths as in its own folder (`app.ts`, `gen/...`).
  return apps.map((_app, i) =>
    diagnostics
      .filter((d) => d.file.startsWith(`e${i}/`))
      .map((d) => ({ ...d, file: d.file.slice(`e${i}/`.length) })),
  );
}

describe("the loop: graph edit -> regenerate -> type error in the app", () => {
  const checked = new Map<(d: Doc) => void, Diagnostics>();
  const run = (edit: (d: Doc) => void): Diagnostics => {
    const found = checked.get(edit);
    if (!found) throw new Error("an edit that beforeAll did not check");
    return found;
  };
  const unedited = () => {};

  it("the app compiles against the unedited schemas", () => {
    expect(run(unedited)).toEqual([]);
  });

  const breaking: [string, string, (d: Doc) => void][] = [
    [
      "input added as required",
      "USE_INPUTS",
      (d) => {
        invoiceInputs(d).properties.po_number = { type: "string", "x-input-type": "text" };
        invoiceInputs(d).required.push("po_number");
      },
    ],
    [
      "input removed",
      "USE_VENDOR",
      (d) => {
        delete invoiceInputs(d).properties.vendor_name;
        invoiceInputs(d).required = invoiceInputs(d).required.filter(
          (n: string) => n !== "vendor_name",
        );
      },
    ],
    [
      "input type narrowed (json -> array of text)",
      "USE_LINE_ITEMS",
      (d) => {
        invoiceInputs(d).properties.line_items = { type: "array", items: { type: "string" } };
      },
    ],
    [
      "input nullability narrowed",
      "USE_CONTEXT",
      (d) => {
        schemasOf(d)[`${REPLY}_Inputs`].properties.context = {
          type: ["object", "array"],
          "x-input-type": "json",
        };
      },
    ],
    [
      "enum value removed from an input",
      "USE_CURRENCY",
      (d) => {
        invoiceInputs(d).properties.currency.enum = ["USD", "GBP"];
      },
    ],
    [
      "default removed from a required-by-default input",
      "USE_INPUTS",
      (d) => {
        delete invoiceInputs(d).properties.paid.default;
        invoiceInputs(d).required.push("paid");
      },
    ],
    [
      "output removed",
      "USE_TOTAL",
      (d) => {
        delete invoiceOutputs(d).properties.total;
        invoiceOutputs(d).required = invoiceOutputs(d).required.filter(
          (n: string) => n !== "total",
        );
      },
    ],
    [
      "output type changed",
      "USE_INVOICE_ID",
      (d) => {
        invoiceOutputs(d).properties.invoice_id = { type: "integer" };
      },
    ],
    [
      "workflow made draft",
      "USE_LAUNCH",
      (d) => {
        invoiceWorkflow(d).state = "draft";
      },
    ],
    [
      "workflow disabled",
      "USE_LAUNCH",
      (d) => {
        invoiceWorkflow(d).state = "disabled";
      },
    ],
    [
      "workflow removed",
      "USE_IMPORT",
      (d) => {
        delete d.paths[invoicePath];
      },
    ],
    [
      "model exposure removed",
      "USE_MODEL",
      (d) => {
        delete schemasOf(d)[`${REPLY}_LaunchBody`].properties.model;
      },
    ],
  ];

  it.each(breaking)("breaking: %s -> error at %s", (_name, marker, edit) => {
    const diagnostics = run(edit);
    const lines = diagnostics.filter((d) => d.file === "app.ts").map((d) => d.line);
    expect(lines, JSON.stringify(diagnostics, null, 1)).toContain(lineOf(APP, marker));
    expect(diagnostics.filter((d) => d.file !== "app.ts")).toEqual([]);
  });

  const nonBreaking: [string, (d: Doc) => void][] = [
    [
      "optional input added",
      (d) => {
        invoiceInputs(d).properties.notes = { type: "string", "x-input-type": "text" };
      },
    ],
    [
      "output added",
      (d) => {
        invoiceOutputs(d).properties.approved_by = { type: "string" };
      },
    ],
    [
      "enum value added to an input",
      (d) => {
        invoiceInputs(d).properties.currency.enum.push("JPY");
      },
    ],
    [
      "description changes",
      (d) => {
        invoiceInputs(d).properties.vendor_name.description = "Vendor name */ `changed` $" + "{x}";
        d.paths[invoicePath].post.description = "New description";
      },
    ],
    [
      "revision bump",
      (d) => {
        invoiceWorkflow(d).revision += 1;
      },
    ],
  ];

  beforeAll(() => {
    const edits = [
      unedited,
      ...breaking.map(([, , edit]) => edit),
      ...nonBreaking.map(([, edit]) => edit),
    ];
    checkAll(edits).forEach((diagnostics, i) => {
      checked.set(edits[i] as (d: Doc) => void, diagnostics);
    });
  });

  it.each(nonBreaking)("non-breaking: %s compiles", (_name, edit) => {
    expect(run(edit)).toEqual([]);
  });
});
