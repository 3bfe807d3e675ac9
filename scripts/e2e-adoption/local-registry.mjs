// A registry of the team's own: Verdaccio on loopback, serving the packed @wfr packages by name,
// so that an install reads the published dependency ranges, peer dependencies and bins as a
// team's does. Only the @wfr scope is served here; every other package comes from the registry
// npm is configured with, as it does for a team whose private scope has a registry of its own.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { basename, dirname, join } from "node:path";
import { gunzipSync } from "node:zlib";

const require = createRequire(import.meta.url);

/** A free port on loopback (Verdaccio takes its address on the command line). */
function freePort() {
  return new Promise((done, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/**
 * Starts Verdaccio in `dir` (storage, users, config, log); resolves once it answers its ping.
 * `url` ends with "/"; `token` may publish; `close()` stops it.
 */
export async function startLocalRegistry(dir) {
  mkdirSync(join(dir, "storage"), { recursive: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const config = join(dir, "config.yaml");
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(join(dir, "storage"))}`,
      "auth:",
      "  htpasswd:",
      `    file: ${JSON.stringify(join(dir, "htpasswd"))}`,
      "    max_users: 1",
      // No uplinks: nothing this registry serves comes from off the machine.
      "uplinks: {}",
      "packages:",
      '  "@wfr/*":',
      "    access: $all",
      "    publish: $authenticated",
      "    unpublish: $authenticated",
      "server:",
      "  keepAliveTimeout: 60",
      "security:",
      "  api:",
      "    legacy: true",
      "web:",
      "  enable: false",
      `log: { type: file, path: ${JSON.stringify(join(dir, "verdaccio.log"))}, level: warn }`,
      "",
    ].join("\n"),
  );
  const bin = join(dirname(require.resolve("verdaccio/package.json")), "bin", "verdaccio");
  const child = spawn(
    process.execPath,
    [bin, "--config", config, "--listen", `127.0.0.1:${port}`],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout.on("data", (c) => (output += c));
  child.stderr.on("data", (c) => (output += c));
  const exited = new Promise((done) => child.once("exit", done));
  // A test that fails stops this process at once: the registry goes with it, never left running.
  const stopWithUs = () => {
    if (child.exitCode === null) child.kill("SIGKILL");
  };
  process.once("exit", stopWithUs);
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`Verdaccio exited ${child.exitCode}:\n${output}`);
    try {
      const ping = await fetch(`${url}-/ping`);
      if (ping.ok) break;
    } catch {}
    if (attempt > 600) throw new Error(`Verdaccio did not answer at ${url}:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  // The one publisher: Verdaccio's htpasswd plugin signs the user up and answers a token.
  const signUp = await fetch(`${url}-/user/org.couchdb.user:wfr-release`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "wfr-release", password: `local-${port}-${Date.now()}` }),
  });
  const { token } = await signUp.json();
  if (!signUp.ok || typeof token !== "string")
    throw new Error(`Verdaccio refused the publisher: HTTP ${signUp.status}`);
  return {
    url,
    token,
    /** Publishes a packed tarball as `npm publish <file>` does (one PUT), without an npm process. */
    publish: (file) => publishTarball(url, token, file),
    /** The `.npmrc` lines a team writes: the scope's registry. */
    scopeNpmrc: `@wfr:registry=${url}\n`,
    async close() {
      process.removeListener("exit", stopWithUs);
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** `package/package.json` of a packed tarball (ustar: 512-byte headers, sizes in octal). */
export function manifestOf(tgz) {
  const tar = gunzipSync(tgz);
  for (let at = 0; at + 512 <= tar.length; ) {
    const name = tar
      .subarray(at, at + 100)
      .toString("utf8")
      .replace(/\0.*$/s, "");
    if (name === "") break;
    const size = Number.parseInt(
      tar
        .subarray(at + 124, at + 136)
        .toString("utf8")
        .trim(),
      8,
    );
    if (name === "package/package.json")
      return JSON.parse(tar.subarray(at + 512, at + 512 + size).toString("utf8"));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error(`${basename(String(tgz))}: no package/package.json in the tarball`);
}

/**
 * The request `npm publish <tarball>` sends (libnpmpublish: the manifest as the version's
 * document, the tarball as a base64 attachment), made here: ten npm processes cost the adoption
 * test about 14 CPU-seconds, and what is under test is the install by name, not npm's upload.
 */
async function publishTarball(url, token, file) {
  const tgz = readFileSync(file);
  const manifest = manifestOf(tgz);
  const { name, version } = manifest;
  const attachment = `${name}-${version}.tgz`;
  const body = {
    _id: name,
    name,
    description: manifest.description,
    "dist-tags": { latest: version },
    versions: {
      [version]: {
        ...manifest,
        _id: `${name}@${version}`,
        dist: {
          shasum: createHash("sha1").update(tgz).digest("hex"),
          integrity: `sha512-${createHash("sha512").update(tgz).digest("base64")}`,
          tarball: `${url}${name}/-/${attachment}`,
        },
      },
    },
    access: "public",
    _attachments: {
      [attachment]: {
        content_type: "application/octet-stream",
        data: tgz.toString("base64"),
        length: tgz.length,
      },
    },
  };
  const response = await fetch(`${url}${name.replace("/", "%2f")}`, {
    method: "PUT",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  if (!response.ok)
    throw new Error(
      `publishing ${name}@${version}: HTTP ${response.status} ${await response.text()}`,
    );
}
