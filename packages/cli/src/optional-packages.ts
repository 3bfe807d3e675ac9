// The emulator and the MCP server are optional peers of @wfr/cli: a project
// that only generates and launches does not install them (nor express, hono,
// ajv and the MCP SDK beneath them). A command that needs one says which
// package to add instead of failing with a module-resolution stack.
import { CliError } from "./cli-error.js";
import { EXIT } from "./exit-codes.js";
import { installCommand } from "./package-manager.js";

/** Optional peers, and the commands that load them. */
const OPTIONAL_PACKAGES: Record<string, string> = {
  "@wfr/emulator": "`wfr emulator`, `wfr runs export`, `wfr runs relaunch` against the emulator",
  "@wfr/mcp": "`wfr mcp`",
  "@modelcontextprotocol/sdk": "`wfr mcp`",
};

/** The optional package a failed import was looking for, if any. */
export function missingOptionalPackage(error: unknown): string | undefined {
  const e = error as { code?: unknown; message?: unknown };
  if (e?.code !== "ERR_MODULE_NOT_FOUND" || typeof e.message !== "string") return undefined;
  const message = e.message;
  return Object.keys(OPTIONAL_PACKAGES).find((name) =>
    message.includes(`Cannot find package '${name}'`),
  );
}

/** Rethrows a missing optional peer as a usage error naming the install command. */
export function explainMissingPackage(error: unknown, root: string): never {
  const name = missingOptionalPackage(error);
  if (name === undefined) throw error;
  const others = name === "@wfr/emulator" ? name : "@wfr/mcp @modelcontextprotocol/sdk";
  throw new CliError(
    `${OPTIONAL_PACKAGES[name]} needs ${name}, an optional peer of @wfr/cli that is not installed: run \`${installCommand(root, others, true)}\``,
    EXIT.USAGE,
  );
}
