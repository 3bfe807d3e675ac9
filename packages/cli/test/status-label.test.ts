import { describe, expect, it } from "vitest";
import { statusLabel } from "../src/status-label.js";

describe("statusLabel", () => {
  it("shows the server's word for a status this client does not know", () => {
    expect(statusLabel({ status: "unrecognized", serverStatus: "paused_by_ops" })).toBe(
      "paused_by_ops (unrecognized)",
    );
    expect(statusLabel({ status: "running", serverStatus: "running" })).toBe("running");
  });
});
