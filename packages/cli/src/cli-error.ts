import { WorkflowRunApiError } from "@wfr/runtime";
import { EXIT, type ExitCode } from "./exit-codes.js";

const EXIT_NAME = new Map<number, string>(Object.entries(EXIT).map(([name, code]) => [code, name]));

/**
 * An error meant for the user: printed as one line on stderr, then exit with `exitCode`. Like
 * everything a wfr package throws, a WorkflowRunApiError; its `code` names the exit code
 * (`EXIT_USAGE`, ...), its `status` is null (found by the CLI, not answered by the service).
 */
export class CliError extends WorkflowRunApiError {
  override name = "CliError";
  readonly exitCode: ExitCode;
  constructor(message: string, exitCode: ExitCode = EXIT.ERROR) {
    super({ status: null, code: `EXIT_${EXIT_NAME.get(exitCode) ?? exitCode}`, message });
    this.exitCode = exitCode;
  }
}
