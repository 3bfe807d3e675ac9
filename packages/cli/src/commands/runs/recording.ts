// `wfr runs recording <runId> -o <file>`: the session recording, written atomically.
import { randomBytes } from "node:crypto";
import { createWriteStream, renameSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { type Client, toCliError } from "../../adapters/runtime.js";
import { type ConnectionOptions, openConnection } from "../../connection.js";
import { EXIT } from "../../exit-codes.js";
import { terminal } from "../../terminal.js";

export async function recordingCommand(
  runId: string,
  options: ConnectionOptions & { output: string },
): Promise<number> {
  const t = terminal();
  const { client } = await openConnection(options);
  let download: Awaited<ReturnType<Client["downloadRecording"]>>;
  try {
    download = await client.downloadRecording(runId, { maxProcessingAttempts: 20 });
  } catch (error) {
    throw toCliError(error);
  }
  const tmp = join(
    dirname(options.output),
    `.${basename(options.output)}.${randomBytes(6).toString("hex")}.tmp`,
  );
  const out = createWriteStream(tmp);
  let received = 0;
  const total = download.contentLength;
  const showBar = t.fancy || process.stderr.isTTY === true;
  try {
    for await (const chunk of download.stream as unknown as AsyncIterable<Uint8Array>) {
      received += chunk.byteLength;
      if (!out.write(chunk)) await new Promise<void>((r) => out.once("drain", () => r()));
      if (showBar && total) {
        const width = 30;
        const done = Math.round((received / total) * width);
        t.stderr.write(
          `\r[${"#".repeat(done)}${" ".repeat(width - done)}] ${received}/${total} bytes`,
        );
      }
    }
    await new Promise<void>((res, rej) => out.end((e?: Error | null) => (e ? rej(e) : res())));
    renameSync(tmp, options.output);
  } catch (error) {
    out.destroy();
    rmSync(tmp, { force: true });
    throw error;
  }
  if (showBar && total) t.stderr.write("\n");
  t.stderr.write(`wfr: wrote ${options.output} (${received} bytes)\n`);
  return EXIT.OK;
}

/** `wfr runs grant <runId> --origin <o>...`: a browser-access grant; its token is printed once. */
