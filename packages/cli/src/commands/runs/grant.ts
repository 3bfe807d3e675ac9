// `wfr runs grant <runId>` and `wfr runs revoke-grant <grantId>`: browser-access grants.
import { type Client, toCliError } from "../../adapters/runtime.js";
import { CliError } from "../../cli-error.js";
import { type ConnectionOptions, openConnection } from "../../connection.js";
import { EXIT } from "../../exit-codes.js";
import { bold, terminal, writeJson } from "../../terminal.js";

export async function grantCommand(
  runId: string,
  options: ConnectionOptions & { origin?: string[]; expiresIn?: string; json?: boolean },
): Promise<number> {
  const t = terminal();
  const origins = options.origin ?? [];
  if (origins.length === 0)
    throw new CliError(
      "give the page's exact origin with --origin https://app.example.com",
      EXIT.USAGE,
    );
  let expiresInSeconds: number | undefined;
  if (options.expiresIn !== undefined) {
    expiresInSeconds = Number(options.expiresIn);
    if (!Number.isInteger(expiresInSeconds) || expiresInSeconds < 1)
      throw new CliError(
        `--expires-in must be a whole number of seconds, not ${JSON.stringify(options.expiresIn)}`,
        EXIT.USAGE,
      );
  }
  const { client } = await openConnection(options);
  let grant: Awaited<ReturnType<Client["createBrowserAccessGrant"]>>;
  try {
    grant = await client.createBrowserAccessGrant(runId, {
      origins,
      ...(expiresInSeconds !== undefined ? { expiresInSeconds } : {}),
    });
  } catch (error) {
    throw toCliError(error);
  }
  if (options.json || !t.stdout.isTTY) writeJson(t, grant);
  else
    t.stdout.write(
      `${bold(t, "grant")} ${grant.grant_id} for ${grant.run_id}, origins ${grant.origins.join(", ")}, expires ${grant.expires_at}\n` +
        `token (shown once; give it only to the page that embeds the live view): ${grant.token}\n`,
    );
  return EXIT.OK;
}

/** `wfr runs revoke-grant <grantId>`: the live view refuses the grant's token from now on; the run goes on. */
export async function revokeGrantCommand(
  grantId: string,
  options: ConnectionOptions,
): Promise<number> {
  const { client } = await openConnection(options);
  try {
    await client.deleteBrowserAccessGrant(grantId);
  } catch (error) {
    throw toCliError(error);
  }
  terminal().stderr.write(`grant ${grantId} deleted (the run goes on)\n`);
  return EXIT.OK;
}

/** File output references in a result's outputs (objects with a download_url), depth first. */
