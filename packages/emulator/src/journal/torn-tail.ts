// What a torn last line of the journal was, for the message that says it was dropped: the kind of
// record and the object it was about (read from the cut text, which no longer parses), and
// whether it had been acknowledged.
//
// A compacted journal (on start or in the background) begins with a fixed-width header line,
// `{"t":"compacted","bytes":N}`, N being the snapshot's length including the header: every line
// inside those N bytes is state that answers had already shown before the compaction, so a torn
// line there is damage to acknowledged data, never a crash artefact. A line after them is an
// append: a crash that cut it did so before its batch's fsync returned, and no answer waits for
// less (journal.ts), so nobody had been told about it.

export const COMPACTED = "compacted";
export interface SnapshotHeader {
  bytes: number;
}

const WIDTH = 20;

/** The header line, always the same length so it can be written first and filled in last. */
export function compactedHeader(bytes: number): string {
  return `{"t":"${COMPACTED}","bytes":${String(bytes).padEnd(WIDTH, " ")}}\n`;
}

function field(text: string, name: string): string | undefined {
  return new RegExp(`"${name}":"([^"\\\\]{1,200})"`).exec(text)?.[1];
}

/** The record's kind and the run, callback or other object it names, as far as the cut text shows. */
export function describeRecord(text: string): string {
  const kind = field(text, "t");
  const about =
    (["run_id", "event_id", "grant_id", "id", "token_sha256"] as const)
      .map((name) => {
        const v = field(text, name);
        return v === undefined ? undefined : `${name} ${v}`;
      })
      .find((v) => v !== undefined) ?? undefined;
  if (kind === undefined) return "a record whose kind the cut text does not show";
  return about === undefined ? `a \`${kind}\` record` : `a \`${kind}\` record (${about})`;
}

/**
 * The message's tail: which record was dropped, and whether it had been acknowledged, from where
 * the torn line began (`offset`) and the file's header (null: a journal never compacted by this
 * version, where that cannot be told).
 */
export function describeTornTail(
  text: string,
  offset: number,
  header: SnapshotHeader | null,
): string {
  const what = describeRecord(text);
  if (header !== null && offset < header.bytes)
    return `${what}, written by the last compaction: it HAD been acknowledged (answers had shown it before the compaction), so this is damage to the file, not an interrupted write, and that state is lost`;
  if (header !== null)
    return `${what}, appended after the last compaction by a write a crash interrupted: it had not been acknowledged (an answer waits for its record's fsync)`;
  return `${what}; the journal has no compaction header, so whether it had been acknowledged cannot be told (a write a crash interrupted never was)`;
}
