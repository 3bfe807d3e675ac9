// Renders a DiffReport as terminal text, Markdown (for a pull-request comment)
// or JSON. Pure: the same report gives the same string.

import { compareStrings, type DiffChange, type DiffReport, sortKeys } from "./diff.js";

export type DiffFormat = "text" | "markdown" | "json";

export function formatDiff(report: DiffReport, format: DiffFormat): string {
  switch (format) {
    case "text":
      return formatDiffText(report);
    case "markdown":
      return formatDiffMarkdown(report);
    case "json":
      return formatDiffJson(report);
  }
}

interface WorkflowGroup {
  readonly workflowId: string;
  readonly workflowName: string;
  readonly breaking: DiffChange[];
  readonly nonBreaking: DiffChange[];
}

/** Changes grouped per workflow: workflows with breaking changes first, then by name and id. */
function groupByWorkflow(report: DiffReport): WorkflowGroup[] {
  const groups = new Map<string, WorkflowGroup>();
  for (const change of report.changes) {
    const key = `${change.workflowId}\u0000${change.workflowName}`;
    let group = groups.get(key);
    if (!group) {
      group = {
        workflowId: change.workflowId,
        workflowName: change.workflowName,
        breaking: [],
        nonBreaking: [],
      };
      groups.set(key, group);
    }
    (change.severity === "breaking" ? group.breaking : group.nonBreaking).push(change);
  }
  return [...groups.values()].sort(
    (a, b) =>
      Number(b.breaking.length > 0) - Number(a.breaking.length > 0) ||
      compareStrings(a.workflowName, b.workflowName) ||
      compareStrings(a.workflowId, b.workflowId),
  );
}

/** Replaces control characters and line/paragraph separators so one value stays on one line. */
function oneLine(value: string): string {
  let out = "";
  for (const ch of value) {
    const code = ch.codePointAt(0) ?? 0;
    if (
      code < 0x20 ||
      code === 0x7f ||
      (code >= 0x80 && code < 0xa0) ||
      code === 0x2028 ||
      code === 0x2029
    ) {
      out += `\\u${code.toString(16).padStart(4, "0")}`;
    } else {
      out += ch;
    }
  }
  return out;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export function formatDiffText(report: DiffReport): string {
  const lines: string[] = [];
  lines.push(
    `Diff ${oneLine(report.old.environment)} (${oneLine(report.old.sourceFile)}) -> ${oneLine(report.new.environment)} (${oneLine(report.new.sourceFile)})`,
  );
  lines.push(
    `${plural(report.summary.breaking, "breaking change")}, ${plural(report.summary.nonBreaking, "non-breaking change")}`,
  );
  for (const group of groupByWorkflow(report)) {
    lines.push("");
    lines.push(`${oneLine(group.workflowName)} (${oneLine(group.workflowId)})`);
    for (const c of group.breaking) lines.push(`  BREAKING  ${textLine(c)}`);
    for (const c of group.nonBreaking) lines.push(`  ok        ${textLine(c)}`);
  }
  if (report.changes.length === 0) {
    lines.push("");
    lines.push("No changes.");
  }
  return `${lines.join("\n")}\n`;
}

function textLine(change: DiffChange): string {
  return `[${change.kind}] ${oneLine(change.message)}`;
}

/**
 * Escapes text for Markdown inline content (table cells and list items): no
 * HTML, no emphasis, links, code spans, headings or table breaks can come from
 * a name in the definition.
 */
export function escapeMarkdown(value: string): string {
  return oneLine(value).replace(/[\\`*_[\]|<>&~"']/g, (ch) => {
    switch (ch) {
      case "<":
        return "&lt;";
      case ">":
        return "&gt;";
      case "&":
        return "&amp;";
      case '"':
        return "&quot;";
      case "'":
        return "&#39;";
      default:
        return `\\${ch}`;
    }
  });
}

/** A code span that cannot be broken out of: backticks and pipes become entities inside <code>. */
function mdCode(value: string): string {
  const escaped = oneLine(value)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/\|/g, "&#124;")
    .replace(/`/g, "&#96;");
  return `<code>${escaped}</code>`;
}

/**
 * A Markdown code span that cannot be broken out of: the fence is one
 * backtick longer than any backtick run inside, padded when the content
 * starts or ends with a backtick. Code span content is literal in Markdown
 * (no HTML, emphasis or links), so nothing else needs escaping.
 */
export function codeSpan(value: string): string {
  const text = oneLine(value);
  const longestRun = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longestRun + 1);
  const pad =
    text === "" || text.startsWith("`") || text.endsWith("`") || /^ .* $/.test(text) ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/**
 * The message with its backticked parts as code spans. Messages quote the
 * change's path (which may itself hold backticks) and keywords between
 * backticks; every other character is escaped, since names come from the
 * definition.
 */
function mdMessage(change: DiffChange): string {
  const quotedPath = change.path === null ? undefined : `\`${change.path}\``;
  const parts = quotedPath === undefined ? [change.message] : change.message.split(quotedPath);
  return parts
    .map((part) =>
      part
        .split(/(`[^`]+`)/)
        .map((piece) =>
          piece.length > 2 && piece.startsWith("`") && piece.endsWith("`")
            ? codeSpan(piece.slice(1, -1))
            : escapeMarkdown(piece),
        )
        .join(""),
    )
    .join(change.path === null ? "" : codeSpan(change.path));
}

export function formatDiffMarkdown(report: DiffReport): string {
  const out: string[] = [];
  const { breaking, nonBreaking } = report.summary;
  out.push(
    `## Workflow definition diff: ${escapeMarkdown(report.old.environment)} → ${escapeMarkdown(report.new.environment)}`,
  );
  out.push("");
  out.push(
    breaking > 0 ? `**${plural(breaking, "breaking change")}** found.` : "No breaking changes.",
  );
  out.push("");
  out.push("| | Old | New |");
  out.push("|---|---|---|");
  out.push(
    `| Environment | ${escapeMarkdown(report.old.environment)} | ${escapeMarkdown(report.new.environment)} |`,
  );
  out.push(`| Definition | ${mdCode(report.old.sourceFile)} | ${mdCode(report.new.sourceFile)} |`);
  out.push("");
  out.push("| Workflow | Breaking | Non-breaking |");
  out.push("|---|---:|---:|");
  const groups = groupByWorkflow(report);
  for (const g of groups) {
    out.push(
      `| ${escapeMarkdown(g.workflowName)} | ${g.breaking.length} | ${g.nonBreaking.length} |`,
    );
  }
  out.push(`| **Total** | **${breaking}** | **${nonBreaking}** |`);
  for (const g of groups) {
    out.push("");
    out.push(`### ${escapeMarkdown(g.workflowName)} (${mdCode(g.workflowId)})`);
    out.push("");
    for (const c of g.breaking) out.push(`- :x: **breaking** ${mdItem(c)}`);
    for (const c of g.nonBreaking) out.push(`- :white_check_mark: ${mdItem(c)}`);
  }
  return `${out.join("\n")}\n`;
}

function mdItem(change: DiffChange): string {
  const where = change.path === null ? "" : ` ${codeSpan(change.path)}`;
  return `${codeSpan(change.kind)}${where}: ${mdMessage(change)}`;
}

/** JSON with sorted keys and a trailing newline. */
export function formatDiffJson(report: DiffReport): string {
  return `${JSON.stringify(sortKeys(report), null, 2)}\n`;
}
