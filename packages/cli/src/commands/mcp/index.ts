// `wfr mcp`: the agent tools over stdio, against the environment the config
// names, with the caller's key (from the environment variable or a file, never
// argv), plus two tools that know the caller's repository: diff_schema and
// generate. stdout carries only MCP messages; everything else goes to stderr.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createWorkflowMcpServer } from "@wfr/mcp";
import { DEFINITION_FILE, DEFINITION_FILE_NAMES } from "@wfr/protocol";
import { z } from "@wfr/runtime/zod";
import { parse as parseYaml } from "yaml";
import {
  DiffDefinitionError,
  type DiffReport,
  diffDefinitionFiles,
  identifierPinFiles,
  runGenerate,
} from "../adapters/codegen.js";
import { createRuntimeBackend } from "../adapters/mcp-runtime-backend.js";
import { resolveApiKey } from "../api-key.js";
import { writeFileAtomic } from "../atomic-write.js";
import { CliError } from "../cli-error.js";
import { definitionUrlOf, loadConfig, pickEnvironment } from "../config.js";
import { formatDefinition } from "../definition-format.js";
import { EXIT } from "../exit-codes.js";

function committedDefinition(dir: string): string | undefined {
  return DEFINITION_FILE_NAMES.map((name) => join(dir, name)).find((file) => existsSync(file));
}

function parseDefinition(file: string): unknown {
  const text = readFileSync(file, "utf8");
  return file.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
}

/** tsc --noEmit in the repository; its diagnostics as lines. */
function typeCheck(root: string): Promise<{ ok: boolean; errors: string[] }> {
  return new Promise((resolvePromise) => {
    const tsc = join(root, "node_modules", ".bin", "tsc");
    const command = existsSync(tsc) ? tsc : "npx";
    const args = existsSync(tsc)
      ? ["--noEmit", "--pretty", "false"]
      : ["--no-install", "tsc", "--noEmit", "--pretty", "false"];
    const child = spawn(command, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.on("error", (error) =>
      resolvePromise({ ok: false, errors: [`tsc could not run: ${error.message}`] }),
    );
    child.on("close", (code) => {
      const errors = output.split("\n").filter((line) => /error TS\d+/.test(line));
      resolvePromise({ ok: code === 0, errors });
    });
  });
}

export async function mcpCommand(options: {
  env?: string;
  config?: string;
  apiKeyFile?: string;
}): Promise<number> {
  const config = loadConfig(process.cwd(), options.config);
  const env = pickEnvironment(config, options.env);
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
    // The CLI's own version, from its package.json (the one place changesets bumps).
    version: (createRequire(import.meta.url)("../../package.json") as { version: string }).version,
    launchedVia: "mcp:wfr-cli",
  });

  server.registerTool(
    "diff_schema",
    {
      title: "Diff the committed schema with the environment",
      description: `What changed between schemas/${env.name} (committed) and the ${env.name} environment's current definition: each change, breaking or not. Writes nothing.`,
      inputSchema: {},
      outputSchema: {
        environment: z.string(),
        identical: z.boolean(),
        breaking: z.number().int(),
        non_breaking: z.number().int(),
        changes: z.array(
          z.object({ severity: z.string(), workflow: z.string(), message: z.string() }),
        ),
      },
      annotations: {
        readOnlyHint: true,
        idempotentHint: true,
        destructiveHint: false,
        openWorldHint: true,
      },
    },
    async () => {
      const response = await fetch(definitionUrlOf(env), {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      if (!response.ok) {
        return {
          isError: true,
          content: [
            {
              type: "text",
              text: `DOWNLOAD_FAILED: HTTP ${response.status} from the definition URL`,
            },
          ],
        };
      }
      // Compared as `wfr schemas pull` would write it (formatted, stable key order).
      const body = formatDefinition(await response.text(), committed.endsWith(".json"));
      const current = readFileSync(committed, "utf8");
      if (current === body) {
        const same = {
          environment: env.name,
          identical: true,
          breaking: 0,
          non_breaking: 0,
          changes: [],
        };
        return {
          content: [{ type: "text", text: `${env.name}: up to date` }],
          structuredContent: same,
        };
      }
      const tmp = mkdtempSync(join(tmpdir(), "wfr-mcp-diff-"));
      try {
        const downloaded = join(
          tmp,
          env.name,
          committed.endsWith(".json") ? DEFINITION_FILE.json : DEFINITION_FILE.yaml,
        );
        writeFileAtomic(downloaded, body);
        let report: DiffReport;
        try {
          report = await diffDefinitionFiles(
            committed,
            downloaded,
            identifierPinFiles(config.root, config.generatedOut),
          );
        } catch (error) {
          if (!(error instanceof DiffDefinitionError)) throw error;
          return {
            isError: true,
            content: [{ type: "text", text: `DEFINITION_UNREADABLE: ${error.message}` }],
          };
        }
        const changes = report.changes.map((c) => ({
          severity: c.severity,
          workflow: c.workflowName,
          message: c.message,
        }));
        const structured = {
          environment: env.name,
          identical: false,
          breaking: report.summary.breaking,
          non_breaking: report.summary.nonBreaking,
          changes,
        };
        const lines = changes.map(
          (c) =>
            `${c.severity === "breaking" ? "BREAKING" : "non-breaking"} ${c.workflow}: ${c.message}`,
        );
        return {
          content: [
            {
              type: "text",
              text: [
                `${env.name}: ${structured.breaking} breaking, ${structured.non_breaking} non-breaking`,
                ...lines,
              ].join("\n"),
            },
          ],
          structuredContent: structured,
        };
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    },
  );

  server.registerTool(
    "generate",
    {
      title: "Regenerate the typed code and type-check the workspace",
      description:
        "Runs `wfr generate` from the committed schemas, then `tsc --noEmit` in the repository, and reports the type errors the schemas caused (file, line, message). Writes the generated code.",
      inputSchema: {},
      outputSchema: {
        generated: z.boolean(),
        type_check_ok: z.boolean(),
        type_errors: z.array(z.string()),
      },
      annotations: {
        readOnlyHint: false,
        idempotentHint: true,
        destructiveHint: false,
        openWorldHint: false,
      },
    },
    async () => {
      const log: string[] = [];
      const sink = { write: (chunk: string) => log.push(chunk) };
      let generated = false;
      try {
        await runGenerate(
          { stdout: sink, stderr: sink, cwd: config.root },
          { schemas: config.schemas, out: config.generatedOut, check: false },
        );
        generated = true;
      } catch (error) {
        log.push(error instanceof Error ? error.message : String(error));
      }
      if (!generated) {
        return {
          isError: true,
          content: [
            {
              type: "text",
              text: `GENERATE_FAILED: ${log.join("").trim().split("\n").slice(-5).join("\n")}`,
            },
          ],
        };
      }
      const checked = await typeCheck(config.root);
      const structured = {
        generated: true,
        type_check_ok: checked.ok,
        type_errors: checked.errors.slice(0, 200),
      };
      const text = checked.ok
        ? "Generated; the workspace type-checks."
        : `Generated; ${checked.errors.length} type error(s):\n${checked.errors.slice(0, 50).join("\n")}`;
      return { content: [{ type: "text", text }], structuredContent: structured };
    },
  );

  await server.connect(new StdioServerTransport());
  process.stderr.write(`wfr mcp: serving ${env.name} (${env.baseUrl}) on stdio\n`);
  // Runs until the client closes stdin.
  await new Promise<void>((resolvePromise) => process.stdin.once("close", () => resolvePromise()));
  return EXIT.OK;
}
