// Keys come from the environment variable the config names, --api-key-file, or
// standard input (--api-key-stdin); never a flag value (shell history, `ps`).
import { CliError } from "./cli-error.js";
import type { EnvironmentConfig } from "./config.js";
import { EXIT } from "./exit-codes.js";
import { FILE_BUDGET, readTextFileWithin } from "./file-budgets.js";

export interface KeySourceOptions {
  readonly apiKeyFile?: string;
  readonly apiKeyStdin?: boolean;
}

async function readAllStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function resolveApiKey(
  env: EnvironmentConfig,
  options: KeySourceOptions,
  processEnv: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  let key: string | undefined;
  if (options.apiKeyFile) {
    key = readTextFileWithin("--api-key-file", options.apiKeyFile, FILE_BUDGET.secret);
  } else if (options.apiKeyStdin) {
    key = await readAllStdin();
  } else {
    key = processEnv[env.apiKeyEnv];
  }
  key = key?.trim();
  if (!key)
    throw new CliError(
      `no API key for environment ${env.name}: set ${env.apiKeyEnv}, or give --api-key-file <file> or --api-key-stdin`,
      EXIT.AUTH,
    );
  return key;
}
