import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Client,
  CRM,
  DRAFT,
  detailFor,
  expectErrorShape,
  findKey,
  Harness,
  INVOICE,
  invoiceBody,
  type Json,
  PDF_B64,
  PORTAL,
  portalBody,
  REPLY,
  type Res,
  runIdOf,
  STAGING_DISABLED,
} from "./support.js";

let h: Harness;
let c: Client;

beforeAll(async () => {
  h = await Harness.start();
  c = await h.client();
  for (const wf of [INVOICE, PORTAL, REPLY, CRM]) {
    await h.scenario("production", wf, { steps: [{ wait_ms: 60_000 }, { succeed: {} }] });
  }
});
afterAll(() => h?.close());

function expect400(r: Res, code: string) {
  expect(r.status, r.text.slice(0, 300)).toBe(400);
  expectErrorShape(r);
  expect(r.body.code).toBe(code);
  expect(r.body.run_id).toBeUndefined();
}

function inputError(r: Res, field: string, reason: string) {
  expect400(r, "INVALID_INPUTS");
  const d = detailFor(r, field);
  expect(d, `details[] entry for ${field} in ${r.text}`).toBeDefined();
  expect(d.reason).toBe(reason);
  expect(typeof d.message).toBe("string");
}

function withInputs(patch: Record<string, unknown>, drop: string[] = []) {
  const body = invoiceBody();
  for (const k of drop) delete body.inputs[k];
  Object.assign(body.inputs, patch);
  return body;
}

async function adminInputs(runId: string): Promise<Json> {
  const r = await h.admin("GET", `/environments/production/runs/${runId}`);
  expect(r.status).toBe(200);
  return findKey(r.body, "inputs");
}

describe("POST /automations/{workflowId}/runs", () => {
  it("Response 202: run envelope including run_id and HTTPS links status_url, result_url, events_url", async () => {
    const r = await c.launch(INVOICE, invoiceBody());
    expect(r.status).toBe(202);
    const env = r.body;
    expect(typeof env.run_id).toBe("string");
    expect(env.workflow_id).toBe(INVOICE);
    expect(typeof env.status).toBe("string");
    expect(env.error).toBeNull();
    expect(env.metadata).toEqual({});
    expect(env).toHaveProperty("timestamps");
    for (const link of ["status_url", "result_url", "events_url"]) {
      expect(typeof env[link], link).toBe("string");
      expect(() => new URL(env[link])).not.toThrow();
    }
    expect(env).toHaveProperty("recording_url");
    expect(env).toHaveProperty("model");
    const viaLink = await c.api("GET", env.status_url.slice(c.base.length));
    expect(env.status_url.startsWith(c.base)).toBe(true);
    expect(viaLink.status).toBe(200);
    expect(viaLink.body.run_id).toBe(env.run_id);
  });

  it("Every run started through the API appears in the application's run history with its inputs", async () => {
    const run = await c.start(INVOICE, invoiceBody({ metadata: { order: "H-1" } }));
    const listed = (await h.runs()).map(runIdOf);
    expect(listed).toContain(run.run_id);
    const inputs = await adminInputs(run.run_id);
    expect(inputs.vendor_name).toBe("Acme Paper Co");
    expect(inputs.amount).toBe(1250.5);
  });

  it("Only an enabled workflow can be launched; a draft or disabled one cannot", async () => {
    const before = (await h.runs()).length;
    const draft = await c.launch(DRAFT, { inputs: { quarter: "2026-Q1" } });
    expect(draft.status).toBe(409);
    expect(draft.body.code).toBe("WORKFLOW_NOT_ENABLED");
    expect(draft.headers.get("x-should-retry")).toBe("false");

    const staging = await h.client("staging");
    const disabled = await staging.launch(STAGING_DISABLED, { inputs: {} });
    expect(disabled.status).toBe(409);
    expect(disabled.body.code).toBe("WORKFLOW_NOT_ENABLED");
    expect(disabled.headers.get("x-should-retry")).toBe("false");

    await h.state("production", PORTAL, "disabled");
    try {
      const r = await c.launch(PORTAL, portalBody());
      expect(r.status).toBe(409);
      expect(r.body.code).toBe("WORKFLOW_NOT_ENABLED");
    } finally {
      await h.state("production", PORTAL, "enabled");
    }
    expect((await h.runs()).length).toBe(before);
    expect((await c.launch(PORTAL, portalBody())).status).toBe(202);
  });

  it("Only a saved workflow ID is valid as workflowId; an agent graph or browser session ID cannot be substituted", async () => {
    const run = await c.start(INVOICE, invoiceBody());
    const running = await c.until(run.run_id, (r) => typeof r.session_id === "string");
    for (const id of [run.run_id, running.session_id, "wf_DoesNotExist", "graph_123"]) {
      const r = await c.launch(id, invoiceBody());
      expect(r.status, `workflowId ${id}`).toBe(404);
      expect(r.body.code).toBe("WORKFLOW_NOT_FOUND");
    }
  });
});

