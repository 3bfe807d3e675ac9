// Prism (@stoplight/prism-cli) as a validating proxy in front of the emulator: it checks every
// answer against the definition the emulator serves and reports what does not match in its
// `sl-violations` header (with `--errors`, a violation becomes its own 500).
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { sleep } from "./support.js";

export const PRISM = fileURLToPath(new URL("../../node_modules/.bin/prism", import.meta.url));

export interface PrismProxy {
  readonly url: string;
  readonly child: ChildProcess;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

export async function startPrism(
  definition: string,
  upstream: string,
  errors: boolean,
): Promise<PrismProxy> {
  const port = await freePort();
  const args = ["proxy", "-h", "127.0.0.1", "-p", String(port), "-v", "error"];
  if (errors) args.push("--errors");
  const child = spawn(PRISM, [...args, definition, upstream], { stdio: "ignore" });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prism exited with ${child.exitCode}`);
    try {
      await fetch(`${url}/runs/probe`);
      return { url, child };
    } catch {
      await sleep(200);
    }
  }
}
