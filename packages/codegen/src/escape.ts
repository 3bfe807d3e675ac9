// Every string that comes from a definition reaches generated code only
// through these two functions: as a JSON-escaped string literal, or as text
// inside a block comment that cannot be closed early.

/** A TypeScript/JavaScript string literal for any string (double-quoted, JSON-escaped, line and paragraph separators escaped). */
export function stringLiteral(value: string): string {
  return JSON.stringify(value)
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** A literal for a JSON value (strings, numbers, booleans, null, arrays, objects). */
export function jsonLiteral(value: unknown): string {
  const text = JSON.stringify(value) ?? "undefined";
  return text.replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

/**
 * Text safe inside a `/* ... *\/` comment, as separate lines: `*\/` cannot
 * close the comment, line terminators of every kind become line breaks, and
 * control characters are dropped.
 */
export function commentLines(text: string): string[] {
  const cleaned = text
    .replace(/\r\n|[\r\n\u2028\u2029\u0085]/g, "\n")
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we drop
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "")
    .replace(/\*\//g, "*\\/")
    .replace(/\/\*/g, "/\\*");
  return cleaned.split("\n").map((line) => line.trimEnd());
}

/** A JSDoc block (with the given indentation) for the lines, or "" when there is nothing to say. */
export function docComment(lines: readonly (string | undefined)[], indent = ""): string {
  const all = lines.filter((l): l is string => l !== undefined && l !== "").flatMap(commentLines);
  if (all.length === 0) return "";
  if (all.length === 1) return `${indent}/** ${all[0]} */\n`;
  return `${indent}/**\n${all.map((l) => `${indent} *${l === "" ? "" : ` ${l}`}`).join("\n")}\n${indent} */\n`;
}

const IDENTIFIER = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u;

/** Whether a name can be written as a bare property key. */
function isIdentifierName(name: string): boolean {
  return IDENTIFIER.test(name);
}

/** A property key for an interface or object literal: bare when it is an identifier, quoted otherwise. `__proto__` is always computed in object literals (a plain `__proto__:` key would set the prototype). */
export function propertyKey(name: string, context: "type" | "value"): string {
  if (name === "__proto__" && context === "value") return `[${stringLiteral(name)}]`;
  return isIdentifierName(name) ? name : stringLiteral(name);
}
