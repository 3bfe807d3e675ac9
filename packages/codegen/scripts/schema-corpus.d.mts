// The types of schema-corpus.mjs, for the TypeScript tests that run it.
export interface CorpusDocument {
  readonly file: string;
  readonly doc: unknown;
}
export interface CorpusEntry {
  readonly name: string;
  readonly schema: Record<string, unknown>;
  /** Other schemas the schema refers to by file name (`base.json#/...`), placed beside the definition. */
  readonly files?: Readonly<Record<string, Record<string, unknown>>>;
  readonly valid: readonly CorpusDocument[];
  readonly invalid: readonly CorpusDocument[];
}
export interface CorpusResult {
  readonly schemas: number;
  readonly generated: number;
  /** Refusal keyword -> the schemas it refused. */
  readonly refused: Map<string, string[]>;
  readonly documents: number;
  /** Where the generated validator and Ajv disagree, outside the documented choices. */
  readonly disagreements: string[];
  /** Disagreements a documented choice explains (a required field with a saved default is optional). */
  readonly choices: string[];
  /** Documents whose listing (valid, invalid) Ajv contradicts: a corpus mistake, not the generator's. */
  readonly badDocuments: string[];
  readonly typeErrors: string[];
  readonly crashes: string[];
  readonly dir?: string;
}
export function runCorpus(
  entries: readonly CorpusEntry[],
  options?: { readonly keep?: boolean },
): Promise<CorpusResult>;
