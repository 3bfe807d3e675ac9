// Output conventions (clig.dev): data on stdout, messages on stderr; colour and
// spinners only when stdout is a TTY, NO_COLOR is unset and TERM is not dumb.

export interface Terminal {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly stdin: NodeJS.ReadStream;
  /** Colour and escape codes are allowed. */
  readonly fancy: boolean;
  /** A live, redrawn line is allowed: stdout is a terminal that is not dumb (NO_COLOR does not matter). */
  readonly live: boolean;
  /** Prompts are allowed (stdin and stdout are TTYs and --no-input was not given). */
  readonly interactive: boolean;
}

function decorationsAllowed(env: NodeJS.ProcessEnv, stdoutIsTty: boolean): boolean {
  if (!stdoutIsTty) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.TERM === "dumb") return false;
  return true;
}

export function terminal(options: { noInput?: boolean } = {}): Terminal {
  const fancy = decorationsAllowed(process.env, process.stdout.isTTY === true);
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    fancy,
    live: process.stdout.isTTY === true && process.env.TERM !== "dumb",
    interactive:
      options.noInput !== true && process.stdin.isTTY === true && process.stdout.isTTY === true,
  };
}

export function bold(t: Terminal, text: string): string {
  return t.fancy ? `\u001b[1m${text}\u001b[22m` : text;
}

/** JSON on stdout: pretty in a TTY, one NDJSON line otherwise. */
export function writeJson(t: Terminal, value: unknown): void {
  t.stdout.write(`${t.stdout.isTTY ? JSON.stringify(value, null, 2) : JSON.stringify(value)}\n`);
}

/** One NDJSON line on stdout. */
export function writeJsonLine(t: Terminal, value: unknown): void {
  t.stdout.write(`${JSON.stringify(value)}\n`);
}
