// The catalogue of the diff's codes, read off the rule tables: the README's
// list is rendered from it (`scripts/render-diff-catalogue.mjs`), and a test
// fails when the README and the rules disagree.

import {
  type DiffChangeKind,
  type DiffSeverity,
  FIELD_RULES,
  PRESENCE_RULES,
  SCHEMA_CHANGED,
  type Side,
  type SideCode,
  WORKFLOW_ADDED,
  WORKFLOW_REMOVED,
  WORKFLOW_RULES,
} from "./diff-rules/index.js";

export interface DiffCatalogueEntry {
  readonly code: DiffChangeKind;
  /** Where the rule looks: a workflow, an input or an output. */
  readonly scope: "workflow" | Side;
  readonly severity: DiffSeverity | "depends";
  /** The rule's name (shared by the input and output code of one rule). */
  readonly rule: string;
  readonly compares: string;
}

/** Every code the diff can report, once, in rule order. */
export function diffCatalogue(): readonly DiffCatalogueEntry[] {
  const entries: DiffCatalogueEntry[] = [
    {
      code: WORKFLOW_REMOVED.code,
      scope: "workflow",
      severity: WORKFLOW_REMOVED.severity,
      rule: "workflow-removed",
      compares: "a workflow in the old definition, missing from the new one",
    },
    {
      code: WORKFLOW_ADDED.code,
      scope: "workflow",
      severity: WORKFLOW_ADDED.severity,
      rule: "workflow-added",
      compares: "a workflow only in the new definition",
    },
  ];
  for (const rule of WORKFLOW_RULES)
    entries.push({
      code: rule.side.code,
      scope: "workflow",
      severity: rule.side.severity,
      rule: rule.id,
      compares: rule.compares,
    });
  const perSide = (rule: {
    readonly id: string;
    readonly compares: string;
    readonly sides: Partial<Record<Side, SideCode>>;
  }) => {
    for (const side of ["input", "output"] as const) {
      const code = rule.sides[side];
      if (code)
        entries.push({
          code: code.code as DiffChangeKind,
          scope: side,
          severity: code.severity,
          rule: rule.id,
          compares: rule.compares,
        });
    }
  };
  for (const rule of PRESENCE_RULES) perSide(rule);
  for (const rule of FIELD_RULES) perSide(rule);
  perSide(SCHEMA_CHANGED);
  return entries;
}

/** The catalogue as a Markdown table, one row per code, aligned as Biome formats Markdown tables. */
function renderDiffCatalogue(): string {
  const entries = diffCatalogue();
  const rows = [
    ["code", "on", "severity", "compares"],
    ...entries.map((e) => [
      `\`${e.code}\``,
      e.scope,
      e.severity,
      e.compares.replaceAll("|", "\\|"),
    ]),
  ];
  const widths = rows[0]?.map((_, i) => Math.max(3, ...rows.map((r) => (r[i] ?? "").length))) ?? [];
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  const [head, ...body] = rows;
  return [
    `${entries.length} codes from ${countRules()} rules (\`src/diff-rules/\`). "depends": the message says which, and why.`,
    "",
    line(head ?? []),
    line(widths.map((w) => "-".repeat(w))),
    ...body.map(line),
  ].join("\n");
}

function countRules(): number {
  return 2 + WORKFLOW_RULES.length + PRESENCE_RULES.length + FIELD_RULES.length + 1;
}

const DIFF_CATALOGUE_START =
  "<!-- diff-catalogue:start (rendered by scripts/render-diff-catalogue.mjs) -->";
const DIFF_CATALOGUE_END = "<!-- diff-catalogue:end -->";

/** `readme` with the text between the catalogue markers replaced by `renderDiffCatalogue()`. */
export function withDiffCatalogue(readme: string): string {
  const start = readme.indexOf(DIFF_CATALOGUE_START);
  const end = readme.indexOf(DIFF_CATALOGUE_END);
  if (start === -1 || end < start)
    throw new Error(`the README has no ${DIFF_CATALOGUE_START} ... ${DIFF_CATALOGUE_END} section`);
  return `${readme.slice(0, start + DIFF_CATALOGUE_START.length)}\n\n${renderDiffCatalogue()}\n\n${readme.slice(end)}`;
}
