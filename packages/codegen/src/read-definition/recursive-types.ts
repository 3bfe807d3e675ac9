// Recursive `$ref`s (a schema that contains itself): how the reader finds
// them and names them. The reader reads a side (inputs or outputs) inlining
// every `$ref`; when a `$ref` comes back to a schema that contains it, the
// side is read again with that schema cut out as a named type
// (`RecursiveType`), referred to by fields of kind `ref`.

/** Thrown (never out of the reader) when a `$ref` reaches a schema that contains it: read the side again with `key` named. */
export class RecursionFound extends Error {
  constructor(readonly key: string) {
    super(`recursive $ref to ${key}`);
  }
}

/** Names the generated modules already use beside the recursive types. */
const TAKEN = new Set([
  "Inputs",
  "Outputs",
  "FileInput",
  "FileOutputReference",
  "JsonArray",
  "JsonObject",
]);

/**
 * A TypeScript name for the schema at `key` (`file#pointer`) on one side:
 * its last pointer token in PascalCase, `Input` / `Output` after it (the
 * two sides' types differ: optional defaults, readonly outputs), unique
 * among `taken`.
 */
export function recursiveTypeName(
  key: string,
  side: "input" | "output",
  taken: Iterable<{ readonly name: string }>,
): string {
  const last = key.slice(key.lastIndexOf("/") + 1);
  let token = last;
  try {
    token = decodeURIComponent(last).replace(/~1/g, "/").replace(/~0/g, "~");
  } catch {
    // An undecodable token is named from its raw text.
  }
  const words = token.split(/[^A-Za-z0-9]+/).filter((w) => w !== "");
  let base = words.map((w) => (w[0]?.toUpperCase() ?? "") + w.slice(1)).join("");
  if (base === "" || /^[0-9]/.test(base)) base = `Recursive${base}`;
  const suffix = side === "input" ? "Input" : "Output";
  const names = new Set([...taken].map((t) => t.name));
  let name = `${base}${suffix}`;
  for (let n = 2; names.has(name) || TAKEN.has(name); n++) name = `${base}${n}${suffix}`;
  return name;
}
