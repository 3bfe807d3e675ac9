// The toolchain matrix: the README's app with each package manager a team may use, installed by
// name from the local registry, as a CommonJS package (what `npm init -y` writes) and then as an
// ES module package; and the app under Deno with no permission but the network.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { check, log, sh } from "./shell.mjs";
import { OLDEST_TYPESCRIPT } from "./toolchains.mjs";

/** Sets the app's package type: "commonjs" (npm init's) or "module". */
export function setPackageType(dir, type) {
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ ...pkg, type }, null, 2)}\n`);
}

/**
 * Each package manager: the files a team writes to reach the scope's registry, how it adds
 * packages, runs a bin of the app's, and runs the built app.
 */
export function packageManagers({ bins, versions, registry, scopeRegistry, cache, work, caFile }) {
  const yarnrc = (linker) =>
    [
      // The certificate authorities npm trusts (a proxy's, behind one): Yarn reads npm's
      // configuration for none of it, nor NODE_EXTRA_CA_CERTS where a task runner drops it.
      ...(caFile ? [`httpsCaFilePath: ${JSON.stringify(caFile)}`] : []),
      `nodeLinker: ${linker}`,
      `npmRegistryServer: ${JSON.stringify(registry)}`,
      "npmScopes:",
      "  wfr:",
      `    npmRegistryServer: ${JSON.stringify(scopeRegistry)}`,
      'unsafeHttpWhitelist: ["127.0.0.1"]',
      // Yarn quarantines versions younger than its age gate; a team's own scope, published a
      // minute ago, is what it pre-approves.
      'npmPreapprovedPackages: ["@wfr/*"]',
      `cacheFolder: ${JSON.stringify(join(cache, "yarn-berry-cache"))}`,
      // Yarn keeps registry metadata in its global folder: one a run, or the @wfr packages of a
      // run before (another port, other contents) would be reused.
      `globalFolder: ${JSON.stringify(join(work, "yarn-global"))}`,
      "enableGlobalCache: false",
      "enableTelemetry: false",
      // CI=true would make every install immutable; the test adds packages on purpose.
      "enableImmutableInstalls: false",
      "enableProgressBars: false",
      "",
    ].join("\n");
  const yarn = (linker) => ({
    label: `Yarn ${versions.yarn} (${linker === "pnp" ? "Plug'n'Play, its default" : "nodeLinker: node-modules"})`,
    setup(dir) {
      writeFileSync(join(dir, ".yarnrc.yml"), yarnrc(linker));
      writeFileSync(join(dir, "yarn.lock"), "");
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      pkg.packageManager = `yarn@${versions.yarn}`;
      writeFileSync(join(dir, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
    },
    add: (packages) => `${bins.yarn} add ${packages}`,
    exec: (command) => `${bins.yarn} ${command}`,
    // Under Plug'n'Play there is no node_modules: `yarn node` loads the resolver.
    node: (file) => (linker === "pnp" ? `${bins.yarn} node ${file}` : `node ${file}`),
    header: "yarn generate",
  });
  return {
    pnpm: {
      label: `pnpm ${versions.pnpm} (strict layout)`,
      setup(dir) {
        writeFileSync(join(dir, ".npmrc"), `@wfr:registry=${scopeRegistry}\n`);
      },
      add: (packages) =>
        `${bins.pnpm} add ${packages} --store-dir ${join(cache, "pnpm-store")} --prefer-offline --reporter=silent`,
      exec: (command) => `${bins.pnpm} exec ${command}`,
      node: (file) => `node ${file}`,
      header: "pnpm generate",
      afterInstall: (dir) =>
        check(
          !existsSync(join(dir, "node_modules", "zod")),
          "pnpm's strict layout gave the app a zod",
        ),
    },
    "yarn-pnp": {
      ...yarn("pnp"),
      // What a user meets, listed in the README's "Toolchains" table; the pass fails when either
      // starts to work, so that the table is corrected.
      unsupported: {
        // TypeScript 7's native compiler has no Plug'n'Play resolver (Yarn patches TypeScript 5's).
        typescriptLatest: /error TS2688: Cannot find type definition file for 'node'/,
        // Node 20's require() of an ES module resolves that module's imports without the loader
        // hook Plug'n'Play registers.
        commonjs: /ERR_MODULE_NOT_FOUND[\s\S]*Cannot find package '@wfr\/protocol'/,
      },
    },
    "yarn-node-modules": yarn("node-modules"),
    bun: {
      label: `Bun ${versions.bun} (bun install, the app run by Bun)`,
      setup(dir) {
        writeFileSync(
          join(dir, "bunfig.toml"),
          `[install]\nregistry = ${JSON.stringify(registry)}\ncache = ${JSON.stringify(join(work, "bun-cache"))}\n\n[install.scopes]\n"@wfr" = ${JSON.stringify(scopeRegistry)}\n`,
        );
      },
      add: (packages) => `${bins.bun} add ${packages}`,
      exec: (command) => `${bins.bun} run ${command}`,
      node: (file) => `${bins.bun} ${file}`,
    },
  };
}

/**
 * One pass with a package manager: the `package.json` `npm init -y` wrote for the npm app (named
 * after this app's folder: an npm process less a pass), the scope's registry, the README's
 * installs by name, `wfr init` (its tsconfig), pull, generate, the README's app (against the
 * edited service, whose input is `ticket_link`), then `tsc` and a run as CommonJS and again as an
 * ES module. Resolves to the app's folder.
 */
export async function managerPass(name, manager, { work, app, emulatorUrl, env, packageJson }) {
  const dir = join(work, `${name}-app`);
  // Behind the npm app's steps for a slot (shell.mjs): theirs is the longest chain.
  const step = (line, e, options) => sh(dir, line, e, { ...options, behind: true });
  mkdirSync(dir);
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ ...packageJson, name: `${name}-app` }, null, 2)}\n`,
  );
  manager.setup(dir);
  await step(manager.add("@wfr/runtime"));
  await step(manager.add("-D @wfr/cli typescript @types/node"));
  manager.afterInstall?.(dir);
  await step(
    manager.exec(`wfr init --yes --env production --base-url ${emulatorUrl}/production/api/v1`),
  );
  check(existsSync(join(dir, "tsconfig.json")), `wfr init wrote no tsconfig.json with ${name}`);
  await step(manager.exec("wfr schemas pull"), env);
  const generated = await step(manager.exec("wfr generate"), env);
  if (manager.header)
    check(
      readFileSync(join(dir, "wfr-generated", "production", "index.js"), "utf8").includes(
        `run \`${manager.header}\``,
      ),
      `the generated header does not name \`${manager.header}\` in a ${name} project`,
    );
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(join(dir, "src", "app.ts"), app.replaceAll("ticket_url", "ticket_link"));
  const ran = [];
  const unsupported = [];
  const known = manager.unsupported ?? {};
  if (known.typescriptLatest) {
    const tsc = await step(manager.exec("tsc"), env, { expect: null });
    check(
      tsc.code !== 0 && known.typescriptLatest.test(tsc.output),
      `${manager.label} with TypeScript latest no longer fails as the README says:\n${tsc.output}`,
    );
    unsupported.push(`TypeScript latest (${tsc.output.split("\n")[0]})`);
    await step(manager.add(`-D typescript@${OLDEST_TYPESCRIPT}`));
  }
  for (const type of ["commonjs", "module"]) {
    setPackageType(dir, type);
    // Where the run is known to fail (listed in the README), only its error is asserted: the
    // build skips checking the libraries' declarations, which the pass as ESM checks.
    const expectedToFail = type === "commonjs" && known.commonjs;
    await step(manager.exec(expectedToFail ? "tsc --skipLibCheck" : "tsc"), env);
    const run = await step(manager.node("dist/app.js"), env, { expect: null });
    if (expectedToFail) {
      check(
        run.code !== 0 && known.commonjs.test(run.output),
        `${manager.label} as CommonJS no longer fails as the README says:\n${run.output}`,
      );
      unsupported.push(
        `CommonJS (${/Error \[ERR_MODULE_NOT_FOUND\][^\n]*/.exec(run.output)?.[0]})`,
      );
      continue;
    }
    check(
      run.code === 0 && run.stdout.startsWith("drafted: "),
      `the ${name} app as ${type} printed ${run.output}`,
    );
    ran.push(type);
  }
  log(
    `ok: ${manager.label}: init, pull, generate, tsc and a run as ${ran.join(" and as ")} (${generated.output.split("\n").find((l) => l.includes("wrote")) ?? ""})${unsupported.length > 0 ? `; unsupported, as documented: ${unsupported.join("; ")}` : ""}`,
  );
  return dir;
}

/** The README's app for Deno: the key comes on standard input, which needs no permission. */
export function denoApp(app) {
  return app.replace(
    'apiKey: process.env.WFR_PRODUCTION_API_KEY ?? ""',
    "apiKey: (await new Response(Deno.stdin.readable).text()).trim()",
  );
}

/**
 * Deno runs the app's TypeScript with `--allow-net` to the service only: importing the generated
 * code and creating a client must need no other permission (no environment variable, no file).
 */
export async function denoPass({ deno, dir, app, emulatorUrl, key }) {
  const source = denoApp(app);
  check(source !== app, "the README's app no longer reads WFR_PRODUCTION_API_KEY");
  writeFileSync(join(dir, "src", "deno-app.ts"), `declare const Deno: any;\n${source}`);
  const host = new URL(emulatorUrl).host;
  const run = await sh(
    dir,
    `${deno} run --no-prompt --allow-net=${host} src/deno-app.ts`,
    { DENO_NO_UPDATE_CHECK: "1" },
    { input: key },
  );
  check(run.stdout.startsWith("drafted: "), `the Deno app printed ${run.output}`);
  log(`ok: Deno, --allow-net=${host} only: ${run.stdout.trim()}`);
}
