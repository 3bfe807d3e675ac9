import { EXIT, type ExitCode } from "./exit-codes.js";

/** An error meant for the user: printed as one line on stderr, then exit with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.ERROR,
  ) {
    super(message);
    this.name = "CliError";
  }
}
