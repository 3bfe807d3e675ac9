// A workflow's name is text from the environment: `wfr schemas pull --check` shows its control
// characters and bidi overrides as escapes, never raw on the terminal.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../../src/exit-codes.js";
import { adminPost, usePulledFixture } from "../../harness.js";

const fx = usePulledFixture();

/** A draft saved by an agent on the emulator's /mcp endpoint, with the name given. */
async function saveDraft(name: string): Promise<void> {
  const { token } = await adminPost(fx.emulator, "/personal-access-tokens", {
    environment: "production",
  });
  const client = new Client({ name: "hostile-agent", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${fx.emulator.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  try {
    const saved = await client.callTool({
      name: "save_workflow",
      arguments: { name, inputs: [], outputs: [] },
    });
    expect(saved.isError, JSON.stringify(saved.content)).toBeFalsy();
  } finally {
    await client.close();
  }
}

describe("schemas pull --check with a hostile workflow name", () => {
  it("shows C0/C1 controls and bidi overrides as escapes", async () => {
    await saveDraft("Evil\u001b[2J\u001b]0;pwned\u0007\r\u009b31m\u202egnp.exe");
    const r = await fx.wfr(["schemas", "pull", "--check"]);
    expect(r.code, r.stdout + r.stderr).toBe(EXIT.DRIFT_NON_BREAKING);
    // Nothing but line breaks among the controls reaches the terminal.
    for (const char of r.stdout + r.stderr) {
      const code = char.codePointAt(0) ?? 0;
      if (char === "\n") continue;
      expect(code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x202e).toBe(false);
    }
    expect(r.stdout).toContain("Evil\\x1b[2J\\x1b]0;pwned\\x07\\x0d\\x9b31m\\u202egnp.exe");
  });
});
