// The `diff_schema` tool `wfr mcp` adds: the committed definition against the environment's current
// one, compared as `wfr schemas pull` would write it. Writes nothing in the repository.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { BackendError, registerTool, toolError } from "@wfr/mcp";
import { CODE, DEFINITION_FILE, isClientErrorCode } from "@wfr/protocol";
import { z } from "zod";
import {
  DiffDefinitionError,
  type DiffReport,
  diffDefinitionFiles,
  identifierPinFiles,
} from "../../adapters/codegen.js";
import { writeFileAtomic } from "../../atomic-write.js";
import { definitionUrlOf, type EnvironmentConfig, type loadConfig } from "../../config.js";
import { formatDefinition } from "../../definition-format.js";

export function registerDiffSchemaTool(
  server: McpServer,
  context: {
    config: ReturnType<typeof loadConfig>;
    env: EnvironmentConfig;
    apiKey: string;
    /** The committed definition file of the environment. */
    committed: string;
    /** The base URL in wfr.config.json: the one `wfr schemas pull` writes into the definition. */
    configuredBaseUrl: string;
  },
): void {
  const { config, env, apiKey, committed, configuredBaseUrl } = context;
  registerTool(
    server,
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
      if (!response.ok) return toolError(await definitionDownloadError(response));
      // Compared as `wfr schemas pull` would write it (formatted, stable key order).
      const body = formatDefinition(await response.text(), {
        json: committed.endsWith(".json"),
        baseUrl: configuredBaseUrl,
      });
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
          return toolError(new BackendError(CODE.DEFINITION_INVALID, error.message));
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
}

/**
 * A refused download as an error of the one vocabulary (@wfr/protocol): the service's own code
 * when its answer names one (UNAUTHENTICATED, INSUFFICIENT_SCOPE, ...), else HTTP_ERROR with
 * the status, as the runtime reports a code-less answer.
 */
export async function definitionDownloadError(response: Response): Promise<BackendError> {
  const text = await response.text().catch(() => "");
  let code: string | undefined;
  try {
    const body = JSON.parse(text) as { code?: unknown };
    if (typeof body.code === "string" && isClientErrorCode(body.code)) code = body.code;
  } catch {
    // Not JSON (a gateway's HTML page): no code of its own.
  }
  return new BackendError(
    code ?? CODE.HTTP_ERROR,
    `the definition URL answered HTTP ${response.status}`,
    response.status,
  );
}
