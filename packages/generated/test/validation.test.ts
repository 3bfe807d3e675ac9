// The built sample workflows validate inputs the way the service does:
// the same reason codes (INVALID_TYPE, REQUIRED, UNKNOWN_INPUT) on the same
// field paths, no coercion, JSON inputs never strings, defaults optional.

import { environment, workflows } from "@wfr/generated/sample";
import {
  buildInvoiceIntakeInputs,
  InvalidInputsError,
  invoiceIntake,
  readInvoiceIntakeOutputs,
} from "@wfr/generated/sample/invoiceIntake";
import { file } from "@wfr/runtime";
import { describe, expect, it } from "vitest";

const pdf = file(new Uint8Array([37, 80, 68, 70]), {
  filename: "inv.pdf",
  mimeType: "application/pdf",
});
const valid = { vendor_name: "Northwind", amount: 1280.5, invoice_pdf: pdf };

describe("@wfr/generated/sample", () => {
  it("exports the environment and every workflow by identifier", () => {
    expect(environment).toEqual({
      name: "sample",
      workspace: "ws_acme_ap",
      baseUrl: "https://api.workflows.example.com/api/v1",
    });
    expect(Object.keys(workflows)).toEqual([
      "crmContactSync",
      "draftCustomerReply",
      "invoiceIntake",
      "quarterlyCloseReport",
      "supplierPortalLoginCheck",
    ]);
    expect(workflows.invoiceIntake).toBe(invoiceIntake);
    expect(invoiceIntake).toMatchObject({
      id: "wf_P7Qd2Lx9",
      state: "enabled",
      modelExposed: true,
      environment: "sample",
    });
    expect(workflows.quarterlyCloseReport.state).toBe("draft");
  });

  it("accepts valid inputs; defaulted inputs may be left out", () => {
    expect(invoiceIntake.validateInputs(valid)).toEqual([]);
    expect(
      invoiceIntake.validateInputs({
        ...valid,
        currency: "EUR",
        paid: true,
        line_items: [{ sku: "A" }],
      }),
    ).toEqual([]);
    expect(buildInvoiceIntakeInputs(valid)).toBe(valid);
  });

  it("reports the server's reason codes", () => {
    const issues = invoiceIntake.validateInputs({
      amount: "5",
      invoice_pdf: pdf,
      unexpected: 1,
      line_items: "[]",
    });
    // In definition order, like the fields of the generated Inputs.
    expect(issues.map(({ field, reason }) => ({ field, reason }))).toEqual([
      { field: "vendor_name", reason: "REQUIRED" },
      { field: "amount", reason: "INVALID_TYPE" },
      { field: "line_items", reason: "INVALID_TYPE" },
      { field: "unexpected", reason: "UNKNOWN_INPUT" },
    ]);
    expect(invoiceIntake.validateInputs({ ...valid, currency: "JPY" })[0]?.reason).toBe(
      "INVALID_TYPE",
    );
    expect(
      invoiceIntake.validateInputs({ ...valid, invoice_pdf: { attachment_id: "att_1" } })[0]
        ?.reason,
    ).toBe("INVALID_TYPE");
    expect(invoiceIntake.validateInputs({ ...valid, vendor_name: null })[0]).toMatchObject({
      field: "vendor_name",
      reason: "INVALID_TYPE",
    });
    expect(
      workflows.draftCustomerReply.validateInputs({ ticket_url: "https://x", context: null }),
    ).toEqual([]);
    expect(() => buildInvoiceIntakeInputs({ ...valid, amount: "5" } as never)).toThrow(
      InvalidInputsError,
    );
  });

  it("reads outputs, tolerating added fields, with file outputs as download references", () => {
    const outputs = readInvoiceIntakeOutputs({
      invoice_id: "INV-1",
      total: 10,
      status: "booked",
      receipt: { download_url: "https://files.example/r?sig=1", filename: "r.pdf" },
      added_later: true,
    });
    expect(outputs.receipt?.download_url).toBe("https://files.example/r?sig=1");
    expect(invoiceIntake.checkOutputs({ invoice_id: 1, total: 10, status: "booked" })).toEqual([
      expect.objectContaining({ field: "invoice_id" }),
    ]);
    expect(() => readInvoiceIntakeOutputs({ total: 1 })).toThrow(/invoice_id/);
  });
});
