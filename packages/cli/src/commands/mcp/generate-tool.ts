// The `generate` tool `wfr mcp` adds: the typed code regenerated from the committed schemas, then
// the repository type-checked, so an agent sees the type errors a schema change caused.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "@wfr/runtime/zod";
import { runGenerate } from "../../adapters/codegen.js";
import type { loadConfig } from "../../config.js";

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

export function registerGenerateTool(
  server: McpServer,
  config: ReturnType<typeof loadConfig>,
): void {
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
}
