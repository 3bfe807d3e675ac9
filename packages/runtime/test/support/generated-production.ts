// Stands in for `@wfr/generated/production` when README examples run in
// tests: the environment points at the in-process emulator.
import { defineInvoiceWorkflow } from "./fake-workflows.js";

export const environment = {
  name: "production",
  workspace: "ws_acme_ap",
  get baseUrl(): string {
    const url = process.env.WFR_TEST_BASE_URL;
    if (!url) throw new Error("WFR_TEST_BASE_URL is not set");
    return url;
  },
};

export const workflows = {
  invoiceIntake: defineInvoiceWorkflow("wf_P7Qd2Lx9", "enabled", true),
};

/** What `@wfr/generated/production/invoiceIntake` exports. */
export const invoiceIntake = workflows.invoiceIntake;
