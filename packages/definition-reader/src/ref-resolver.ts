// `$ref` resolution over one definition file and its siblings: local
// pointers (`#/components/schemas/X`), relative files (`common.yaml`,
// `./shared/types.json#/FileReference`), `$ref` with sibling keywords
// (merged over the target), and cycles (reported, never followed forever).
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { DefinitionError } from "./definition-error.js";
import {
  escapePointerToken as escapePointer,
  JsonPointerError,
  parseFragmentPointer,
  resolveJsonPointer,
} from "./json-pointer.js";
import { MAX_SCHEMA_NESTING, nestingLimitDetail } from "./nesting-limit.js";
import { parseDocument } from "./parse-document.js";
import { isConstraining } from "./schema-keywords.js";

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
  constructor(
    /** How files are named in errors (relative to the schemas folder). */
    private readonly displayName: (absoluteFile: string) => string = (file) => file,
    /** Reads a referenced file beside the definition (tests and in-memory callers replace it). */
    private readonly readText: (absoluteFile: string) => string = (file) =>
      readFileSync(file, "utf8"),
  ) {}

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
      text = this.readText(file);
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
    if (pointer === "" || pointer === "/") {
      // `#` in a definition is the OpenAPI document, not a schema (JSON Schema's "the root schema"
      // has no meaning inside OpenAPI): read as a schema it would accept any JSON value.
      if (isRecord(doc) && typeof doc.openapi === "string")
        throw new DefinitionError(
          this.display(from.file),
          from.pointer,
          `\`$ref\` to ${JSON.stringify(`${file === from.file ? "" : this.display(file)}#${pointer}`)} points at the whole OpenAPI document, which is not a schema; point at a schema in it (#/components/schemas/...)`,
        );
      return { node: doc, file, pointer: "" };
    }
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
    if (seen.size >= MAX_SCHEMA_NESTING)
      throw new DefinitionError(
        this.display(located.file),
        located.pointer,
        nestingLimitDetail("this chain of `$ref`s to `$ref`s"),
      );
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

  /**
   * One hop of a `$ref`, whatever stands beside it: where it points (`key`,
   * the same string `refKey` gives, for cycle detection) and the node there.
   */
  refTarget(located: Located): { readonly key: string; readonly target: Located } {
    const node = located.node;
    if (!isRecord(node) || typeof node.$ref !== "string")
      throw new TypeError("refTarget: the node has no $ref");
    const ref = node.$ref;
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
    return { key: `${file}#${pointer}`, target: this.lookup(file, pointer, located) };
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
