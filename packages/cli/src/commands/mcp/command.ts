// `wfr mcp`: its options, help and examples; the action is imported when the command runs.
import type { Command } from "commander";
import { lazyAction } from "../../lazy-action.js";

export function defineMcpCommand(program: Command): void {
  program
    .command("mcp")
    .description("serve the agent (MCP) tools on stdio for a coding agent in this repository")
    .option("--env <name>", "environment from the config file")
    .option("--config <file>", "config file (default: wfr.config.json, searched upwards)")
    .option("--api-key-file <file>", "read the key from this file (stdin is the MCP channel)")
    .addHelpText(
      "after",
      '\nExamples:\n  wfr mcp --env production\n\nClient configuration:\n  { "mcpServers": { "wfr": { "command": "npm", "args": ["exec", "--no", "--prefix", "<repository>", "--", "wfr", "mcp", "--config", "<repository>/wfr.config.json", "--env", "production"] } } }',
    )
    .action(
      lazyAction(
        () => import("./index.js"),
        (m) => m.mcpCommand,
      ),
    );
}
