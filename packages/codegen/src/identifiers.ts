// Identifiers for workflows, made from `x-workflow.name`: valid, readable
// camelCase, never a reserved or prototype word, unique within an
// environment (also case-insensitively, since they name files), and stable:
// a workflow's identifier depends only on its own name and id and on the
// workflows whose names collide with it, never on unrelated workflows.
import { createHash } from "node:crypto";

/** Words that cannot (or should not) be a binding or a plain object key. */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  // ECMAScript reserved words, strict-mode and contextual ones
  "await",
  "break",
  "case",
  "catch",
  "class",
  "const",
  "continue",
  "debugger",
  "default",
  "delete",
  "do",
  "else",
  "enum",
  "export",
  "extends",
  "false",
  "finally",
  "for",
  "function",
  "if",
  "import",
  "in",
  "instanceof",
  "new",
  "null",
  "return",
  "super",
  "switch",
  "this",
  "throw",
  "true",
  "try",
  "typeof",
  "var",
  "void",
  "while",
  "with",
  "yield",
  "let",
  "static",
  "implements",
  "interface",
  "package",
  "private",
  "protected",
  "public",
  "arguments",
  "eval",
  "undefined",
  "NaN",
  "Infinity",
  "async",
  "of",
  "get",
  "set",
  "as",
  "from",
  "type",
  "declare",
  "namespace",
  "module",
  "require",
  "exports",
  "globalThis",
  // Object.prototype members
  "constructor",
  "__proto__",
  "__defineGetter__",
  "__defineSetter__",
  "__lookupGetter__",
  "__lookupSetter__",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
  "toString",
  "valueOf",
  // names the generated index module uses itself
  "environment",
  "workflows",
  // file and export names of the generated modules: a workflow named "Index" would replace the
  // environment's index.js (one named "Environment" its environment.js, reserved above), one named
  // "Download" would collide with its module's `download` export
  "index",
  "download",
]);

/** Reserved names that are also file names, compared case-insensitively (file systems may fold case). */
const RESERVED_FILE_NAMES: ReadonlySet<string> = new Set(["index", "environment"]);

function isReserved(id: string): boolean {
  return RESERVED_WORDS.has(id) || RESERVED_FILE_NAMES.has(id.toLowerCase());
}

const WORD_SPLIT = /[^\p{ID_Continue}]+|_+/u;

/** The readable camelCase identifier for a name, before collision handling. */
export function baseIdentifier(name: string): string {
  const words = name
    .normalize("NFKC")
    .split(WORD_SPLIT)
    .filter((w) => w.length > 0)
    // zero-width joiners are ID_Continue but never useful at a word start
    .map((w) => w.replace(/^[\u200c\u200d]+/, ""))
    .filter((w) => w.length > 0);
  if (words.length === 0) return "workflow";
  let id = words
    .map((word, i) => {
      if (i === 0) {
        return word === word.toUpperCase()
          ? word.toLowerCase()
          : word[0]?.toLowerCase() + word.slice(1);
      }
      // An all-caps word reads as a word, not an acronym run: "INVOICE INTAKE" -> invoiceIntake.
      const rest = word === word.toUpperCase() ? word.slice(1).toLowerCase() : word.slice(1);
      return (word[0]?.toUpperCase() ?? "") + rest;
    })
    .join("");
  if (!/^\p{ID_Start}/u.test(id)) id = `w${id}`;
  if (isReserved(id)) id = `${id}Workflow`;
  return id;
}

/** A short stable suffix derived from the workflow id only. */
export function idSuffix(id: string, length = 6): string {
  return createHash("sha256").update(id, "utf8").digest("hex").slice(0, length);
}

export interface NamedWorkflow {
  readonly id: string;
  readonly name: string;
}

/** Thrown for an alias that is not a usable identifier or is used twice. */
export class IdentifierError extends Error {
  override readonly name = "IdentifierError";
}

/** Whether a string is a usable workflow identifier (for pinned aliases). */
export function isValidAlias(alias: string): boolean {
  return /^[\p{ID_Start}][\p{ID_Continue}]*$/u.test(alias) && !isReserved(alias);
}

/**
 * Assigns every workflow its identifier (returned as a map id -> identifier).
 *
 * - A pinned alias (config) wins.
 * - Otherwise the base identifier is used when no other workflow of the
 *   environment has the same base (compared case-insensitively) or alias.
 * - Every member of a collision group gets `<base>_<6 hex of sha256(id)>`,
 *   so the names depend only on the group, never on unrelated workflows.
 */
export function assignIdentifiers(
  workflows: readonly NamedWorkflow[],
  aliases: Readonly<Record<string, string>> = {},
): Map<string, string> {
  const result = new Map<string, string>();
  const taken = new Map<string, string>(); // lower-case identifier -> workflow id
  for (const wf of workflows) {
    const alias = aliases[wf.id];
    if (alias === undefined) continue;
    if (!isValidAlias(alias)) {
      throw new IdentifierError(
        `alias ${JSON.stringify(alias)} for ${wf.id} is not a usable identifier`,
      );
    }
    const other = taken.get(alias.toLowerCase());
    if (other !== undefined) {
      throw new IdentifierError(
        `alias ${JSON.stringify(alias)} is pinned for both ${other} and ${wf.id}`,
      );
    }
    taken.set(alias.toLowerCase(), wf.id);
    result.set(wf.id, alias);
  }
  const groups = new Map<string, { base: string; members: NamedWorkflow[] }>();
  for (const wf of workflows) {
    if (result.has(wf.id)) continue;
    const base = baseIdentifier(wf.name);
    const key = base.toLowerCase();
    const group = groups.get(key) ?? { base, members: [] };
    group.members.push(wf);
    groups.set(key, group);
  }
  for (const [key, group] of groups) {
    if (group.members.length === 1 && !taken.has(key)) {
      const only = group.members[0] as NamedWorkflow;
      result.set(only.id, group.base);
      continue;
    }
    for (const wf of group.members) {
      const base = baseIdentifier(wf.name);
      let length = 6;
      let id = `${base}_${idSuffix(wf.id, length)}`;
      while (taken.has(id.toLowerCase()) && length < 64) {
        length += 2;
        id = `${base}_${idSuffix(wf.id, length)}`;
      }
      result.set(wf.id, id);
    }
  }
  // A suffixed name could, in theory, equal another workflow's plain base.
  const seen = new Map<string, string>();
  for (const wf of [...workflows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const id = result.get(wf.id) as string;
    const prev = seen.get(id.toLowerCase());
    if (prev !== undefined) {
      throw new IdentifierError(
        `workflows ${prev} and ${wf.id} both get the identifier ${id}; pin an alias in wfr.codegen.json`,
      );
    }
    seen.set(id.toLowerCase(), wf.id);
  }
  return result;
}

/** `invoiceIntake` -> `InvoiceIntake` (for type and function names). */
export function pascalCase(identifier: string): string {
  return (identifier[0]?.toUpperCase() ?? "") + identifier.slice(1);
}
