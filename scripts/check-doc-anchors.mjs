#!/usr/bin/env node
// Comments cite the rules they implement as `docs/<page>.md#<anchor>`, so that
// a reader finds the rule by following the link. A citation whose page or
// heading does not exist (a heading renamed, a page moved) is a broken promise;
// this check fails on one. It also fails on a citation of a tracker number
// ("issue 9", "#11") in source or test names: those mean nothing to a reader.
//
// Usage: node scripts/check-doc-anchors.mjs [repoRoot]
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(process.argv[2] ?? join(fileURLToPath(import.meta.url), "../.."));

/** GitHub's heading anchor: lower case, punctuation other than `-` and `_` dropped, spaces to `-`. */
export function headingSlug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a Markdown page: one per heading, with GitHub's `-1`, `-2` suffixes for repeats. */
export function anchorsOf(markdown) {
  const anchors = new Set();
  const seen = new Map();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const slug = headingSlug(m[1]);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

const CITATION = /docs\/([\w./-]+\.md)#([\w\p{L}-]+)/gu;
// "issue 9", "issue #9", "(#11)" as a tracker reference; not CSS colours, not `#1` in code.
const TRACKER = /\bissue\s*#?\d+\b|\(#\d+\)/i;
// A section of the specification or the design documents, which are not in the repository
// ('spec "Limits"', 'definition-format.md "Inputs"'): cite the rule's docs/ anchor instead.
const OUTSIDE_SECTION =
  /\b[Ss]pec(?:ification)?,? "[A-Z]|(?<!docs\/)definition-format\.md|workflow-run-api\.md/;

export function checkRepository(repoRoot) {
  const files = execFileSync("git", ["ls-files", "-z"], { cwd: repoRoot, encoding: "utf8" })
    .split("\0")
    .filter((f) => /\.(ts|tsx|mts|cts|js|mjs|cjs|md)$/.test(f))
    .filter((f) => !f.startsWith("packages/generated/") && !f.includes("node_modules/"))
    .filter((f) => !f.startsWith("bench/results/") && f !== "scripts/check-doc-anchors.mjs");
  const pageAnchors = new Map();
  const problems = [];
  for (const file of files) {
    const path = join(repoRoot, file);
    if (!existsSync(path)) continue;
    const text = readFileSync(path, "utf8");
    const lines = text.split("\n");
    lines.forEach((line, i) => {
      for (const m of line.matchAll(CITATION)) {
        const page = m[1];
        const anchor = m[2];
        if (!pageAnchors.has(page)) {
          const pagePath = join(repoRoot, "docs", page);
          pageAnchors.set(
            page,
            existsSync(pagePath) ? anchorsOf(readFileSync(pagePath, "utf8")) : null,
          );
        }
        const anchors = pageAnchors.get(page);
        if (anchors === null)
          problems.push(`${file}:${i + 1}: cites docs/${page}, which does not exist`);
        else if (!anchors.has(anchor))
          problems.push(
            `${file}:${i + 1}: cites docs/${page}#${anchor}, which has no such heading`,
          );
      }
      if (!file.endsWith(".md") && TRACKER.test(line))
        problems.push(`${file}:${i + 1}: cites a tracker number; cite the rule in docs/ instead`);
      if (!file.endsWith(".md") && OUTSIDE_SECTION.test(line))
        problems.push(
          `${file}:${i + 1}: cites a section of a document outside the repository; cite its docs/ anchor instead`,
        );
    });
  }
  return { files: files.length, problems };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { files, problems } = checkRepository(root);
  for (const p of problems) console.error(p);
  if (problems.length > 0) {
    console.error(`check-doc-anchors: ${problems.length} problem(s) in ${files} files`);
    process.exit(1);
  }
  console.log(
    `check-doc-anchors: ${files} files, every docs/ citation resolves, no tracker numbers or outside sections`,
  );
}
