// `wfr callbacks listen`: a local receiver that prints each delivery (type,
// run, event_id), its signature verdict and its dedupe verdict, and can
// forward it to the developer's own server.
import { createServer, type IncomingMessage } from "node:http";
import { CliError } from "../../cli-error.js";
import { EXIT } from "../../exit-codes.js";
import { FILE_BUDGET, readTextFileWithin } from "../../file-budgets.js";
import { terminal, writeJsonLine } from "../../terminal.js";
import { verifyWebhookSignature } from "../../webhook-signature.js";

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolveBody(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

const header = (req: IncomingMessage, name: string) => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

export async function callbacksListenCommand(options: {
  port: string;
  host: string;
  forwardTo?: string;
  webhookSecretFile?: string;
  json?: boolean;
}): Promise<number> {
  const t = terminal();
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new CliError(`--port: bad port ${options.port}`, EXIT.USAGE);
  const secret = options.webhookSecretFile
    ? readTextFileWithin(
        "--webhook-secret-file",
        options.webhookSecretFile,
        FILE_BUDGET.secret,
      ).trim()
    : undefined;
  const seen = new Set<string>();
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    let parsed: { type?: string; event_id?: string; run?: { run_id?: string } } = {};
    try {
      parsed = JSON.parse(body);
    } catch {
      // reported below as a delivery without type/run
    }
    const signature = await verifyWebhookSignature(
      secret,
      {
        id: header(req, "webhook-id"),
        timestamp: header(req, "webhook-timestamp"),
        signature: header(req, "webhook-signature"),
      },
      body,
    );
    const eventId = parsed.event_id ?? header(req, "webhook-id") ?? "";
    const dedupe = eventId && seen.has(eventId) ? "duplicate" : "first";
    if (eventId) seen.add(eventId);
    // A delivery this listener refuses (401) is not passed on: the developer's server would
    // otherwise act on what the signature check has just rejected.
    const rejected = signature === "invalid" || signature === "unsigned";
    let forwarded: number | string | undefined;
    if (options.forwardTo && rejected) forwarded = `not forwarded: signature ${signature}`;
    else if (options.forwardTo) {
      try {
        const headers: Record<string, string> = { "content-type": "application/json" };
        for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
          const v = header(req, name);
          if (v) headers[name] = v;
        }
        const answer = await fetch(options.forwardTo, { method: "POST", headers, body });
        forwarded = answer.status;
      } catch (error) {
        forwarded = `error: ${(error as Error).message}`;
      }
    }
    const line = {
      type: parsed.type ?? null,
      run_id: parsed.run?.run_id ?? null,
      event_id: eventId || null,
      signature,
      dedupe,
      ...(forwarded !== undefined ? { forwarded } : {}),
    };
    if (options.json || !t.stdout.isTTY) writeJsonLine(t, line);
    else
      t.stdout.write(
        `${line.type} run=${line.run_id} event=${line.event_id} signature=${signature} ${dedupe}${forwarded !== undefined ? ` forwarded=${forwarded}` : ""}\n`,
      );
    res.writeHead(rejected ? 401 : 200, {
      "content-type": "application/json",
    });
    res.end(JSON.stringify({ received: true, duplicate: dedupe === "duplicate" }));
  });
  await new Promise<void>((ready, fail) => {
    server.once("error", fail);
    server.listen(port, options.host, () => ready());
  });
  const address = server.address();
  const actual = typeof address === "object" && address ? address.port : port;
  t.stderr.write(`wfr: listening for callbacks on http://${options.host}:${actual}/\n`);
  await new Promise<void>((stop) => {
    process.once("SIGINT", () => stop());
    process.once("SIGTERM", () => stop());
  });
  await new Promise<void>((closed) => server.close(() => closed()));
  return EXIT.OK;
}
