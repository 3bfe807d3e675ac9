import type { WorkflowModel } from "@wfr/cli";
import { describe, expect, it } from "vitest";
import { planRows } from "../src/plan.js";
import { parseCsv, rowsFromFile } from "../src/rows.js";

const workflow = {
  id: "wf_1",
  name: "Refund",
  inputs: [
    { name: "order", kind: "text", required: true },
    { name: "amount", kind: "number", required: true },
    { name: "urgent", kind: "boolean", required: false },
  ],
} as unknown as WorkflowModel;

describe("batch files", () => {
  it("parses CSV with quotes, escaped quotes, commas and newlines inside quotes", () => {
    expect(parseCsv('a,b\n"x, ""y""","line1\nline2"\r\n3,4\n')).toEqual([
      ["a", "b"],
      ['x, "y"', "line1\nline2"],
      ["3", "4"],
    ]);
  });

  it("maps CSV cells by declared type; text stays text", () => {
    const rows = rowsFromFile("r.csv", "id,order,amount,urgent\nr1,0042,12.5,true\n");
    const { planned, errors } = planRows(workflow, rows);
    expect(errors).toEqual([]);
    expect(planned).toEqual([
      { row: 1, key: "r1", inputs: { order: "0042", amount: 12.5, urgent: true } },
    ]);
  });

  it("reports every cell that does not fit, with row and column, and sends nothing", () => {
    const rows = rowsFromFile("r.csv", "order,amount,urgent,colour\nA,abc,yes,red\nB,,false,\n");
    const { errors } = planRows(workflow, rows);
    expect(errors).toEqual([
      'row 1, column "amount": "abc" is not a number (declared Number)',
      'row 1, column "urgent": "yes" is not true or false (declared Boolean)',
      'row 1, column "colour": Refund has no input "colour"',
      'row 2: the required input "amount" is missing',
    ]);
  });

  it("JSONL values must already have the declared JSON type (no conversion)", () => {
    const rows = rowsFromFile("r.jsonl", '{"order":"A","amount":"5"}\n{"order":"B","amount":5}\n');
    const { errors, planned } = planRows(workflow, rows);
    expect(errors).toEqual([
      'row 1, column "amount": "5" does not have the declared type (number)',
    ]);
    expect(planned[1]?.inputs).toEqual({ order: "B", amount: 5 });
  });

  it("refuses a duplicate row id", () => {
    const { errors } = planRows(workflow, rowsFromFile("r.csv", "id,order,amount\nx,A,1\nx,B,2\n"));
    expect(errors).toEqual(['row 2: id "x" appears on an earlier row']);
  });
});