describe("Launch body: inputs", () => {
  it("Must match the selected workflow's declared input schema: a valid body is accepted", async () => {
    const r = await c.launch(
      INVOICE,
      withInputs({
        currency: "EUR",
        paid: true,
        due_date: "2026-12-01",
        line_items: [{ sku: "A", qty: 2 }],
        supporting_docs: [{ attachment_id: "att_2" }],
      }),
    );
    // att_2 is not in input_context: that is an attachment error, proving references are checked.
    expect400(r, "INVALID_ATTACHMENTS");
    const body = withInputs({ supporting_docs: [{ attachment_id: "att_2" }] });
    body.input_context.attachments.push({
      id: "att_2",
      filename: "po.pdf",
      mimeType: "application/pdf",
      base64: PDF_B64,
    });
    expect((await c.launch(INVOICE, body)).status).toBe(202);
  });

  it("Undeclared keys are rejected", async () => {
    inputError(await c.launch(INVOICE, withInputs({ vendor: "typo" })), "vendor", "UNKNOWN_INPUT");
  });

  it("Undeclared prototype keys such as __proto__ and constructor are rejected", async () => {
    for (const key of ["__proto__", "constructor", "hasOwnProperty"]) {
      const text = JSON.stringify(invoiceBody()).replace(
        '"inputs":{',
        `"inputs":{"${key}":{"polluted":true},`,
      );
      const r = await c.launch(INVOICE, text);
      inputError(r, key, "UNKNOWN_INPUT");
    }
    expect(({} as Json).polluted).toBeUndefined();
  });

  it("missing required values are rejected", async () => {
    const r = await c.launch(INVOICE, withInputs({}, ["amount", "vendor_name"]));
    inputError(r, "amount", "REQUIRED");
    expect(detailFor(r, "vendor_name")?.reason).toBe("REQUIRED");
  });

  it("saved defaults and normal missing-input rules still apply", async () => {
    const run = await c.start(INVOICE, invoiceBody());
    const inputs = await adminInputs(run.run_id);
    expect(inputs.currency).toBe("USD");
    expect(inputs.paid).toBe(false);
    const explicit = await c.start(INVOICE, withInputs({ currency: "GBP", paid: true }));
    const inputs2 = await adminInputs(explicit.run_id);
    expect(inputs2.currency).toBe("GBP");
    expect(inputs2.paid).toBe(true);
  });

  it("inputs is required", async () => {
    const r = await c.launch(INVOICE, { metadata: {} });
    expect(r.status).toBe(400);
    expect(["INVALID_INPUTS", "INVALID_BODY"]).toContain(r.body.code);
  });

  it("Supplied values must have the declared JSON type; no automatic conversion is done", async () => {
    inputError(
      await c.launch(INVOICE, withInputs({ vendor_name: 42 })),
      "vendor_name",
      "INVALID_TYPE",
    );
    inputError(
      await c.launch(INVOICE, withInputs({ amount: "1250.50" })),
      "amount",
      "INVALID_TYPE",
    );
    inputError(await c.launch(INVOICE, withInputs({ paid: "true" })), "paid", "INVALID_TYPE");
    inputError(await c.launch(INVOICE, withInputs({ paid: 1 })), "paid", "INVALID_TYPE");
    inputError(
      await c.launch(INVOICE, withInputs({ line_items: '[{"sku":"A"}]' })),
      "line_items",
      "INVALID_TYPE",
    );
    inputError(
      await c.launch(INVOICE, withInputs({ invoice_pdf: "/home/me/invoice.pdf" })),
      "invoice_pdf",
      "INVALID_TYPE",
    );
    inputError(
      await c.launch(INVOICE, withInputs({ invoice_pdf: "invoice.pdf" })),
      "invoice_pdf",
      "INVALID_TYPE",
    );
    inputError(
      await c.launch(CRM, { inputs: { contacts: [], dry_run: "false" } }),
      "dry_run",
      "INVALID_TYPE",
    );
    expect((await c.launch(CRM, { inputs: { contacts: { a: 1 } } })).status).toBe(202);
    expect((await c.launch(CRM, { inputs: { contacts: [{ a: 1 }] } })).status).toBe(202);
  });

  it("details lists the affected fields with per-field reason codes INVALID_TYPE, REQUIRED and UNKNOWN_INPUT", async () => {
    const r = await c.launch(
      INVOICE,
      withInputs({ amount: "12", extra_field: 1 }, ["vendor_name"]),
    );
    expect400(r, "INVALID_INPUTS");
    expect(detailFor(r, "amount")?.reason).toBe("INVALID_TYPE");
    expect(detailFor(r, "vendor_name")?.reason).toBe("REQUIRED");
    expect(detailFor(r, "extra_field")?.reason).toBe("UNKNOWN_INPUT");
  });

  it("Nullable inputs accept null; enum inputs reject values outside the enum", async () => {
    expect(
      (await c.launch(REPLY, { inputs: { ticket_url: "https://t.example/1", context: null } }))
        .status,
    ).toBe(202);
    expect400(await c.launch(INVOICE, withInputs({ currency: "JPY" })), "INVALID_INPUTS");
    expect(
      detailFor(await c.launch(INVOICE, withInputs({ currency: "JPY" })), "currency"),
    ).toBeDefined();
  });
});

