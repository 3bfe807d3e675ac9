// `$ref` resolution over one definition file and its siblings: local
// pointers (`#/components/schemas/X`), relative files (`common.yaml`,
// `./shared/types.json#/FileReference`), `$ref` with sibling keywords
// (merged over the target), and cycles (reported, never followed forever).
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import {
  isConstraining,
  JsonPointerError,
  parseFragmentPointer,
  resolveJsonPointer,
} from "@wfr/definition-reader";
import { parse as parseYaml } from "yaml";
import { DefinitionError } from "./definition-error.js";

export { ANNOTATION_KEYWORDS, isConstraining } from "@wfr/definition-reader";

/** A schema (or any node) together with where it came from. */
export interface Located {
  readonly node: unknown;
  /** Absolute path of the file holding it. */
  readonly file: string;
  /** JSON pointer of the node in that file. */
  readonly pointer: string;
}

/**
 * The key of a node that stands for another located node: what the allOf
 * merge puts where a branch's property, item or value schema was, so that
 * the merged schema still reads every part from its own file (and names
 * its own pointer in errors). `deref` follows it like a `$ref`.
 */
const LOCATED = Symbol("located");

/** A schema node that stands for `at` (followed by `deref`, like a `$ref`). */
export function standIn(at: Located): Record<string, unknown> {
  const target = (at.node as Record<symbol, unknown> | null)?.[LOCATED];
  if (target !== undefined) return at.node as Record<string, unknown>;
  return { [LOCATED]: at } as Record<string, unknown>;
}

/** The located node a stand-in stands for, or undefined for any other node. */
export function standInTarget(node: unknown): Located | undefined {
  return node !== null && typeof node === "object"
    ? ((node as Record<symbol, unknown>)[LOCATED] as Located | undefined)
    : undefined;
}

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function child(located: Located, ...segments: (string | number)[]): Located {
  let node: unknown = located.node;
  let pointer = located.pointer;
  for (const segment of segments) {
    node =
      node !== null && typeof node === "object" && Object.hasOwn(node, segment)
        ? (node as Record<string, unknown>)[segment as string]
        : undefined;
    pointer = `${pointer}/${escapePointer(String(segment))}`;
  }
  return { node, file: located.file, pointer };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

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
    doc = yaml ? parseYaml(text, { maxAliasCount: 10_000, merge: true }) : JSON.parse(text);
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

/** `decodeURIComponent` that reports a bad percent-escape as a DefinitionError at `file#pointer`. */
export function decodeUriComponentAt(text: string, file: string, pointer: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new DefinitionError(
      file,
      pointer,
      `${JSON.stringify(text)} is not valid percent-encoding (a "%" must be followed by two hex digits of UTF-8)`,
    );
  }
}

/** `decodeURI` that reports a bad percent-escape as a DefinitionError at `file#pointer`. */
function decodeUriAt(text: string, file: string, pointer: string): string {
  try {
    return decodeURI(text);
  } catch {
    throw new DefinitionError(
      file,
      pointer,
      `$ref ${JSON.stringify(text)} is not valid percent-encoding (a "%" must be followed by two hex digits of UTF-8)`,
    );
  }
}

/** Rewrites every `$ref` in a subtree so it resolves the same from any file (absolute file path + pointer). */
export function rebaseRefs(
  node: unknown,
  file: string,
  where: { readonly file: string; readonly pointer: string } = { file, pointer: "" },
): unknown {
  if (Array.isArray(node)) return node.map((n) => rebaseRefs(n, file, where));
  if (!isRecord(node)) return node;
  // Object.fromEntries defines own properties, so a key named "__proto__" stays a key.
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => {
      if (key !== "$ref" || typeof value !== "string") return [key, rebaseRefs(value, file, where)];
      const hash = value.indexOf("#");
      const filePart = hash === -1 ? value : value.slice(0, hash);
      const pointer = hash === -1 ? "" : value.slice(hash);
      return [
        key,
        `${filePart === "" ? file : resolve(dirname(file), decodeUriAt(filePart, where.file, where.pointer))}${pointer}`,
      ];
    }),
  );
}

/**
 * What `deref` does with keywords beside a `$ref` that constrain values:
 * `stop` (OpenAPI 3.1, JSON Schema 2020-12: both hold, so the node is
 * returned as it is, for the reader to take as an `allOf`), `ignore`
 * (OpenAPI 3.0: "SHALL be ignored"; annotations still apply).
 */
export type SiblingRule = "stop" | "ignore";

export class RefResolver {
  private readonly documents = new Map<string, unknown>();
  siblingRule: SiblingRule = "stop";
  /** How files are named in errors (relative to the schemas folder). */
  constructor(private readonly displayName: (absoluteFile: string) => string) {}

  /** Registers an already parsed document (the definition itself). */
  seed(file: string, doc: unknown): void {
    this.documents.set(file, doc);
  }

  display(file: string): string {
    return this.displayName(file);
  }

