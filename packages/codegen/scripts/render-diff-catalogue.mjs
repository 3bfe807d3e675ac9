#!/usr/bin/env node
// Writes the diff's code catalogue (rendered from src/diff-rules.ts) into this package's README.
// Run after `pnpm build`; test/diff-catalogue.test.ts fails when the README is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { withDiffCatalogue } from "../dist/diff-catalogue.js";

const readme = fileURLToPath(new URL("../README.md", import.meta.url));
const before = readFileSync(readme, "utf8");
const after = withDiffCatalogue(before);
if (after !== before) writeFileSync(readme, after);
console.log(
  after === before
    ? "README.md: the diff catalogue is up to date"
    : "README.md: diff catalogue written",
);
