// The definitions a schema carries (`$defs`, draft 4's `definitions`) are read
// only through a `$ref` to them: an unused one may hold anything, even a
// keyword wfr refuses where it is read. Only a keyword that gives a schema an
// identity is refused there, wherever it is, because it would change what a
// `$ref` elsewhere names (packages/definition-reader/README.md says why).
import { DefinitionError } from "./definition-error.js";
import { escapePointerToken } from "./json-pointer.js";
import { MAX_SCHEMA_NESTING } from "./nesting-limit.js";
import { child, isRecord, type Located } from "./ref-resolver.js";
import { usesRefusedKeyword } from "./schema-keywords.js";

/** The keywords that hold a schema's definitions. */
export const DEFINITION_CONTAINERS = ["$defs", "definitions"] as const;

/** Keywords that name a schema for references (`id` is draft 4's `$id`). */
export const IDENTITY_KEYWORDS = [
  "$id",
  "id",
  "$anchor",
  "$dynamicAnchor",
  "$recursiveAnchor",
] as const;

/**
 * Throws a `DefinitionError` naming the first identity keyword (`$id`,
 * `$anchor`, ...) in the definitions `at` carries, nested definitions
 * included; every other keyword there is left to whoever follows a `$ref`
 * to it. `draft4`: `id` is an identity (OpenAPI 3.0); in 3.1 it is a name.
 */
export function refuseIdentityInDefinitions(
  at: Located,
  display: (file: string) => string,
  draft4: boolean,
  depth = 0,
): void {
  const node = at.node;
  if (!isRecord(node) || depth > MAX_SCHEMA_NESTING) return;
  for (const container of DEFINITION_CONTAINERS) {
    const defs = node[container];
    if (!isRecord(defs)) continue;
    for (const name of Object.keys(defs)) {
      const def = child(at, container, name);
      if (isRecord(def.node))
        for (const keyword of IDENTITY_KEYWORDS)
          if ((keyword !== "id" || draft4) && usesRefusedKeyword(def.node, keyword))
            throw new DefinitionError(
              display(def.file),
              `${def.pointer}/${escapePointerToken(keyword)}`,
              `\`${keyword}\` is not supported: references are JSON pointers and files beside the definition, so a schema cannot be named by an identifier`,
            );
      refuseIdentityInDefinitions(def, display, draft4, depth + 1);
    }
  }
}
