import { describe, expect, it } from "vitest";
import { CliError } from "../src/cli-error.js";
import { connectionOf, type EnvironmentConfig } from "../src/config.js";
import { EXIT } from "../src/exit-codes.js";

const production: EnvironmentConfig = {
  name: "production",
  baseUrl: "http://127.0.0.1:4010/production/api/v1",
  apiKeyEnv: "WFR_PRODUCTION_API_KEY",
};

describe("connectionOf", () => {
  it("WFR_<ENV>_BASE_URL replaces the configured base URL; without it the config's holds", () => {
    expect(connectionOf(production, {})).toBe(production);
    expect(connectionOf(production, { WFR_PRODUCTION_BASE_URL: " " })).toBe(production);
    expect(
      connectionOf(production, {
        WFR_PRODUCTION_BASE_URL: "http://127.0.0.1:51234/production/api/v1",
      }),
    ).toEqual({ ...production, baseUrl: "http://127.0.0.1:51234/production/api/v1" });
    // Another environment's variable changes nothing.
    expect(connectionOf(production, { WFR_STAGING_BASE_URL: "http://x/api/v1" })).toBe(production);
  });

  it("an override that is not an API base is a usage error naming the variable", () => {
    const bad = () => connectionOf(production, { WFR_PRODUCTION_BASE_URL: "127.0.0.1:51234" });
    expect(bad).toThrow(CliError);
    expect(bad).toThrow(/^WFR_PRODUCTION_BASE_URL: must be an http\(s\) URL ending in \/api\/v1/);
    try {
      bad();
    } catch (error) {
      expect((error as CliError).exitCode).toBe(EXIT.USAGE);
    }
  });
});
