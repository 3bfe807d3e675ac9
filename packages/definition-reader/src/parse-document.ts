// Definitions are JSON or YAML; both readers parse them here, so a YAML
// feature (merge keys, aliases) means the same to the generator and the emulator.
import { DefinitionError } from "./definition-error.js";
import { escapePointerToken as escapePointer } from "./json-pointer.js";
import { yamlLibrary } from "./yaml-library.js";

/**
 * Parses JSON or YAML by the file's extension. YAML merge keys (`<<: *anchor`)
 * are honoured (YAML 1.1 style, as OpenAPI tools read them); a YAML alias
 * that points into its own anchor would make the document infinite, so it
 * is an error naming where the cycle closes.
 */
export function parseDocument(text: string, file: string): unknown {
  const yaml = /\.ya?ml$/i.test(file);
  let doc: unknown;
  try {
    doc = yaml
      ? yamlLibrary().parse(text, { maxAliasCount: 10_000, merge: true })
      : JSON.parse(text);
  } catch (error) {
    throw new DefinitionError(
      file,
      "",
      `not valid ${yaml ? "YAML" : "JSON"}: ${(error as Error).message}`,
    );
  }
  if (yaml) rejectAliasCycles(doc, file);
  return doc;
}

/**
 * Throws when a node contains itself (only YAML aliases can make that). Shared
 * aliases that are not cycles are fine; each node is walked once.
 */
function rejectAliasCycles(root: unknown, file: string): void {
  const ancestors = new Map<object, string>();
  const done = new WeakSet<object>();
  // An explicit stack instead of recursion: a deep document cannot overflow it.
  type Frame = { node: object; pointer: string; entries: [string, unknown][]; next: number };
  const open = (node: object, pointer: string): Frame => {
    ancestors.set(node, pointer);
    const entries: [string, unknown][] = Array.isArray(node)
      ? node.map((v, i) => [String(i), v])
      : Object.entries(node);
    return { node, pointer, entries, next: 0 };
  };
  if (root === null || typeof root !== "object") return;
  const stack: Frame[] = [open(root, "")];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    const entry = frame.entries[frame.next++];
    if (entry === undefined) {
      ancestors.delete(frame.node);
      done.add(frame.node);
      stack.pop();
      continue;
    }
    const [key, value] = entry;
    if (value === null || typeof value !== "object" || done.has(value)) continue;
    const pointer = `${frame.pointer}/${escapePointer(key)}`;
    const ancestor = ancestors.get(value);
    if (ancestor !== undefined) {
      throw new DefinitionError(
        file,
        pointer,
        `YAML alias cycle: this alias refers to its own enclosing node (${ancestor === "" ? "the document root" : ancestor}), which would make the definition infinite; use a $ref for recursive structures`,
      );
    }
    stack.push(open(value, pointer));
  }
}
