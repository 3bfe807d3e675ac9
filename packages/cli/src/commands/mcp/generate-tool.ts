// The `generate` tool `wfr mcp` adds: the typed code regenerated from the committed schemas, then
// the repository type-checked, so an agent sees the type errors a schema change caused.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { BackendError, registerTool, toolError } from "@wfr/mcp";
import { CODE } from "@wfr/protocol";
import { z } from "zod";
import { runGenerate } from "../../adapters/codegen.js";
import type { loadConfig } from "../../config.js";

/**
 * What `tsc --noEmit` said: its diagnostics when it ran, or why it did not. "Did not run" is
 * kept apart from "no errors": a missing or crashing tsc (or a repository without a tsconfig)
 * exits without a single `error TS` line, and reporting that as "0 type errors" would tell an
 * agent the schema change is safe when nothing was checked.
 */
export type TypeCheckOutcome =
  | { readonly ran: true; readonly ok: boolean; readonly errors: readonly string[] }
  | { readonly ran: false; readonly reason: string };

/** The last lines of what tsc printed, for the reason it did not run (bounded). */
const tail = (output: string) =>
  output.trim().split("\n").slice(-3).join(" / ").slice(0, 500) || "no output";

/** tsc --noEmit in the repository. */
export function typeCheck(root: string): Promise<TypeCheckOutcome> {
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
      resolvePromise({ ran: false, reason: `tsc could not be started: ${error.message}` }),
    );
    child.on("close", (code, signal) => {
      const errors = output.split("\n").filter((line) => /error TS\d+/.test(line));
      if (code === 0) resolvePromise({ ran: true, ok: true, errors: [] });
      // tsc exits non-zero with diagnostics when it checked; without any, it did not check.
      else if (errors.length > 0) resolvePromise({ ran: true, ok: false, errors });
      else {
        const how = signal ? `was stopped by ${signal}` : `exited with ${code}`;
        resolvePromise({
          ran: false,
          reason: `tsc ${how} without type-checking: ${tail(output)}`,
        });
      }
    });
  });
}

export function registerGenerateTool(
  server: McpServer,
  config: ReturnType<typeof loadConfig>,
): void {
  registerTool(
    server,
    "generate",
    {
      title: "Regenerate the typed code and type-check the workspace",
      description:
        "Runs `wfr generate` from the committed schemas, then `tsc --noEmit` in the repository, and reports the type errors the schemas caused (file, line, message). Writes the generated code.",
      inputSchema: {},
      outputSchema: {
        generated: z.boolean(),
        type_check_ran: z.boolean(),
        type_check_ok: z.boolean(),
        type_errors: z.array(z.string()),
        type_check_not_run_reason: z.string().optional(),
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
        const tail = log.join("").trim().split("\n").slice(-5).join("\n");
        return toolError(new BackendError(CODE.GENERATE_FAILED, tail));
      }
      const checked = await typeCheck(config.root);
      if (!checked.ran) {
        const structured = {
          generated: true,
          type_check_ran: false,
          type_check_ok: false,
          type_errors: [],
          type_check_not_run_reason: checked.reason,
        };
        const text = `Generated; the type check did not run (${checked.reason}), so nothing is known about type errors. Install TypeScript in the repository (node_modules/.bin/tsc) and call generate again.`;
        return { content: [{ type: "text", text }], structuredContent: structured };
      }
      const structured = {
        generated: true,
        type_check_ran: true,
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