describe("Launch body: metadata", () => {
  it("Must be a JSON object (null, array, string, number, boolean are invalid)", async () => {
    const before = (await h.runs()).length;
    for (const metadata of [null, [], ["a"], "x", 1, 0, true, false]) {
      expect400(await c.launch(INVOICE, invoiceBody({ metadata })), "INVALID_METADATA");
    }
    expect((await h.runs()).length).toBe(before);
  });

  it("Default {}. Echoed back in the run envelope", async () => {
    const metadata = { order_id: "PO-77", nested: { a: [1, 2] }, "weird key": "ü" };
    const run = await c.start(INVOICE, invoiceBody({ metadata }));
    expect(run.metadata).toEqual(metadata);
    expect((await c.run(run.run_id)).body.metadata).toEqual(metadata);
  });

  it("Does not supply inputs or override runtime configuration", async () => {
    const body = withInputs({}, ["amount"]);
    body.metadata = { amount: 10, model: "max", browser: { headless: false } };
    inputError(await c.launch(INVOICE, body), "amount", "REQUIRED");
    const plain = await c.start(INVOICE, invoiceBody());
    const other = ["pro", "flash", "lite", "max"].find((m) => m !== plain.model) ?? "max";
    const ok = await c.start(INVOICE, invoiceBody({ metadata: { model: other } }));
    expect(ok.model).toBe(plain.model);
    expect(ok.metadata).toEqual({ model: other });
  });

  it("Internal runtime metadata is never included", async () => {
    const run = await c.start(INVOICE, invoiceBody({ metadata: { k: "v" } }));
    const done = await c.until(run.run_id, (r) => typeof r.session_id === "string");
    expect(run.metadata).toEqual({ k: "v" });
    expect(done.metadata).toEqual({ k: "v" });
  });
});

