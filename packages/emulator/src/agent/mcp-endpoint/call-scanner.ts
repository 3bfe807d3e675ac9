// What a JSON-RPC request on /mcp is, read from its bytes as they arrive, before the body is
// whole or parsed: its `method`, the tool `params.name` names, its `id`, and how many elements
// `params.arguments.inputs` and `.outputs` hold (a draft's fields). The endpoint's body budget
// depends on it (mcp-body.ts): only a `launch_run` carries files, so only it may send the launch
// body's 36 MiB, and a draft over its budget is refused without being parsed.
//
// Linear and incremental: strings are skipped with the native byte search (most of a large body
// is one string), and only the first few levels of nesting are followed; deeper levels are a
// counter, so a hostile body of brackets costs no memory here (the JSON depth limit refuses it
// later, http-kit.ts). Malformed JSON is not this scanner's to refuse: JSON.parse does, after.

/** Where a container sits: the few paths the scanner follows, or none. */
enum Path {
  Other = 0,
  Root = 1,
  Params = 2,
  Arguments = 3,
  Inputs = 4,
  Outputs = 5,
}

/** Levels followed with frames; anything deeper is only counted (the paths above are 4 deep). */
const FOLLOWED_DEPTH = 8;
/** Strings up to this long are ended by a loop, longer ones by the native byte search. */
const SHORT_STRING = 32;
/** Keys and captured values (a method, a tool name, an id) are at most this long. */
const CAPTURED_BYTES = 256;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const endsLiteral = (c: number) => c === 0x2c || c === 0x7d || c === 0x5d || isSpace(c);

/**
 * The index of the next quote from `from` in `chunk`, or -1. Most strings of a call are short
 * (keys, names): a loop finds their end faster than a call into the native search, which takes
 * over for anything longer (base64, long text).
 */
function quoteFrom(chunk: Buffer, from: number): number {
  const end = Math.min(chunk.length, from + SHORT_STRING);
  for (let at = from; at < end; at++) if (chunk[at] === 0x22) return at;
  return end === chunk.length ? -1 : chunk.indexOf(0x22, end);
}

/** The path of a container opened in a member `key` of a container at `parent`. */
function childPath(parent: Path | undefined, key: string | null, array: boolean): Path {
  if (parent === undefined) return array ? Path.Other : Path.Root;
  if (parent === Path.Root && key === "params" && !array) return Path.Params;
  if (parent === Path.Params && key === "arguments" && !array) return Path.Arguments;
  if (parent === Path.Arguments && array && key === "inputs") return Path.Inputs;
  if (parent === Path.Arguments && array && key === "outputs") return Path.Outputs;
  return Path.Other;
}

export class JsonRpcCallScanner {
  /** The last of each, as JSON.parse keeps the last of duplicated keys. */
  method: string | undefined;
  tool: string | undefined;
  id: string | number | undefined;
  inputs = 0;
  outputs = 0;

  // The open containers, one slot per level (fixed: a scan allocates nothing per element).
  private depth = 0;
  private readonly isArray = new Uint8Array(FOLLOWED_DEPTH);
  private readonly path = new Uint8Array(FOLLOWED_DEPTH);
  /** Objects: the member being read (its key), or null while the key is read or not followed. */
  private readonly key: (string | null)[] = new Array(FOLLOWED_DEPTH).fill(null);
  /** Objects: a key comes next (after `{` or `,`). */
  private readonly expectKey = new Uint8Array(FOLLOWED_DEPTH);
  /** A value comes next (after `:` in an object; after `[` or `,` in an array). */
  private readonly expectValue = new Uint8Array(FOLLOWED_DEPTH);
  /** Levels below the followed ones, only counted. */
  private deeper = 0;

  private inString = false;
  /** Backslashes that ended the previous chunk inside a string (an escape may span chunks). */
  private carriedBackslashes = 0;
  private inLiteral = false;
  /** What the open string or literal is, when it is captured: "key", or the member it sets. */
  private capture: "key" | "method" | "tool" | "id" | null = null;
  private captured: Buffer[] = [];
  private capturedBytes = 0;

  /** Whether the call is `launch_run` as far as the body has said (its method may come later). */
  get isLaunchRun(): boolean {
    return (
      this.tool === "launch_run" && (this.method === undefined || this.method === "tools/call")
    );
  }

  get fields(): number {
    return this.inputs + this.outputs;
  }

