// The launcher's progress on stderr: a line per row (or a redrawn bar on a
// terminal). Written as each row finished, that was one synchronous write to
// a pipe per row on the launcher's thread (stderr to a pipe is synchronous on
// Linux), and one read per row for whatever reads the pipe. Text gathered
// during one event-loop turn goes out in one write at the end of the turn.

export interface ProgressWriter {
  /** Appends text (a finished row's line); nothing is dropped. */
  add(text: string): void;
  /** Replaces what was set earlier in this turn (a redrawn bar: only the latest counts). */
  set(text: string): void;
  /** Writes what is pending now (before other output, and at the end). */
  flush(): void;
}

export function progressWriter(
  write: (text: string) => void,
  schedule: (flush: () => void) => void = setImmediate,
): ProgressWriter {
  let lines = "";
  let latest = "";
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const text = lines + latest;
    lines = "";
    latest = "";
    if (text !== "") write(text);
  };
  const later = () => {
    if (scheduled) return;
    scheduled = true;
    schedule(() => {
      if (scheduled) flush();
    });
  };
  return {
    add(text) {
      lines += text;
      later();
    },
    set(text) {
      latest = text;
      later();
    },
    flush,
  };
}