  /** Loads (once) and returns a parsed document. */
  load(file: string, from?: Located): unknown {
    if (this.documents.has(file)) return this.documents.get(file);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      if (from)
        throw new DefinitionError(
          this.display(from.file),
          from.pointer,
          `broken $ref: cannot read ${this.display(file)}`,
        );
      throw new DefinitionError(this.display(file), "", "cannot read the file");
    }
    const doc = parseDocument(text, this.display(file));
    this.documents.set(file, doc);
    return doc;
  }

  private lookup(file: string, pointer: string, from: Located): Located {
    const doc = this.load(file, from);
    if (pointer === "" || pointer === "/") return { node: doc, file, pointer: "" };
    if (!pointer.startsWith("/")) {
      throw new DefinitionError(
        this.display(from.file),
        from.pointer,
        `broken $ref: ${JSON.stringify(pointer)} is not a JSON pointer`,
      );
    }
    let tokens: string[];
    try {
      // RFC 6901 section 6: the fragment is percent-decoded, then read as a pointer.
      tokens = parseFragmentPointer(pointer);
    } catch (error) {
      if (!(error instanceof JsonPointerError)) throw error;
      throw new DefinitionError(
        this.display(from.file),
        from.pointer,
        `broken $ref: ${error.message}`,
      );
    }
    const node = resolveJsonPointer(doc, tokens);
    if (node === undefined)
      throw new DefinitionError(
        this.display(from.file),
        from.pointer,
        `broken $ref: ${this.display(file)}#${pointer} does not exist`,
      );
    return { node, file, pointer };
  }

  /**
   * Follows `$ref` until a node without one. Sibling keywords next to a
   * `$ref` are merged over the target (the referring schema wins). A chain
   * that comes back to itself is an error.
   */
  deref(located: Located, seen: ReadonlySet<string> = new Set()): Located {
    const node = located.node;
    const standsFor = standInTarget(node);
    if (standsFor !== undefined) return this.deref(standsFor, seen);
    if (!isRecord(node) || typeof node.$ref !== "string") return located;
    const ref = node.$ref;
    const { $ref: _ignored, ...all } = node;
    const constraining = Object.keys(all).filter(isConstraining);
    if (constraining.length > 0 && this.siblingRule === "stop") return located;
    const siblings: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(all))
      if (!constraining.includes(k))
        Object.defineProperty(siblings, k, {
          value: v,
          enumerable: true,
          writable: true,
          configurable: true,
        });
    this.checkRemote(ref, located);
    const hash = ref.indexOf("#");
    const filePart = hash === -1 ? ref : ref.slice(0, hash);
    const pointer = hash === -1 ? "" : ref.slice(hash + 1);
    const file =
      filePart === ""
        ? located.file
        : resolve(
            dirname(located.file),
            decodeUriAt(filePart, this.display(located.file), located.pointer),
          );
    const key = `${file}#${pointer}`;
    if (seen.has(key)) {
      throw new DefinitionError(this.display(located.file), located.pointer, `cyclic $ref: ${ref}`);
    }
    const target = this.deref(this.lookup(file, pointer, located), new Set([...seen, key]));
    if (Object.keys(siblings).length === 0) return target;
    if (!isRecord(target.node))
      return target.node === false
        ? target
        : { node: siblings, file: located.file, pointer: located.pointer };
    // The merged node lives in the target's file: sibling keywords written in
    // another file keep resolving their own `$ref`s against that other file.
    const rebased =
      target.file === located.file
        ? siblings
        : rebaseRefs(siblings, located.file, {
            file: this.display(located.file),
            pointer: located.pointer,
          });
    return {
      node: { ...target.node, ...(rebased as Record<string, unknown>) },
      file: target.file,
      pointer: target.pointer,
    };
  }

  /** Only local pointers and files beside the definition are read: a URL or URN is refused. */
  private checkRemote(ref: string, from: Located): void {
    if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(ref))
      throw new DefinitionError(
        this.display(from.file),
        from.pointer,
        `\`$ref\` to ${JSON.stringify(ref)} is not supported: a reference must be a JSON pointer (#/...) or a file beside the definition, never a URL or URN`,
      );
    const hash = ref.indexOf("#");
    if (hash !== -1 && ref.length > hash + 1 && ref[hash + 1] !== "/")
      throw new DefinitionError(
        this.display(from.file),
        from.pointer,
        `\`$ref\` to ${JSON.stringify(ref)} is not supported: a fragment must be a JSON pointer (#/...), not an \`$anchor\` name`,
      );
  }

  /** The key identifying where a `$ref` points (for cycle detection while descending). */
  refKey(located: Located): string | undefined {
    const node = located.node;
    const standsFor = standInTarget(node);
    if (standsFor !== undefined) return this.refKey(standsFor);
    if (!isRecord(node) || typeof node.$ref !== "string") return undefined;
    // A `$ref` whose siblings constrain is read as an `allOf` holding the reference: no hop yet.
    if (
      this.siblingRule === "stop" &&
      Object.keys(node).some((k) => k !== "$ref" && isConstraining(k))
    )
      return undefined;
    const ref = node.$ref;
    const hash = ref.indexOf("#");
    const filePart = hash === -1 ? ref : ref.slice(0, hash);
    const file =
      filePart === ""
        ? located.file
        : resolve(
            dirname(located.file),
            decodeUriAt(filePart, this.display(located.file), located.pointer),
          );
    return `${file}#${hash === -1 ? "" : ref.slice(hash + 1)}`;
  }
}
