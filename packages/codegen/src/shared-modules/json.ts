// Copied into every generated package as `_shared/json` (compiled: `.js` and `.d.ts`).

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonArray | JsonObject;
/** A JSON object. */
export interface JsonObject {
  [key: string]: JsonValue;
}
/** A JSON array. */
export type JsonArray = JsonValue[];
