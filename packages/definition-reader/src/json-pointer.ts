// JSON pointers (RFC 6901), the one decoding every reader of a definition
// uses: in a `$ref`, a pointer is the fragment of a URI reference, so it is
// percent-decoded first (RFC 3986) and its `~1` / `~0` escapes are read
// after (RFC 6901 section 6); `~1` before `~0`, so `~01` is `~1`.

/** Why a pointer or fragment could not be read. */
export class JsonPointerError extends Error {
  override readonly name = "JsonPointerError";
}

/** The reference tokens of a JSON pointer string (`""` is the whole document). */
export function parseJsonPointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/"))
    throw new JsonPointerError(
      `${JSON.stringify(pointer)} is not a JSON pointer (it must start with "/")`,
    );
  return pointer
    .slice(1)
    .split("/")
    .map((token) => {
      if (/~[^01]|~$/.test(token))
        throw new JsonPointerError(
          `${JSON.stringify(pointer)} is not a JSON pointer ("~" must be followed by 0 or 1)`,
        );
      return token.replace(/~1/g, "/").replace(/~0/g, "~");
    });
}

/** One reference token, escaped for a pointer (`~` as `~0`, `/` as `~1`). */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** A JSON pointer string from reference tokens. */
export function formatJsonPointer(tokens: readonly (string | number)[]): string {
  return tokens.map((t) => `/${escapePointerToken(String(t))}`).join("");
}

/**
 * The reference tokens of a URI fragment holding a JSON pointer (`$ref`'s
 * part after `#`, without the `#`): percent-decoded, then read as a pointer.
 */
export function parseFragmentPointer(fragment: string): string[] {
  let pointer: string;
  try {
    pointer = decodeURIComponent(fragment);
  } catch {
    throw new JsonPointerError(
      `${JSON.stringify(fragment)} is not valid percent-encoding (a "%" must be followed by two hex digits of UTF-8)`,
    );
  }
  return parseJsonPointer(pointer);
}

/**
 * The value a pointer's tokens lead to, through own properties only (a
 * token such as `__proto__` or `constructor` is a key like any other), or
 * `undefined` when there is none. Array indexes are decimal, without
 * leading zeros.
 */
export function resolveJsonPointer(document: unknown, tokens: readonly string[]): unknown {
  let node = document;
  for (const token of tokens) {
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      node = node[Number(token)];
    } else if (node !== null && typeof node === "object" && Object.hasOwn(node, token)) {
      node = (node as Record<string, unknown>)[token];
    } else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}
