import { connect } from "./adapters/runtime.js";
import { type KeySourceOptions, resolveApiKey } from "./api-key.js";
import {
  connectionOf,
  type EnvironmentConfig,
  type LoadedConfig,
  loadConfig,
  pickEnvironment,
} from "./config.js";

export interface ConnectionOptions extends KeySourceOptions {
  readonly env?: string;
  readonly config?: string;
}

/** Config, environment and a client; the key is read here and never printed. */
export async function openConnection(options: ConnectionOptions): Promise<{
  config: LoadedConfig;
  env: EnvironmentConfig;
  client: ReturnType<typeof connect>;
}> {
  const config = loadConfig(process.cwd(), options.config);
  const env = connectionOf(pickEnvironment(config, options.env));
  const apiKey = await resolveApiKey(env, options);
  return { config, env, client: connect(env.baseUrl, apiKey) };
}
