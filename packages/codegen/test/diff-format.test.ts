import { describe, expect, it } from "vitest";
import { diffEnvironments } from "../src/diff.js";
import {
  codeSpan,
  escapeMarkdown,
  formatDiff,
  formatDiffJson,
  formatDiffMarkdown,
  formatDiffText,
} from "../src/diff-format.js";
import { env, field, workflow } from "./diff-factory.js";

const oldEnv = env([
  workflow({ inputs: [field("vendor_name"), field("amount", { kind: "number" })] }),
  workflow({ id: "wf_2", name: "CRM sync", identifier: "crmSync" }),
]);
const newEnv = env(
  [
    workflow({
      revision: 2,
      inputs: [field("vendor_name"), field("po_number")],
      outputs: [field("invoice_id"), field("total", { kind: "number", required: false })],
    }),
    workflow({ id: "wf_2", name: "CRM sync", identifier: "crmSync", revision: 4 }),
  ],
  { name: "staging", sourceFile: "staging/openapi.json" },
);
const report = diffEnvironments(oldEnv, newEnv);

describe("text format", () => {
  it("groups by workflow, breaking workflows and breaking changes first", () => {
    const text = formatDiffText(report);
    expect(text).toBe(
      [
        "Diff production (production/openapi.json) -> staging (staging/openapi.json)",
        "2 breaking changes, 3 non-breaking changes",
        "",
        "Invoice intake (wf_1)",
        "  BREAKING  [input-removed] Input `inputs.amount` was removed; a caller that still sends it is rejected (undeclared keys are not accepted).",
        "  BREAKING  [input-added-required] Required input `inputs.po_number` was added without a default; existing callers do not send it.",
        '  ok        [workflow-revision-changed] Workflow "Invoice intake" revision changed from 1 to 2.',
        "  ok        [output-added] Output `outputs.total` was added.",
        "",
        "CRM sync (wf_2)",
        '  ok        [workflow-revision-changed] Workflow "CRM sync" revision changed from 1 to 4.',
        "",
      ].join("\n"),
    );
  });

  it("says so when nothing changed", () => {
    expect(formatDiffText(diffEnvironments(oldEnv, oldEnv))).toContain("No changes.");
  });

  it("keeps a hostile name on one line", () => {
    const hostile = workflow({ name: "evil\nBREAKING  fake\u2028x" });
    const r = diffEnvironments(env([]), env([hostile]));
    const lines = formatDiffText(r).split("\n");
    expect(lines.filter((l) => l.includes("fake"))).toHaveLength(2);
    expect(lines.some((l) => l.startsWith("BREAKING"))).toBe(false);
  });
});

/** The Markdown with its code spans (literal content) removed, fence by fence. */
function withoutCodeSpans(md: string): string {
  return md.replace(/(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g, "");
}

describe("Markdown format", () => {
  it("has a heading, a summary table and per-workflow lists", () => {
    const md = formatDiffMarkdown(report);
    expect(md).toContain("## Workflow definition diff: production → staging");
    expect(md).toContain("**2 breaking changes** found.");
    expect(md).toContain("| Workflow | Breaking | Non-breaking |");
    expect(md).toContain("| Invoice intake | 2 | 2 |");
    expect(md).toContain("| CRM sync | 0 | 1 |");
    expect(md).toContain("| **Total** | **2** | **3** |");
    expect(md).toContain("### Invoice intake (<code>wf_1</code>)");
    // Code spans, not escaped backticks.
    expect(md).toContain(
      "- :x: **breaking** `input-added-required` `inputs.po_number`: Required input `inputs.po_number` was added without a default",
    );
    expect(md).not.toContain("\\`");
    expect(md.indexOf("### Invoice intake")).toBeLessThan(md.indexOf("### CRM sync"));
  });

  it("escapes hostile names everywhere", () => {
    const name = "Pay | <img src=x onerror=alert(1)> `rm -rf` **bold** [link](http://x)\n# head";
    const hostile = workflow({
      id: "wf_`|<b>",
      name,
      identifier: "pay",
      inputs: [field("a|`b`<i>")],
    });
    const r = diffEnvironments(env([]), env([hostile], { sourceFile: "st|g/`x`.json" }));
    const r2 = diffEnvironments(env([workflow({ ...hostile, inputs: [] })]), env([hostile]));
    for (const full of [formatDiffMarkdown(r), formatDiffMarkdown(r2)]) {
      // Code span content is literal Markdown: check what is left outside the spans.
      const md = withoutCodeSpans(full);
      expect(md).not.toContain("<img");
      expect(md).not.toContain("<b>");
      expect(md).not.toContain("<i>");
      expect(md).not.toMatch(/(^|[^\\])`rm/m);
      expect(md).not.toContain("**bold**");
      expect(md).not.toContain("[link]");
      expect(md).not.toMatch(/^# head/m);
      // Every table row keeps exactly its columns: no unescaped pipe inside cells.
      for (const line of md.split("\n").filter((l) => l.startsWith("|"))) {
        const cells = line.replace(/\\\|/g, "").split("|").length - 2;
        expect(cells).toBe(3);
      }
      // List items stay one line each.
      for (const line of md.split("\n").filter((l) => l.startsWith("- "))) {
        expect(line).not.toContain("\n");
      }
    }
    // The path holds single backticks: its span is fenced with two.
    expect(formatDiffMarkdown(r2)).toContain("``inputs.a|`b`<i>``");
    expect(formatDiffMarkdown(r2)).toContain(
      "Required input ``inputs.a|`b`<i>`` was added without a default",
    );
  });

  it("codeSpan fences with one backtick more than the longest run inside", () => {
    expect(codeSpan("a.b")).toBe("`a.b`");
    expect(codeSpan("a``b")).toBe("```a``b```");
    expect(codeSpan("`x")).toBe("`` `x ``");
    expect(codeSpan("line\nbreak")).toBe("`line\\u000abreak`");
  });

  it("escapeMarkdown neutralises markup characters", () => {
    expect(escapeMarkdown("a|b`c<d>&*_[x]~")).toBe("a\\|b\\`c&lt;d&gt;&amp;\\*\\_\\[x\\]\\~");
  });

  it("says when there are no breaking changes", () => {
    expect(formatDiffMarkdown(diffEnvironments(oldEnv, oldEnv))).toContain("No breaking changes.");
  });
});

describe("JSON format", () => {
  it("round-trips the report with sorted keys", () => {
    const json = formatDiffJson(report);
    expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(report)));
    expect(json.endsWith("\n")).toBe(true);
    const keys = Object.keys(JSON.parse(json));
    expect(keys).toEqual(["changes", "new", "old", "summary"]);
    const first = Object.keys(JSON.parse(json).changes[0]);
    expect(first).toEqual([...first].sort());
  });

  it("is byte-identical across runs and input orders", () => {
    const shuffled = env([...oldEnv.workflows].reverse());
    const a = formatDiff(diffEnvironments(oldEnv, newEnv), "json");
    const b = formatDiff(diffEnvironments(shuffled, newEnv), "json");
    expect(a).toBe(b);
    expect(formatDiff(report, "markdown")).toBe(formatDiff(report, "markdown"));
    expect(formatDiff(report, "text")).toBe(formatDiff(diffEnvironments(shuffled, newEnv), "text"));
  });
});
