// The version the CLI reports is the one changesets bumps: src/version.ts must say package.json's.
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { VERSION } from "../src/version.js";

it("src/version.ts holds the version in package.json (scripts/write-versions.mjs writes it)", () => {
  const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  expect(VERSION).toBe(version);
});
