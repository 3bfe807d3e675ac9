/**
 * A definition that cannot be read: names the file and the JSON pointer of
 * the problem (`file#pointer: detail`), whichever reader found it.
 */
export class DefinitionError extends Error {
  override readonly name = "DefinitionError";
  constructor(
    /** The definition file, as the reader names it (relative to the schemas folder where it can). */
    readonly file: string,
    /** JSON pointer inside that file ("" for the document root). */
    readonly pointer: string,
    readonly detail: string,
  ) {
    super(`${file}#${pointer}: ${detail}`);
  }
}