describe("Launch body: idempotency_key, model, overrides, callback_url", () => {
  it("idempotency_key: string, max 200 chars", async () => {
    expect(
      (await c.launch(INVOICE, invoiceBody({ idempotency_key: "k".repeat(200) }))).status,
    ).toBe(202);
    expect400(
      await c.launch(INVOICE, invoiceBody({ idempotency_key: "k".repeat(201) })),
      "INVALID_IDEMPOTENCY_KEY",
    );
    expect400(
      await c.launch(INVOICE, invoiceBody({ idempotency_key: 42 })),
      "INVALID_IDEMPOTENCY_KEY",
    );
  });

  it("model: Allowed values: pro, flash, lite, max", async () => {
    for (const model of ["pro", "flash", "lite", "max"]) {
      const run = await c.start(INVOICE, invoiceBody({ model }));
      expect(run.model).toBe(model);
    }
  });

  it("Arbitrary vendor model IDs and provider secrets are not accepted", async () => {
    for (const model of ["gpt-4o", "openai/gpt-4o", "PRO", "", 1]) {
      expect400(await c.launch(INVOICE, invoiceBody({ model })), "INVALID_MODEL");
    }
    for (const key of ["openai_api_key", "provider_api_key", "api_key"]) {
      const r = await c.launch(INVOICE, invoiceBody({ [key]: "sk-test-123" }));
      expect(r.status).toBe(400);
      expect(r.text.includes("sk-test-123")).toBe(false);
    }
  });

  it("model: Only when the environment's generated schema exposes it", async () => {
    expect400(await c.launch(PORTAL, portalBody({ model: "pro" })), "INVALID_MODEL");
  });

  it("A run override does not change the saved workflow", async () => {
    const plain = await c.start(INVOICE, invoiceBody());
    const other = ["pro", "flash", "lite", "max"].find((m) => m !== plain.model) ?? "max";
    await c.start(INVOICE, invoiceBody({ model: other }));
    const again = await c.start(INVOICE, invoiceBody());
    expect(again.model).toBe(plain.model);
  });

  it("Per-run browser or proxy overrides are rejected", async () => {
    const before = (await h.runs()).length;
    for (const [k, v] of [
      ["browser", { headless: false }],
      ["proxy", { server: "http://proxy.example:8080" }],
    ] as const) {
      expect400(await c.launch(INVOICE, invoiceBody({ [k]: v })), "RUN_OVERRIDE_NOT_ALLOWED");
    }
    expect((await h.runs()).length).toBe(before);
  });

  it("Unknown top-level launch keys are rejected", async () => {
    expect400(await c.launch(INVOICE, invoiceBody({ inptus: {} })), "INVALID_BODY");
  });

  it("callback_url: A private or localhost address is not a public receiver", async () => {
    const before = (await h.runs()).length;
    for (const callback_url of [
      "https://localhost/hook",
      "https://127.0.0.1/hook",
      "https://10.1.2.3/hook",
      "https://192.168.0.10/hook",
      "https://172.16.5.4/hook",
      "https://169.254.169.254/latest",
      "https://[::1]/hook",
      "http://hooks.example.com/plain-http",
      "not a url",
      "ftp://hooks.example.com/x",
    ]) {
      expect400(await c.launch(INVOICE, invoiceBody({ callback_url })), "INVALID_CALLBACK_URL");
    }
    expect((await h.runs()).length).toBe(before);
    expect(
      (await c.launch(INVOICE, invoiceBody({ callback_url: "https://hooks.example.com/wfr" })))
        .status,
    ).toBe(202);
  });
});

