// The service the apps call: the emulator (in this process), with the sample workflow the
// README's app launches succeeding, as the sample catalog has it or after a one-field graph edit
// (its input `ticket_url` renamed `ticket_link`).
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** The graph edit: the input `ticket_url` of the README's workflow renamed `ticket_link`. */
export function renameTicketUrl(wf) {
  const props = wf.inputs.properties;
  wf.inputs.properties = Object.fromEntries(
    Object.entries(props).map(([k, v]) => [k === "ticket_url" ? "ticket_link" : k, v]),
  );
  wf.inputs.required = wf.inputs.required.map((r) => (r === "ticket_url" ? "ticket_link" : r));
  wf.example.inputs = { ticket_link: wf.example.inputs.ticket_url };
}

/**
 * Starts emulators of the sample catalog for `root` (the repository): `start(file, edit, port)`
 * writes the catalog to `file` (after `edit` of the README's workflow) and serves it on `port`
 * (0: a free one).
 */
export async function emulators(root) {
  const emulatorDir = join(root, "packages", "emulator");
  const YAML = createRequire(join(emulatorDir, "package.json"))("yaml");
  const { startEmulator } = await import(pathToFileURL(join(emulatorDir, "dist", "index.js")).href);
  const sample = readFileSync(join(emulatorDir, "fixtures", "sample-catalog.yaml"), "utf8");
  return (file, edit, port = 0) => {
    const catalog = YAML.parse(sample);
    const wf = catalog.environments.production.workflows.find((w) => w.id === "wf_P0ZrTt55");
    wf.scenario = {
      session: "browser",
      steps: [
        { succeed: { outputs: { drafted_message: "Thanks, we are on it.", confidence: 0.9 } } },
      ],
    };
    edit?.(wf);
    writeFileSync(file, YAML.stringify(catalog));
    return startEmulator({ port, catalog: file });
  };
}

/** A key of the emulator's `production` environment that may launch and read runs. */
export async function newKey(emulator) {
  const request = () =>
    fetch(`${emulator.url}/_emulator/keys`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ environment: "production", scopes: ["workflows:run", "runs:read"] }),
    });
  let r;
  try {
    r = await request();
  } catch (error) {
    // After a restart on the same port, fetch may reuse a pooled socket the stopped emulator
    // closed; that request never reached the new one, so sending it again is safe.
    if (error?.cause?.code !== "UND_ERR_SOCKET") throw error;
    r = await request();
  }
  return String((await r.json()).token);
}
