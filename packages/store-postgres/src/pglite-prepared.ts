// Named prepared statements on PGlite. `PGlite.query` parses, analyses and
// plans its text on every call (an unnamed statement, in six calls into the
// WebAssembly module: parse, describe, bind, describe, execute, sync). In a
// short process, such as a batch launcher's, that PostgreSQL code runs in
// V8's baseline WebAssembly tier, where parsing and planning a journal's
// `unnest()` statement cost 2-7 ms a statement (README, "Launch journal").
// A statement prepared once per database is then bound and executed: one call
// into the module with Bind, Describe, Execute and Sync, a third of the CPU.
import { createHash } from "node:crypto";
import type { PGlite } from "@electric-sql/pglite";

interface PreparedStatement {
  readonly name: string;
  /** The parameters' type OIDs, as PostgreSQL inferred them: each value is serialized for its type. */
  readonly parameterTypes: readonly number[];
}

/** The protocol's messages and the result parser of PGlite. */
type ProtocolModule = Pick<typeof import("@electric-sql/pglite"), "protocol" | "parse">;

let protocolModule: Promise<ProtocolModule> | undefined;
/** Loaded on the first statement: `sqlClientFromPglite` is in every import of this package. */
function loadProtocol(): Promise<ProtocolModule> {
  protocolModule ??= import("@electric-sql/pglite");
  return protocolModule;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.byteLength;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/**
 * Runs fixed statement texts as named prepared statements on `db`, one
 * preparation per text for the life of the database (PGlite is one session).
 * `run` must be called where a plain `db.query` could run: it takes PGlite's
 * query lock (and, outside a transaction, the transaction lock, as
 * `db.query` does), so it never interleaves with another statement.
 */
export function preparedStatements(db: PGlite) {
  const statements = new Map<string, PreparedStatement>();

  const prepare = async (pglite: ProtocolModule, text: string): Promise<PreparedStatement> => {
    const { serialize } = pglite.protocol;
    const name = `wfr_${createHash("sha256").update(text).digest("hex").slice(0, 40)}`;
    const { messages } = await db.execProtocol(
      concat([
        serialize.parse({ name, text }),
        serialize.describe({ type: "S", name }),
        serialize.sync(),
      ]),
      { syncToFs: false },
    );
    const statement = {
      name,
      parameterTypes: pglite.parse.parseDescribeStatementResults(messages),
    };
    // Kept only once PostgreSQL accepted it: a text that failed to parse is sent again next time.
    statements.set(text, statement);
    return statement;
  };

  const execute = async <Row>(
    text: string,
    params: readonly unknown[],
    inTransaction: boolean,
  ): Promise<{ rows: Row[] }> => {
    const pglite = await loadProtocol();
    const { serialize } = pglite.protocol;
    const statement = statements.get(text) ?? (await prepare(pglite, text));
    // Serialized as `db.query` does: by the parameter's type, else as text; null stays null.
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = db.serializers[statement.parameterTypes[i] ?? 0];
      return serializer ? serializer(value) : String(value);
    });
    const { messages } = await db.execProtocol(
      concat([
        serialize.bind({ statement: statement.name, values }),
        serialize.describe({ type: "P" }),
        serialize.execute({}),
        serialize.sync(),
      ]),
      // As `db.query`: the files are synced after a statement that is its own transaction.
      { syncToFs: !inTransaction },
    );
    const [result] = pglite.parse.parseResults(messages, db.parsers);
    return { rows: (result?.rows ?? []) as Row[] };
  };

  return {
    /** Outside a transaction: waits for any transaction and statement in progress, as `db.query`. */
    query<Row>(text: string, params: readonly unknown[]): Promise<{ rows: Row[] }> {
      return db._runExclusiveTransaction(() =>
        db.runExclusive(() => execute<Row>(text, params, false)),
      );
    },
    /** Inside `db.transaction` (which holds the transaction lock): as its `tx.query`. */
    queryInTransaction<Row>(text: string, params: readonly unknown[]): Promise<{ rows: Row[] }> {
      return db.runExclusive(() => execute<Row>(text, params, true));
    },
  };
}
