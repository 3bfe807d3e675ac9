// Reading a batch file: CSV (RFC 4180: quoted fields, "" escapes, newlines
// inside quotes) or JSON Lines. Rows keep their number in the file for errors.

export interface Row {
  /** 1-based data row number (the CSV header is not counted). */
  readonly number: number;
  /** Column -> raw text (CSV) or JSON value (JSONL). Empty CSV cells are left out. */
  readonly cells: Readonly<Record<string, unknown>>;
  readonly fromCsv: boolean;
}

class BatchFileError extends Error {
  override readonly name = "BatchFileError";
}

export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = "";
  let record: string[] = [];
  let quoted = false;
  let i = 0;
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  while (i < body.length) {
    const c = body[i] as string;
    if (quoted) {
      if (c === '"' && body[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else field += c;
      i += 1;
      continue;
    }
    if (c === '"' && field === "") quoted = true;
    else if (c === ",") {
      record.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && body[i + 1] === "\n") i += 1;
      record.push(field);
      records.push(record);
      record = [];
      field = "";
    } else field += c;
    i += 1;
  }
  if (quoted)
    throw new BatchFileError(`CSV: a quoted field is not closed (record ${records.length + 1})`);
  if (field !== "" || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  return records.filter((r) => !(r.length === 1 && r[0] === ""));
}

export function rowsFromFile(name: string, text: string): Row[] {
  if (name.endsWith(".jsonl") || name.endsWith(".ndjson")) {
    const rows: Row[] = [];
    text.split(/\r?\n/).forEach((line, index) => {
      if (line.trim() === "") return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new BatchFileError(`${name} line ${index + 1}: not valid JSON`);
      }
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        throw new BatchFileError(`${name} line ${index + 1}: each line must be a JSON object`);
      }
      rows.push({
        number: rows.length + 1,
        cells: value as Record<string, unknown>,
        fromCsv: false,
      });
    });
    return rows;
  }
  const [header, ...records] = parseCsv(text);
  if (!header) throw new BatchFileError(`${name}: no header row`);
  const duplicate = header.find((column, i) => header.indexOf(column) !== i);
  if (duplicate !== undefined)
    throw new BatchFileError(`${name}: column ${JSON.stringify(duplicate)} appears twice`);
  return records.map((record, index) => {
    if (record.length !== header.length) {
      throw new BatchFileError(
        `${name} row ${index + 1}: ${record.length} cells, the header has ${header.length}`,
      );
    }
    const cells: Record<string, unknown> = {};
    header.forEach((column, i) => {
      if (record[i] !== "") cells[column] = record[i];
    });
    return { number: index + 1, cells, fromCsv: true };
  });
}
