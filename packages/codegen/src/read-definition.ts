// Reads `<schemas>/<env>/openapi.(json|yaml|yml)` into the normalized model:
// the document (version, environment, servers) and its launch paths here;
// one workflow in read-definition/workflow.ts, one field's schema in
// read-definition/field-reader.ts. Nothing downstream looks at OpenAPI again.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import {
  child,
  DefinitionError,
  decodeUriComponentAt,
  escapePointerToken as escapePointer,
  isRecord,
  type Located,
  parseDocument,
  RefResolver,
} from "@wfr/definition-reader";
import { DEFINITION_FILE_NAMES } from "@wfr/protocol";
import { assignIdentifiers, IdentifierError } from "./identifiers.js";
import type { EnvironmentModel, WorkflowModel } from "./model.js";
import { FieldReader } from "./read-definition/field-reader.js";
import { readWorkflow } from "./read-definition/workflow.js";

export { DefinitionError } from "./definition-error.js";

export interface ReadOptions {
  /** Pinned identifiers: environment name -> workflow id -> identifier. */
  readonly aliases?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** The file names a definition may have, from the protocol vocabulary. */
export const DEFINITION_NAMES = DEFINITION_FILE_NAMES;
const LAUNCH_PATH = /^\/automations\/([^/]+)\/runs$/;
/**
 * Workflow identifiers and environment names become file names
 * (`<identifier>.schema.d.ts`); file systems allow 255 bytes per name, and
 * the generated suffixes need some of them.
 */
const MAX_NAME_BYTES = 200;

/** Reads every environment folder under `schemasDir`; sorted by environment name. */
export function readSchemas(schemasDir: string, options: ReadOptions = {}): EnvironmentModel[] {
  const root = resolve(schemasDir);
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    throw new DefinitionError(schemasDir, "", "the schemas folder does not exist");
  }
  const models: EnvironmentModel[] = [];
  for (const entry of readdirSync(root).sort()) {
    const folder = join(root, entry);
    if (!statSync(folder).isDirectory()) continue;
    const found = DEFINITION_NAMES.filter((n) => existsSync(join(folder, n)));
    if (found.length === 0) continue;
    if (found.length > 1) {
      throw new DefinitionError(`${entry}/`, "", `more than one definition: ${found.join(", ")}`);
    }
    models.push(readDefinition(join(folder, found[0] as string), { ...options, schemasDir: root }));
  }
  const seen = new Map<string, string>();
  for (const m of models) {
    const prev = seen.get(m.name);
    if (prev !== undefined) {
      throw new DefinitionError(
        m.sourceFile,
        "/info/x-environment",
        `environment ${JSON.stringify(m.name)} is also defined by ${prev}`,
      );
    }
    seen.set(m.name, m.sourceFile);
  }
  return models.sort((a, b) => compare(a.name, b.name));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Reads one definition file. `schemasDir` (default: the file's grandparent) makes `sourceFile` relative. */
export function readDefinition(
  file: string,
  options: ReadOptions & { readonly schemasDir?: string } = {},
): EnvironmentModel {
  const absolute = resolve(file);
  const schemasDir = options.schemasDir ?? resolve(absolute, "..", "..");
  const sourceFile = relative(schemasDir, absolute).split(sep).join("/");
  const display = (f: string) => relative(schemasDir, f).split(sep).join("/");
  const bytes = readFileSync(absolute);
  const sourceHash = createHash("sha256").update(bytes).digest("hex");
  const resolver = new RefResolver(display);
  const doc = parseDocument(bytes.toString("utf8"), sourceFile);
  resolver.seed(absolute, doc);
  const root: Located = { node: doc, file: absolute, pointer: "" };

  if (!isRecord(doc) || typeof doc.openapi !== "string") {
    throw new DefinitionError(
      sourceFile,
      "",
      "not an OpenAPI definition (no `openapi` version field)",
    );
  }
  if (!/^3\.[01](\.\d+)?([-.].*)?$/.test(doc.openapi)) {
    throw new DefinitionError(
      sourceFile,
      "/openapi",
      `unsupported OpenAPI version ${JSON.stringify(doc.openapi)} (3.0.x and 3.1.x are read)`,
    );
  }
  const info = isRecord(doc.info) ? doc.info : {};
  const folderName = absolute.split(sep).at(-2) ?? "default";
  const name = typeof info["x-environment"] === "string" ? info["x-environment"] : folderName;
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(name)) {
    throw new DefinitionError(
      sourceFile,
      "/info/x-environment",
      `environment name ${JSON.stringify(name)} must start with a letter or digit and hold only letters, digits, "-" and "_" (a leading "_" is kept for the generated shared modules, _shared/)`,
    );
  }
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) {
    throw new DefinitionError(
      sourceFile,
      "/info/x-environment",
      `environment name is ${Buffer.byteLength(name)} bytes; it names generated files and folders, so at most ${MAX_NAME_BYTES}`,
    );
  }
  const workspace = typeof info["x-workspace"] === "string" ? info["x-workspace"] : null;
  const servers = Array.isArray(doc.servers) ? doc.servers : [];
  const server0 = servers[0];
  const baseUrl = isRecord(server0) && typeof server0.url === "string" ? server0.url : "";
  if (baseUrl === "") {
    throw new DefinitionError(
      sourceFile,
      "/servers",
      "no `servers[0].url` (the environment's API base)",
    );
  }
  if (!isRecord(doc.paths)) throw new DefinitionError(sourceFile, "/paths", "no `paths` object");

  const reader = new FieldReader(resolver, doc.openapi.startsWith("3.0"));
  const partial: Omit<WorkflowModel, "identifier">[] = [];
  for (const path of Object.keys(doc.paths).sort(compare)) {
    const match = LAUNCH_PATH.exec(path);
    if (!match) continue;
    const pathItem = resolver.deref(child(root, "paths", path));
    const op = resolver.deref(child(pathItem, "post"));
    if (!isRecord(op.node)) continue;
    const pathId = decodeUriComponentAt(
      match[1] as string,
      sourceFile,
      `/paths/${escapePointer(path)}`,
    );
    partial.push(readWorkflow(reader, op, pathId));
  }
  const ids = new Map<string, string>();
  for (const wf of partial) {
    const prev = ids.get(wf.id);
    if (prev !== undefined)
      throw new DefinitionError(
        sourceFile,
        wf.pointer,
        `workflow id ${wf.id} is also used at ${prev}`,
      );
    ids.set(wf.id, wf.pointer);
  }
  let identifiers: Map<string, string>;
  try {
    identifiers = assignIdentifiers(partial, options.aliases?.[name] ?? {});
  } catch (error) {
    if (error instanceof IdentifierError)
      throw new DefinitionError(sourceFile, "/paths", error.message);
    throw error;
  }
  const workflows = partial
    .map((wf): WorkflowModel => ({ ...wf, identifier: identifiers.get(wf.id) as string }))
    .sort((a, b) => compare(a.id, b.id));
  for (const wf of workflows) {
    if (Buffer.byteLength(wf.identifier) > MAX_NAME_BYTES)
      throw new DefinitionError(
        sourceFile,
        `${wf.pointer}/x-workflow/name`,
        `the identifier made from this name (${Array.from(wf.identifier).slice(0, 40).join("")}..., ${Buffer.byteLength(wf.identifier)} bytes) is too long to name its generated files (at most ${MAX_NAME_BYTES} bytes): shorten x-workflow.name, or pin a shorter identifier in wfr.codegen.json (aliases.${name}.${wf.id})`,
      );
  }
  return { name, workspace, baseUrl, sourceFile, sourceHash, workflows };
}