describe("Launch body: input_context attachments", () => {
  it("INVALID_ATTACHMENTS: invalid base64", async () => {
    for (const base64 of ["!!!not base64!!!", "abc", "a===", "QUJD\u0000"]) {
      const body = invoiceBody();
      body.input_context.attachments[0].base64 = base64;
      expect400(await c.launch(INVOICE, body), "INVALID_ATTACHMENTS");
    }
  });

  it("INVALID_ATTACHMENTS: an attachment reference without a matching attachment id", async () => {
    expect400(
      await c.launch(INVOICE, withInputs({ invoice_pdf: { attachment_id: "att_missing" } })),
      "INVALID_ATTACHMENTS",
    );
    const noContext = invoiceBody();
    delete noContext.input_context;
    expect400(await c.launch(INVOICE, noContext), "INVALID_ATTACHMENTS");
  });

  it("Attachment identifiers must be distinct within a request", async () => {
    const body = invoiceBody();
    body.input_context.attachments.push({ ...body.input_context.attachments[0] });
    expect400(await c.launch(INVOICE, body), "INVALID_ATTACHMENTS");
  });

  it("A file input must be declared in the workflow for attachment bytes to be used", async () => {
    const r = await c.launch(
      PORTAL,
      portalBody({
        input_context: {
          attachments: [
            { id: "a", filename: "x.pdf", mimeType: "application/pdf", base64: PDF_B64 },
          ],
        },
      }),
    );
    expect400(r, "INVALID_ATTACHMENTS");
  });

  it("INVALID_ATTACHMENTS: otherwise invalid attachment data", async () => {
    for (const bad of [
      { id: "att_1", filename: "invoice.pdf", base64: PDF_B64 },
      { id: 1, filename: "invoice.pdf", mimeType: "application/pdf", base64: PDF_B64 },
      "att_1",
    ]) {
      const body = invoiceBody();
      body.input_context.attachments = [bad];
      expect400(await c.launch(INVOICE, body), "INVALID_ATTACHMENTS");
    }
    const body = invoiceBody();
    body.input_context = { attachments: "nope" };
    expect400(await c.launch(INVOICE, body), "INVALID_ATTACHMENTS");
  });

  it("Multi-file fields use the shape declared by the schema (an array of attachment references)", async () => {
    const body = withInputs({ supporting_docs: { attachment_id: "att_1" } });
    inputError(await c.launch(INVOICE, body), "supporting_docs", "INVALID_TYPE");
    const ok = withInputs({ supporting_docs: [{ attachment_id: "att_1" }] });
    expect((await c.launch(INVOICE, ok)).status).toBe(202);
  });
});

describe("INVALID_JSON", () => {
  it("body not parseable as JSON", async () => {
    const before = (await h.runs()).length;
    for (const text of ["{", "{inputs: {}}", "", "\u0000", '{"inputs":{}}garbage', "nul"]) {
      expect400(await c.launch(INVOICE, text), "INVALID_JSON");
    }
    expect((await h.runs()).length).toBe(before);
  });

  it("A JSON body that is not an object is not a launch body", async () => {
    for (const text of ["[]", "null", "42", '"inputs"']) {
      const r = await c.launch(INVOICE, text);
      expect(r.status).toBe(400);
      expect(["INVALID_BODY", "INVALID_JSON", "INVALID_INPUTS"]).toContain(r.body.code);
    }
  });
});

describe("Launch body: input_context", () => {
  it("fields besides attachments follow the definition: its InputContext allows them, so they are accepted (and ignored)", async () => {
    const body = invoiceBody();
    body.input_context = { ...body.input_context, source: "mail-intake" };
    const r = await c.launch(INVOICE, body);
    expect(r.status, r.text).toBe(202);
    const doc = (await (await fetch(`${h.url}/production/api-docs/openapi.json`)).json()) as Json;
    // Stated open (docs/definition-format.md: additionalProperties on every object).
    expect(doc.components.schemas.InputContext.additionalProperties).toBe(true);
  });
});
