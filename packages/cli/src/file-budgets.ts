// What a file named on the command line may cost (docs/limits.md#command-line-files): each file
// the CLI reads is refused past its budget before it is read whole, with EXIT.TOO_LARGE naming
// the flag and the file; a pipe or a device (`--response-file /dev/stdin`) is read up to the
// budget and refused at the first byte over it.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { LIMITS } from "@wfr/protocol";
import { CliError } from "./cli-error.js";
import { EXIT } from "./exit-codes.js";

const KIB = 1024;
const MIB = 1024 * KIB;

export const FILE_BUDGET = {
  /** `--inputs`: becomes a launch body, whose limit is the specification's. */
  inputs: LIMITS.launchBodyBytes,
  /** `--response-file`: an answer to a checkpoint, the emulator's human-input body budget. */
  response: 1 * MIB,
  /** `--api-key-file`, `--webhook-secret-file`, `--admin-token-file`: one secret. */
  secret: 64 * KIB,
  /** `wfr.config.json`: a handful of environments. */
  config: 1 * MIB,
} as const;

function tooLarge(flag: string, path: string, size: number | string, limit: number): CliError {
  return new CliError(
    `${flag} ${path}: ${size} bytes, over its budget of ${limit} bytes (docs/limits.md)`,
    EXIT.TOO_LARGE,
  );
}

/** The file's bytes, or a typed refusal once it holds more than `limit` bytes. */
export function readFileWithin(flag: string, path: string, limit: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    throw new CliError(`${flag} ${path}: ${(error as Error).message}`, EXIT.USAGE);
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isFile() && stat.size > limit) throw tooLarge(flag, path, stat.size, limit);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(64 * KIB, limit + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > limit) throw tooLarge(flag, path, `more than ${limit}`, limit);
      chunks.push(chunk.subarray(0, n));
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** The file's text (UTF-8), within `limit` bytes. */
export function readTextFileWithin(flag: string, path: string, limit: number): string {
  return readFileWithin(flag, path, limit).toString("utf8");
}
