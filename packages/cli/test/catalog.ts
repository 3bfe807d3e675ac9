// A small catalog for the CLI tests: one workflow that finishes, one that
// waits for a person, one that fails.
import type { CatalogObject } from "@wfr/emulator";

const catalogJson = {
  environments: {
    production: {
      workspace: "ws_cli",
      workflows: [
        {
          id: "wf_invoice1",
          name: "Invoice intake",
          state: "enabled",
          revision: 1,
          model: true,
          inputs: {
            type: "object",
            additionalProperties: false,
            required: ["vendor_name", "amount"],
            properties: {
              vendor_name: { type: "string", "x-input-type": "text" },
              amount: { type: "number", "x-input-type": "number" },
              paid: { type: "boolean", "x-input-type": "boolean", default: false },
              invoice_pdf: { $ref: "#/components/schemas/FileReference" },
            },
          },
          outputs: {
            type: "object",
            properties: { invoice_id: { type: "string" } },
            required: ["invoice_id"],
          },
          scenario: {
            steps: [{ wait_ms: 300 }, { succeed: { outputs: { invoice_id: "INV-1" } } }],
          },
        },
        {
          id: "wf_approve1",
          name: "Payment approval",
          state: "enabled",
          revision: 1,
          inputs: {
            type: "object",
            additionalProperties: false,
            required: ["amount"],
            properties: { amount: { type: "number", "x-input-type": "number" } },
          },
          outputs: { type: "object", properties: { approved: { type: "boolean" } } },
          scenario: {
            steps: [
              { wait_ms: 200 },
              {
                human: {
                  kind: "approval",
                  reason: "Amount above limit",
                  instructions: "Approve the payment?",
                  expires_in_ms: 600000,
                },
              },
              { wait_ms: 200 },
              { succeed: { outputs: { approved: true } } },
            ],
          },
        },
        {
          id: "wf_broken1",
          name: "Broken portal",
          state: "enabled",
          revision: 1,
          inputs: { type: "object", additionalProperties: false, properties: {} },
          outputs: { type: "object", properties: {} },
          scenario: {
            steps: [
              { wait_ms: 100 },
              {
                fail: { status: "failed", error: { code: "PORTAL_DOWN", message: "portal down" } },
              },
            ],
          },
        },
      ],
    },
  },
};

// Plain JSON literal; the emulator validates it when it starts.
export const catalog = catalogJson as unknown as CatalogObject;
