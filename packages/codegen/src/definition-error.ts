/** A definition the generator cannot read: names the file and the JSON pointer of the problem. */
export class DefinitionError extends Error {
  override readonly name = "DefinitionError";
  constructor(
    /** The definition file (as given to the reader). */
    readonly file: string,
    /** JSON pointer inside that file ("" for the document root). */
    readonly pointer: string,
    readonly detail: string,
  ) {
    super(`${file}#${pointer}: ${detail}`);
  }
}
