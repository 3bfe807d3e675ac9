// Text that came from a definition or a run (a workflow's name, a change message, a person's
// instructions) before it reaches a terminal: C0 and C1 controls, DEL and the Unicode bidi
// controls are shown as escapes, so that such text can neither drive the terminal (ANSI escapes,
// a carriage return overwriting a line) nor reorder what is shown around it (a right-to-left
// override hiding a name's real end). Only human-readable lines go through here: JSON output is
// already escaped by JSON.stringify.

/** Bidi embedding, override and isolate controls, and the implicit marks. */
const BIDI_CONTROLS = new Set([
  0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
]);

const isUnsafe = (code: number) =>
  code < 0x20 || (code >= 0x7f && code <= 0x9f) || BIDI_CONTROLS.has(code);

const escapeOf = (code: number) =>
  code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;

/**
 * `text` with every control shown as an escape (`\x1b`, `\u202e`). `keepLineBreaks` leaves `\n`
 * as a line break, for a multi-line report assembled from such text.
 */
export function printable(text: string, options: { keepLineBreaks?: boolean } = {}): string {
  let shown = "";
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === "\n" && options.keepLineBreaks) shown += char;
    else shown += isUnsafe(code) ? escapeOf(code) : char;
  }
  return shown;
}
