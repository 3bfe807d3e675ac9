import { readFileSync } from "node:fs";
import { CLIENT_ERROR_CODES } from "@wfr/protocol";
import { describe, expect, it } from "vitest";
import { BY_CODE, EXIT, exitCodeForApiError, exitCodeTableMarkdown } from "../src/exit-codes.js";

const readmeTable = () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const start = readme.indexOf("| code | name");
  return readme.slice(start, readme.indexOf("\n\n", start));
};

describe("exit codes", () => {
  it("the README's table is the one generated from the vocabulary's tables", () => {
    // Cells compared, not padding: the formatter aligns the README's columns.
    const cells = (table: string) =>
      table
        .split("\n")
        .map((line) => line.split("|").map((cell) => cell.trim().replace(/^-+$/, "-")));
    expect(cells(readmeTable())).toEqual(cells(exitCodeTableMarkdown()));
  });

  it("every code of the vocabulary has an exit code, and every exit code is documented", () => {
    for (const code of CLIENT_ERROR_CODES) expect(Object.values(EXIT)).toContain(BY_CODE[code]);
    for (const code of CLIENT_ERROR_CODES) expect(readmeTable()).toContain(`\`${code}\``);
  });

  it("a draft or disabled workflow has its own exit code, not HUMAN_WAIT_CONFLICT's", () => {
    expect(exitCodeForApiError("WORKFLOW_NOT_ENABLED", 409)).toBe(EXIT.WORKFLOW_NOT_ENABLED);
    expect(exitCodeForApiError("WORKFLOW_NOT_ENABLED", null)).toBe(EXIT.WORKFLOW_NOT_ENABLED);
    expect(exitCodeForApiError("HUMAN_WAIT_CONFLICT", 409)).toBe(EXIT.HUMAN_WAIT_CONFLICT);
  });

  it("codes the service answers beyond the spec's table are mapped by code", () => {
    expect(exitCodeForApiError("UNAUTHENTICATED", 401)).toBe(EXIT.AUTH);
    expect(exitCodeForApiError("INSUFFICIENT_SCOPE", 403)).toBe(EXIT.AUTH);
    expect(exitCodeForApiError("INVALID_BODY", 400)).toBe(EXIT.INVALID_INPUT);
    expect(exitCodeForApiError("SOMETHING_NEW", 404)).toBe(EXIT.NOT_FOUND);
  });
});
