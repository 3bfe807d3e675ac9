// How a tool joins a server: the SDK lists it from its definition, and every call is answered
// here, after one check of its arguments (tools/tool-arguments.ts). The SDK's own call handler
// would answer a bad argument with its `MCP error -32602` text instead of the documented
// `CODE: message` + `Next:` (README "Tools"), so it is replaced for the whole server: tools added
// by others (`wfr mcp` adds its own) register here too, and are checked the same way.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { BackendError } from "./backend.js";
import { toolError } from "./tools/next-step.js";
import { checkedArguments, unknownTool } from "./tools/tool-arguments.js";
import type { ToolDefinition, ToolExtra, ToolWork } from "./tools/tool-context.js";

interface RegisteredTool {
  readonly arguments: z.ZodType;
  /** What a successful answer's structuredContent must match (the SDK's check, kept). */
  readonly answer: z.ZodType;
  readonly work: (args: never, extra: ToolExtra) => Promise<CallToolResult>;
}

/** Each server's tools by name: what its calls are checked against. */
const toolsOf = new WeakMap<McpServer, Map<string, RegisteredTool>>();

/**
 * Adds a tool to `server`: its arguments are checked against `definition.inputSchema`, and any
 * error, of the arguments or of the work, is a tool error with the next step (next-step.ts).
 */
export function registerTool<Shape extends z.ZodRawShape>(
  server: McpServer,
  name: string,
  definition: ToolDefinition<Shape>,
  work: ToolWork<Shape>,
): void {
  // The SDK lists the tool from this definition (and installs its call handler on the first).
  server.registerTool(name, definition, work as never);
  let tools = toolsOf.get(server);
  if (!tools) {
    const registered = new Map<string, RegisteredTool>();
    tools = registered;
    toolsOf.set(server, registered);
    server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      try {
        const tool = registered.get(request.params.name);
        if (!tool) throw unknownTool(request.params.name);
        const args = await checkedArguments(tool.arguments, request.params.arguments);
        const result = await tool.work(args as never, extra);
        // A tool's own bug, never the caller's: a short INTERNAL_ERROR, as the SDK would refuse it.
        if (
          !result.isError &&
          !(await tool.answer.safeParseAsync(result.structuredContent)).success
        )
          throw new Error(`the ${request.params.name} answer does not match its output schema`);
        return result;
      } catch (error) {
        const result = toolError(error);
        // Diagnostics for the client's log (the logging capability; at the level it set, by
        // default every level): which tool refused and the code, never arguments or values.
        const first = result.content[0];
        const line = first?.type === "text" ? first.text.split("\n")[0] : "error";
        await server.server
          .sendLoggingMessage(
            {
              level: error instanceof BackendError ? "warning" : "error",
              logger: "wfr-tools",
              data: { tool: request.params.name, error: line },
            },
            extra.sessionId,
          )
          .catch(() => undefined);
        return result;
      }
    });
  }
  tools.set(name, {
    arguments: z.object(definition.inputSchema),
    answer: z.object(definition.outputSchema),
    work,
  });
}
