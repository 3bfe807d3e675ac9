// `wfr mcp`: the agent tools over stdio, against the environment the config
// names, with the caller's key (from the environment variable or a file, never
// argv), plus two tools that know the caller's repository: diff_schema and
// generate. stdout carries only MCP messages; everything else goes to stderr.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { yamlLibrary } from "@wfr/definition-reader";
import { createWorkflowMcpServer } from "@wfr/mcp";
import { DEFINITION_FILE_NAMES } from "@wfr/protocol";
import { createRuntimeBackend } from "../../adapters/mcp-runtime-backend.js";
import { resolveApiKey } from "../../api-key.js";
import { CliError } from "../../cli-error.js";
import { connectionOf, loadConfig, pickEnvironment } from "../../config.js";
import { EXIT } from "../../exit-codes.js";
import { VERSION } from "../../version.js";
import { registerDiffSchemaTool } from "./diff-schema-tool.js";
import { registerGenerateTool } from "./generate-tool.js";

function committedDefinition(dir: string): string | undefined {
  return DEFINITION_FILE_NAMES.map((name) => join(dir, name)).find((file) => existsSync(file));
}

function parseDefinition(file: string): unknown {
  const text = readFileSync(file, "utf8");
  return file.endsWith(".json") ? JSON.parse(text) : yamlLibrary().parse(text);
}

export async function mcpCommand(options: {
  env?: string;
  config?: string;
  apiKeyFile?: string;
}): Promise<number> {
  const config = loadConfig(process.cwd(), options.config);
  const configured = pickEnvironment(config, options.env);
  const env = connectionOf(configured);
  // Standard input is the MCP transport: the key comes from the variable or a file only.
  const apiKey = await resolveApiKey(env, {
    ...(options.apiKeyFile ? { apiKeyFile: options.apiKeyFile } : {}),
  });
  const schemasDir = resolve(config.root, config.schemas, env.name);
  const committed = committedDefinition(schemasDir);
  if (!committed)
    throw new CliError(
      `${env.name}: no definition in ${schemasDir}: run \`wfr schemas pull ${env.name}\``,
      EXIT.USAGE,
    );
  const backend = createRuntimeBackend({
    environment: env.name,
    baseUrl: env.baseUrl,
    apiKey,
    definition: parseDefinition(committed),
  });
  const server: McpServer = createWorkflowMcpServer(backend, {
    name: "wfr",
    version: VERSION,
  });

  registerDiffSchemaTool(server, {
    config,
    env,
    apiKey,
    committed,
    configuredBaseUrl: configured.baseUrl,
  });
  registerGenerateTool(server, config);

  await server.connect(new StdioServerTransport());
  process.stderr.write(`wfr mcp: serving ${env.name} (${env.baseUrl}) on stdio\n`);
  // Runs until the client closes stdin.
  await new Promise<void>((resolvePromise) => process.stdin.once("close", () => resolvePromise()));
  return EXIT.OK;
}