  feed(chunk: Buffer): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.inString) {
        i = this.readString(chunk, i);
        continue;
      }
      const c = chunk[i] as number;
      if (this.inLiteral) {
        if (!endsLiteral(c)) {
          this.keep(chunk, i, i + 1);
          i++;
          continue;
        }
        this.inLiteral = false;
        this.finishCapture(false);
      }
      i++;
      if (isSpace(c)) continue;
      if (this.deeper > 0) {
        if (c === 0x22) this.openString(null);
        else if (c === 0x7b || c === 0x5b) this.deeper++;
        else if (c === 0x7d || c === 0x5d) this.deeper--;
        continue;
      }
      const top = this.depth - 1;
      if (c === 0x7d || c === 0x5d) {
        if (this.depth > 0) this.depth--;
      } else if (top < 0) {
        this.valueStarts(c, chunk, i - 1);
      } else if (c === 0x2c) {
        const array = this.isArray[top] === 1;
        this.expectKey[top] = array ? 0 : 1;
        this.expectValue[top] = array ? 1 : 0;
        if (!array) this.key[top] = null;
      } else if (c === 0x3a) {
        if (this.isArray[top] === 0) this.expectValue[top] = 1;
      } else if (this.expectKey[top] === 1) {
        this.expectKey[top] = 0;
        // Only the keys of the followed objects matter; the others are skipped like any string.
        const followed = this.path[top] !== Path.Other;
        if (c === 0x22) this.openString(followed ? "key" : null);
      } else if (this.expectValue[top] === 1) {
        this.expectValue[top] = 0;
        if (this.path[top] === Path.Inputs) this.inputs++;
        else if (this.path[top] === Path.Outputs) this.outputs++;
        this.valueStarts(c, chunk, i - 1);
      }
    }
  }

  /** A value begins with byte `c` (at `at` in `chunk`) in the innermost open container, if any. */
  private valueStarts(c: number, chunk: Buffer, at: number): void {
    const top = this.depth - 1;
    const parent = top < 0 ? undefined : (this.path[top] as Path);
    const key = top < 0 ? null : this.key[top];
    if (c === 0x7b || c === 0x5b) {
      const array = c === 0x5b;
      if (this.depth >= FOLLOWED_DEPTH) {
        this.deeper++;
        return;
      }
      const path = childPath(parent, key ?? null, array);
      if (path === Path.Inputs) this.inputs = 0;
      if (path === Path.Outputs) this.outputs = 0;
      const level = this.depth++;
      this.isArray[level] = array ? 1 : 0;
      this.path[level] = path;
      this.key[level] = null;
      this.expectKey[level] = array ? 0 : 1;
      this.expectValue[level] = array ? 1 : 0;
      return;
    }
    const member =
      parent === Path.Root && (key === "method" || key === "id")
        ? key
        : parent === Path.Params && key === "name"
          ? "tool"
          : null;
    if (c === 0x22) {
      this.openString(member);
      return;
    }
    // A literal (number, true, false, null): only an id's is kept.
    this.inLiteral = true;
    this.startCapture(member === "id" ? "id" : null);
    this.keep(chunk, at, at + 1);
  }

  private startCapture(capture: JsonRpcCallScanner["capture"]): void {
    this.capture = capture;
    if (capture === null) return;
    this.captured = [];
    this.capturedBytes = 0;
  }

  private openString(capture: JsonRpcCallScanner["capture"]): void {
    this.inString = true;
    this.carriedBackslashes = 0;
    this.startCapture(capture);
  }

  /** Reads string content from `from`; where to go on in `chunk`. */
  private readString(chunk: Buffer, from: number): number {
    let segment = from;
    for (;;) {
      const quote = quoteFrom(chunk, segment);
      if (quote === -1) {
        this.keep(chunk, segment, chunk.length);
        let run = 0;
        while (chunk.length - 1 - run >= segment && chunk[chunk.length - 1 - run] === 0x5c) run++;
        this.carriedBackslashes =
          run === chunk.length - segment ? this.carriedBackslashes + run : run;
        return chunk.length;
      }
      let backslashes = 0;
      while (quote - 1 - backslashes >= segment && chunk[quote - 1 - backslashes] === 0x5c)
        backslashes++;
      if (quote - backslashes === segment) backslashes += this.carriedBackslashes;
      this.carriedBackslashes = 0;
      if (backslashes % 2 === 1) {
        // An escaped quote: part of the string.
        this.keep(chunk, segment, quote + 1);
        segment = quote + 1;
        continue;
      }
      this.keep(chunk, segment, quote);
      this.inString = false;
      this.finishCapture(true);
      return quote + 1;
    }
  }

  private keep(chunk: Buffer, from: number, to: number): void {
    if (this.capture === null || to <= from) return;
    this.capturedBytes += to - from;
    if (this.capturedBytes <= CAPTURED_BYTES) this.captured.push(chunk.subarray(from, to));
  }

  /** The string or literal just read, decoded, where it belongs. */
  private finishCapture(isString: boolean): void {
    const capture = this.capture;
    if (capture === null) return;
    this.capture = null;
    let value: unknown;
    if (this.capturedBytes <= CAPTURED_BYTES) {
      const text = Buffer.concat(this.captured).toString("utf8");
      try {
        value = JSON.parse(isString ? `"${text}"` : text);
      } catch {
        value = undefined;
      }
    }
    this.captured = [];
    if (capture === "key") {
      if (this.depth > 0) this.key[this.depth - 1] = typeof value === "string" ? value : null;
    } else if (capture === "id") {
      this.id = typeof value === "string" || typeof value === "number" ? value : undefined;
    } else {
      this[capture] = typeof value === "string" ? value : undefined;
    }
  }
}
